// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/calibration/Calibration.h"
#include "core/probe/ProbeOptions.h"
#include "core/probe/ProbePlan.h"

#include <functional>
#include <string>

namespace parallax::probe {

// Runs the plan on this machine's GPUs (GEMMs and HBM on device 0; copies and collectives across
// all), prints a table as it goes and writes the calibration file. A measurement that fails is
// listed under "failures" and the rest continue, unless the device is left in an error state.
class ProbeRunner {
public:
    ProbeRunner(const ProbeOptions& options, int deviceCount);
    int run(); // an ExitCode

private:
    // Runs one measurement; an exception (a failed CUDA call, a failed check) becomes a failure
    // entry, never a number.
    void guarded(const std::string& what, const std::function<void()>& measure);
    void runGemms();
    void runMemory();
    void runPeers();
    void runCollectives();
    void printHeader() const;

    ProbeOptions m_options;
    int m_deviceCount;
    DeviceFacts m_facts;
    ProbePlan m_plan;
    core::Calibration m_calibration;
    bool m_deviceBroken = false;
};

} // namespace parallax::probe
