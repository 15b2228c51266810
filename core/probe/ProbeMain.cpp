// SPDX-License-Identifier: Apache-2.0
// parallax-probe: measures this machine's GPUs and writes a calibration file for Parallax.
// Exit codes: ProbeExitCodes.h and docs/probe.md.

#include "core/probe/DeviceInfo.h"
#include "core/probe/ProbeExitCodes.h"
#include "core/probe/ProbeOptions.h"
#include "core/probe/ProbePlan.h"
#include "core/probe/ProbeRunner.h"

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#ifndef PARALLAX_VERSION
#define PARALLAX_VERSION "unknown"
#endif

using namespace parallax::probe;

int main(int argc, char** argv)
{
    const std::vector<std::string> args(argv + 1, argv + argc);
    std::string error;
    const auto options = parseProbeOptions(args, error);
    if (!options) {
        std::fprintf(stderr, "parallax-probe: %s\n", error.c_str());
        return kExitUsage;
    }
    if (options->help) {
        std::fputs(probeUsage().c_str(), stdout);
        return kExitOk;
    }
    if (options->version) {
        std::printf("parallax-probe %s\n", PARALLAX_VERSION);
        return kExitOk;
    }

    std::string why;
    const int devices = usableDeviceCount(why);
    if (devices == 0) {
        if (options->list) {
            // Listing needs no GPU: show what a GPU machine would run, with its conditions.
            std::printf("No usable CUDA device here (%s); the plan for a GPU machine:\n", why.c_str());
            std::fputs(describePlan(buildProbePlan(*options, DeviceFacts {}), DeviceFacts {}).c_str(), stdout);
            return kExitOk;
        }
        // The app and scripts key on this exact line and on exit code 3.
        std::fputs("parallax-probe: no CUDA device found: using datasheet numbers\n", stderr);
        return kExitNoDevice;
    }

    try {
        return ProbeRunner(*options, devices).run();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "parallax-probe: %s\n", e.what());
        return kExitError;
    }
}
