// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/parallel/ParallelConfig.h"

namespace parallax::core {

// How a serving deployment splits the model, from a scenario's `parallel` degrees:
// world = tp * pp * dp. Attention and dense layers are split tp ways and replicated over the dp
// attention replicas (with ep > 1 over them: DP-attention, SGLang --enable-dp-attention). Routed
// experts are split ep ways over the tp x dp ranks of a stage, and tensor-split by tp when ep < tp
// (vLLM FusedMoE shards experts by TP unless --enable-expert-parallel).
struct ServingLayout {
    int tp = 1;
    int pp = 1;
    int dp = 1;
    int ep = 1;

    static ServingLayout of(const ParallelConfig& p) { return { p.tp, p.pp, p.dp, p.ep }; }
    int world() const { return tp * pp * dp; }
    int expertShards() const { return ep > tp ? ep : tp; }
    bool dpAttention() const { return dp > 1 && ep > 1; }
};

} // namespace parallax::core
