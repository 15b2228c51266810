// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"

#include <optional>
#include <string>
#include <vector>

namespace parallax::core {

// Reads a Megatron-LM command line (torchrun ... pretrain_gpt.py --flags, the bash arrays of its
// examples, or MegatronArgsWriter's output) or NeMo overrides (`trainer.strategy.tensor_model_parallel_size=8`,
// NemoRecipeWriter's `recipe.... = 8` lines) into a scenario: parallel degrees, batch, sequence,
// model shape, and the cluster from torchrun's --nnodes / --nproc-per-node. Defaults are Megatron-LM's
// where a flag is absent (learned positions, biases, dropout 0.1, etp = tp).
class LaunchArgsImporter {
public:
    struct Defaults {
        std::string gpu = "h100-sxm"; // GPU preset when the text has no parallax-scenario marker
        int nodes = 1;
        int gpusPerNode = 8;
        double nicGbps = 400;
    };
    struct Result {
        std::optional<Scenario> scenario;
        std::string error; // names the flag and the fix
        std::vector<std::string> notes; // flags read but not modelled, flags ignored
    };
    static Result import(const std::string& text, const Defaults& defaults);
};

} // namespace parallax::core
