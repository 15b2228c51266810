// SPDX-License-Identifier: Apache-2.0
#include "core/costs/MoeCosts.h"

#include "core/costs/DataParallelSync.h"
#include "core/costs/GroupLimitedRouting.h"

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

namespace {
// Bytes per element of a DeepSeek fp8 dispatch: 1-byte e4m3 values and one fp32 scale per 1 x 128 tile
// (arXiv:2412.19437 sec. 3.3.2, fine-grained quantization of activations).
constexpr double kFp8DispatchBytes = 1.0 + 4.0 / 128.0;

// C(n - x, k) / C(n, k): the chance that k distinct picks out of n all miss a given x of them.
double missAll(double n, double x, double k)
{
    double p = 1.0;
    for (int i = 0; i < static_cast<int>(k); ++i) {
        const double left = n - x - i;
        if (left <= 0)
            return 0.0;
        p *= left / (n - i);
    }
    return p;
}

// Expected units (nodes or ranks, `units` equal blocks of the experts) holding at least one of a token's
// k picks, the picks uniform over all the experts: units (1 - C(experts - unit, k) / C(experts, k)).
double uniformUnitsTouched(double experts, double k, double units)
{
    return units * (1.0 - missAll(experts, experts / units, k));
}
} // namespace

AllToAllEfficiency allToAllEfficiency(const GpuSpec& gpu)
{
    AllToAllEfficiency e;
    if (gpu.allToAllNvlinkFraction > 0)
        e.nvlinkFraction = gpu.allToAllNvlinkFraction;
    return e;
}

AllToAllEfficiency allToAllEfficiency(const ComputeRates& rates)
{
    AllToAllEfficiency e;
    if (rates.allToAllNvlinkFraction() > 0)
        e.nvlinkFraction = rates.allToAllNvlinkFraction();
    return e;
}

CommGroup achievedAllToAll(CommGroup group, const AllToAllEfficiency& efficiency)
{
    group.intra.bytesPerSecond *= efficiency.nvlinkFraction;
    group.inter.bytesPerSecond *= efficiency.scaleOutFraction;
    return group;
}

RoutedFanout routedFanout(const LayerShape& shape, int nodes, int gpusPerNode)
{
    RoutedFanout f;
    if (!shape.moe || shape.experts <= 0)
        return f;
    const double experts = shape.experts;
    const double k = std::min(shape.topK, experts);
    const double n = std::min<double>(std::max(1, nodes), experts);
    const double r = std::min<double>(std::max(1, nodes) * std::max(1, gpusPerNode), experts);
    f.copies = k;
    const auto wholeExperts = static_cast<int>(std::lround(experts));
    const bool grouped = shape.routerGroups > 1 && shape.routerGroupTopk >= 1
        && shape.routerGroupTopk < shape.routerGroups && wholeExperts % shape.routerGroups == 0;
    const auto touched = [&](double units) {
        return grouped ? groupLimitedUnitsTouched(wholeExperts, static_cast<int>(std::lround(k)), shape.routerGroups,
                   shape.routerGroupTopk, static_cast<int>(units))
                       : uniformUnitsTouched(experts, k, units);
    };
    f.nodes = touched(n);
    f.gpus = touched(r);
    // By symmetry the sender's own node (rank) is touched with the average chance, touched / units.
    f.remoteNodes = f.nodes * (1.0 - 1.0 / n);
    f.remoteGpus = f.gpus * (1.0 - 1.0 / r);
    return f;
}

void setDispatch(ActivationContext& c, const TrainingConfig& t, const ParallelConfig& p, int smCount)
{
    c.dispatcher = t.moeTokenDispatcher;
    c.fp8Dispatch = t.deepseekFp8Dispatch;
    c.dispatchSmShare = t.moeTokenDispatcher == MoeDispatcher::DeepEp && smCount > t.moeDeepepNumSms
        ? static_cast<double>(t.moeDeepepNumSms) / smCount
        : 0.0;
    c.epCommConcurrent
        = p.epCommOverlap || p.schedule == ScheduleKind::DualPipe || p.schedule == ScheduleKind::DualPipeV;
}

double dispatchSmSeconds(double compute, double comm, double smShare)
{
    if (smShare <= 0 || smShare >= 1 || compute <= 0 || comm <= 0)
        return 0;
    // While the communication runs, compute goes at (1 - s): all of it if it fits, else for comm seconds.
    return std::min(compute * smShare / (1.0 - smShare), comm * smShare);
}

double dispatchCombineSeconds(const LayerShape& shape, const ActivationContext& c, const CommGroup& ep, double hidden,
    const AllToAllEfficiency& efficiency)
{
    if (!shape.moe || ep.size <= 1)
        return 0;
    const double tokens = localTokens(c);
    const double dispatchBytes = c.fp8Dispatch ? kFp8DispatchBytes : kBf16Bytes;
    const CommGroup achieved = achievedAllToAll(ep, efficiency);
    if (c.dispatcher == MoeDispatcher::AllToAll) {
        // Each GPU sends its tokens' top-k copies; the busiest receiver takes the imbalance factor more.
        const double copies = tokens * shape.topK * hidden * c.expertLoadImbalance;
        return achieved.seconds(CollectiveKind::AllToAll, copies * dispatchBytes)
            + achieved.seconds(CollectiveKind::AllToAll, copies * kBf16Bytes);
    }
    // DeepEP normal kernels: one RDMA send per (token, remote node) to the rank of the same local index
    // there, which forwards it over NVLink to the ranks holding its experts; a rank's NVLink traffic is the
    // copies for the distinct ranks of its tokens, the two links pipelined (deepseek-ai/DeepEP README).
    const RoutedFanout fan = routedFanout(shape, ep.outer, ep.inner);
    auto pass = [&](double bytesPerElement) {
        const double perCopy = tokens * hidden * bytesPerElement * c.expertLoadImbalance;
        const double scaleOut = ep.outer > 1 && achieved.inter.bytesPerSecond > 0
            ? fan.remoteNodes * perCopy / achieved.inter.bytesPerSecond + achieved.inter.latencySeconds
            : 0.0;
        const double nvlinkCopies = fan.gpus * (1.0 - 1.0 / std::max(1, ep.inner));
        const double nvlink = ep.inner > 1 && achieved.intra.bytesPerSecond > 0
            ? nvlinkCopies * perCopy / achieved.intra.bytesPerSecond + achieved.intra.latencySeconds
            : 0.0;
        return std::max(scaleOut, nvlink);
    };
    return pass(dispatchBytes) + pass(kBf16Bytes);
}

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
    // Dispatch and combine (dispatchCombineSeconds); the backward runs both again on the gradients, the
    // dispatch of the gradients in the dispatch's precision as well (arXiv:2412.19437 sec. 3.3.2).
    const double a2a = t.expertTensorGatherForward + dispatchCombineSeconds(shape, c, ep, hidden, efficiency);
    t.dispatchForward = a2a;
    t.dispatchBackward = a2a;
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
