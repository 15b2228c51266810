// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"

#include <string>
#include <vector>

namespace parallax::core {

// The Megatron-LM arguments that run a scenario (names of Megatron-LM core_r0.14.0,
// megatron/training/arguments.py), as bash arrays in the style of Megatron-LM's examples/ scripts.
// A feature Megatron-LM lacks becomes a "# NOTE:" line saying what to use instead. A
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
    // The design as Megatron-LM runs it with these flags, where a NOTE says it lacks a feature: 1F1B for the
    // GPipe, zero-bubble and DualPipe schedules, bf16 DeepEP dispatch for DeepSeek's fp8 one, no DeepSeek
    // activation cache. `changes` gets one phrase per difference ("1F1B instead of dualpipe"); empty when none.
    static Scenario asRun(const Scenario& s, std::vector<std::string>& changes);
};

} // namespace parallax::core
