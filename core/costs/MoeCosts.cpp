// SPDX-License-Identifier: Apache-2.0
#include "core/costs/MoeCosts.h"

#include "core/costs/DataParallelSync.h"

#include <algorithm>
#include <cmath>

namespace parallax::core {

namespace {
constexpr double kBf16Bytes = 2.0;
constexpr double kFp32Bytes = 4.0;
// Megatron-Core's router runs softmax (or sigmoid) over fp32 logits, then top-k and the auxiliary
// load-balancing loss: about three fp32 passes over the tokens x experts scores each way.
constexpr double kRouterPasses = 3.0;
// Kernels the MoE layer adds to the launch stream (router, top-k, aux loss, permute, all-to-all
// metadata, grouped GEMM, un-permute; twice as many in the backward), at the engine's launch gap.
constexpr int kMoeForwardKernels = 12;
constexpr int kMoeBackwardKernels = 24;
} // namespace

double localExperts(const LayerShape& shape, int ep)
{
    return std::max(1.0, shape.experts / std::max(1, ep));
}

double tokensPerLocalExpert(const LayerShape& shape, const ActivationContext& c, int ep)
{
    return routedTokensPerGpu(shape, c) / localExperts(shape, ep);
}

double permutePassBytes(const LayerShape& shape, const ActivationContext& c, double hidden)
{
    return 2.0 * kBf16Bytes * routedTokensPerGpu(shape, c) * hidden;
}

MoeLayerTimes moeLayerTimes(const LayerShape& shape, const ActivationContext& c, const ComputeRates& rates,
    const CommGroup& ep, double hidden, bool allToAllOverlap, const AllToAllEfficiency& efficiency,
    const CommGroup& etp)
{
    MoeLayerTimes t;
    if (!shape.moe)
        return t;
    const double tokens = localTokens(c);
    const double routerBytes = kRouterPasses * kFp32Bytes * tokens * shape.experts;
    t.routerForward = rates.layerKernelSeconds(routerBytes) + kMoeForwardKernels * rates.launchSeconds();
    t.routerBackward = rates.layerKernelSeconds(routerBytes) + kMoeBackwardKernels * rates.launchSeconds();

    // Permutation gathers each token's top-k copies into expert order, un-permutation scatters them
    // back and sums them with the router weights; the backward runs the same two passes on the
    // gradients (Megatron-Core moe_utils permute / unpermute).
    const double pass = rates.memorySeconds(permutePassBytes(shape, c, hidden));
    t.permuteForward = 2.0 * pass;
    t.permuteBackward = 2.0 * pass;

    // Grouped GEMM (Megatron-Core --moe-grouped-gemm): one GEMM per local expert, each with the
    // tokens that expert really gets; tile quantization of small M, the weights streamed per expert and
    // the weight gradient's short reduction depth (M) lower its efficiency (ComputeRates::groupedGemmSeconds).
    const double experts = localExperts(shape, ep.size);
    const double m = tokensPerLocalExpert(shape, c, ep.size);
    for (const LinearShape& l : shape.linears) {
        if (!l.routedExpert)
            continue;
        const double k = l.rowParallel ? l.inFeatures / c.etp : l.inFeatures;
        const double n = l.rowParallel ? l.outFeatures : l.outFeatures / c.etp;
        t.expertForward += rates.groupedGemmSeconds(m, n, k, experts);
        t.expertBackwardInput += rates.groupedGemmSeconds(m, k, n, experts);
        t.expertBackwardWeight += rates.groupedGemmSeconds(k, n, m, experts);
    }

    // With expert tensor parallelism the token dispatcher all-gathers the tokens an EP rank received
    // over the ETP group before the expert GEMMs and reduce-scatters their outputs after them (Megatron-Core
    // token_dispatcher.py: gather_from_sequence_parallel_region / reduce_scatter_to_sequence_parallel_region
    // on the expert TP group); the backward mirrors both. Not hidden by --tp-comm-overlap, which fuses the
    // collectives of the dense linears only.
    if (c.etp > 1 && etp.size > 1) {
        const double gathered = kBf16Bytes * routedTokensPerGpu(shape, c) * hidden;
        t.expertTensorGatherForward
            = etp.seconds(CollectiveKind::AllGather, gathered) + etp.seconds(CollectiveKind::ReduceScatter, gathered);
    }
    // Dispatch and combine: each GPU sends its tokens' top-k 16-bit copies, the busiest receiver takes
    // the imbalance factor more; the backward runs both again on the gradients.
    double a2a = t.expertTensorGatherForward;
    if (ep.size > 1) {
        CommGroup achieved = ep;
        achieved.intra.bytesPerSecond *= efficiency.nvlinkFraction;
        achieved.inter.bytesPerSecond *= efficiency.scaleOutFraction;
        const double bytes = kBf16Bytes * tokens * shape.topK * hidden * c.expertLoadImbalance;
        a2a += 2.0 * achieved.seconds(CollectiveKind::AllToAll, bytes);
    }
    if (a2a > 0) {
        // With EP communication overlap the all-to-all of one micro-batch runs behind the expert and
        // attention compute of another (Megatron-Core --overlap-moe-expert-parallel-comm).
        t.allToAllForward = allToAllOverlap ? exposedAfterOverlap(a2a, t.expertForward) : a2a;
        t.allToAllBackward
            = allToAllOverlap ? exposedAfterOverlap(a2a, t.expertBackwardInput + t.expertBackwardWeight) : a2a;
    }
    return t;
}

} // namespace parallax::core
