// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/model/ModelSpec.h"

#include <optional>
#include <string>
#include <vector>

namespace parallax::core {

// Megatron-Core's --moe-layer-freq for the model's MoE layers (megatron/training/arguments.py moe_freq_type: an
// int N puts MoE on layers 0, N, 2N, ...; a string is a Python list of 0/1 per layer): "" where every layer is
// MoE (the default, 1), "([0]*3+[1]*58)" after dense layers, "([0,1]*24)" for Llama 4 Maverick's alternation.
std::string moeLayerFreqPattern(const ModelSpec& m);

// A --moe-layer-freq value as one 0/1 entry per layer: an int N, or a sum of lists, each optionally repeated
// ("([0]*3+[1]*58)", "([0,1]*24)", "[0,1,0,1]"). Empty with `error` set where the value is not one of these
// or does not cover `layers` layers.
std::vector<int> expandMoeLayerFreq(const std::string& value, int layers, std::string& error);

// The dense prefix and MoE layer step (MoeSpec::firstDenseLayers, layerStep) that place MoE on exactly the
// layers `pattern` marks; nullopt where no such pair does (the engine's MoE layers are a dense prefix and then
// every step-th layer).
struct MoePlacement {
    int firstDenseLayers = 0;
    int layerStep = 1;
};
std::optional<MoePlacement> moePlacementOf(const std::vector<int>& pattern);

} // namespace parallax::core
