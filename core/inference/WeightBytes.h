// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/inference/InferenceConfig.h"
#include "core/model/ModelSpec.h"

namespace parallax::core {

// Storage bytes per weight of a format, block scales included: value bits / 8 + scale bytes /
// values per scale. `inFeatures` is the reduction width of the layer, needed only for per-channel
// formats (int8).
double weightBytesPerParameter(WeightFormat format, double inFeatures);

// Weights one serving GPU holds: the transformer linears in the quantized format; embeddings, LM
// head, norms and routers in bf16, as vLLM and SGLang load quantized checkpoints (the quantizers
// skip them: llm-compressor "ignore: [lm_head]", DeepSeek-V3's fp8 checkpoint keeps them bf16).
struct ServingWeightBytes {
    double quantized = 0; // attention, MLP and expert linears
    double bf16 = 0; // embedding, LM head, norms, router
    double total() const { return quantized + bf16; }
};

// Layers [firstLayer, endLayer) on one GPU of a tp-way attention/MLP split, routed experts split
// `expertShards` ways (see ServingLayout), plus the embedding and/or LM head when the stage holds them.
ServingWeightBytes servingWeightBytes(const ModelSpec& m, WeightFormat format, int tp, int expertShards, int firstLayer,
    int endLayer, bool holdsEmbedding, bool holdsHead);

} // namespace parallax::core
