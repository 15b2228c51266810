// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"

#include <string>
#include <vector>

namespace parallax::core {

// The Megatron-LM arguments that run a scenario (names of Megatron-LM core_r0.14.0,
// megatron/training/arguments.py), as bash arrays in the style of Megatron-LM's examples/ scripts.
// A feature Megatron-LM lacks becomes a "# NOTE:" line saying what to use instead (core/launch/FrameworkGaps.h,
// whose runAs predicts what the flags run). A
// "# parallax-scenario:" line carries what Megatron has no flag for (GPU type, fabric, schedule), so
// that LaunchArgsImporter gives the scenario back.
class MegatronArgsWriter {
public:
    static std::string write(const Scenario& s);
    // The flags alone, one "--flag value" per line, no comments (the GUI's Copy action).
    static std::string flagsOnly(const Scenario& s);
    // The bash arrays of the model, parallel and training flags (MODEL_ARGS=( ... ) and so on, without
    // TORCHRUN_ARGS); `names` gets the arrays' names in order.
    static std::string argumentArrays(const Scenario& s, std::vector<std::string>& names);
};

} // namespace parallax::core
