// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/model/ModelSpec.h"
#include "core/parallel/ParallelConfig.h"

namespace parallax::core {

// Parameters one GPU holds for a set of layers, split into the parts that ZeRO shards over
// different groups: dense parameters over the data-parallel group (dp * cp), expert parameters over
// the expert-data-parallel group (arXiv:1910.02054 sec. 5; Megatron-Core distributed optimizer).
struct ParameterShard {
    double dense = 0;
    double expert = 0;
    double total() const { return dense + expert; }
    ParameterShard& operator+=(const ParameterShard& o)
    {
        dense += o.dense;
        expert += o.expert;
        return *this;
    }
};

// What a model stage holds beside its transformer layers.
struct StageHolds {
    bool embedding = false; // the input embedding (the first stage)
    bool head = false; // the final norm and the output layer (the last stage)
    int mtpLayers = 0; // multi-token-prediction depths: with the head unless a custom layout places them
    bool rankHoldsEmbedding = false; // another model stage of the same pipeline rank holds the embedding
};

// Layers [firstLayer, endLayer) plus what `holds` names. A tied output layer and an MTP stage's embedding
// reuse the first stage's table; a stage without it keeps a synchronised copy (as Megatron does) unless the
// same pipeline rank holds the first stage too (DualPipe and the V schedules: arXiv:2412.19437 sec. 3.2.3
// shares it).
ParameterShard stageParameters(
    const ModelSpec& m, const ParallelConfig& p, int firstLayer, int endLayer, const StageHolds& holds);

// Bytes per parameter of mixed-precision Adam (arXiv:1910.02054 sec. 3.1): 2 bf16 weights,
// 12 fp32 master weights + momentum + variance, and fp32 gradients: Megatron-Core accumulates and
// reduces the gradients of bf16 training in fp32 (Megatron-Core docs, "Distributed Optimizer":
// 18 bytes per parameter for bf16 parameters with fp32 gradients, 6 + 12/d when distributed).
inline constexpr double kWeightBytesPerParam = 2.0;
inline constexpr double kGradBytesPerParam = 4.0;
inline constexpr double kOptimizerBytesPerParam = 12.0;

} // namespace parallax::core
