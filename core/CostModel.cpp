#include "core/CostModel.h"

#include "core/Calibration.h"
#include "core/DataParallelSync.h"

#include <algorithm>
#include <cmath>

namespace parallax::core {

ComputeRates::ComputeRates(
    const GpuSpec& gpu, DType dtype, const Calibration* calibration, const EfficiencyDefaults& defaults)
    : m_dtype(dtype)
    , m_calibration(calibration)
{
    const bool fp8 = dtype == DType::Fp8 && gpu.fp8FlopsPerSecond > 0;
    m_peak = fp8 ? gpu.fp8FlopsPerSecond : gpu.bf16FlopsPerSecond;
    m_gemmRate = m_peak * (fp8 ? defaults.fp8GemmFractionOfPeak : defaults.gemmFractionOfPeak);
    m_attentionRate = gpu.bf16FlopsPerSecond * defaults.attentionFractionOfPeak;
    m_hbmRate = gpu.hbmBytesPerSecond * defaults.hbmFractionOfPeak;
    if (calibration) {
        if (auto peak = calibration->peakGemmFlopsPerSecond(fp8 ? DType::Fp8 : DType::Bf16)) {
            m_gemmRate = *peak;
            m_hasGemmCalibration = true;
        }
        if (calibration->attentionFlopsPerSecond)
            m_attentionRate = *calibration->attentionFlopsPerSecond;
        if (calibration->hbmBytesPerSecond)
            m_hbmRate = *calibration->hbmBytesPerSecond;
    }
}

double ComputeRates::gemmSeconds(double m, double n, double k, double count) const
{
    if (m <= 0 || n <= 0 || k <= 0 || count <= 0)
        return 0;
    const double flops = 2.0 * m * n * k; // 2 FLOPs per multiply-add
    double rate = m_gemmRate;
    if (m_hasGemmCalibration) {
        if (auto measured = m_calibration->gemmFlopsPerSecond(std::lround(m), std::lround(n), std::lround(k), m_dtype))
            rate = *measured;
    }
    // Roofline: a GEMM is bound by its FLOPs or by moving A, B and C once through HBM
    // (Williams et al., "Roofline", CACM 2009).
    const double elementBytes = m_dtype == DType::Fp8 ? 1.0 : 2.0;
    const double bytes = elementBytes * (m * k + k * n) + 2.0 * m * n;
    // FP8 training casts the 16-bit input to fp8 before each GEMM (Transformer Engine): one
    // memory-bound pass reading 2 B and writing 1 B per input element, plus the amax reduction.
    const double cast = m_dtype == DType::Fp8 ? 3.0 * m * k / m_hbmRate : 0.0;
    return count * (std::max(flops / rate, bytes / m_hbmRate) + cast);
}

double ComputeRates::attentionSeconds(double flops) const
{
    return flops > 0 ? flops / m_attentionRate : 0;
}

double ComputeRates::memorySeconds(double bytes) const
{
    return bytes > 0 ? bytes / m_hbmRate : 0;
}

double CommGroup::seconds(CollectiveKind kind, double bytes) const
{
    if (size <= 1 || bytes <= 0)
        return 0;
    return hierarchicalCollectiveSeconds(kind, inner, outer, bytes, intra, inter);
}

double layerAttentionScoreFlops(const LayerShape& shape, const ActivationContext& c)
{
    // QK^T and AV over the full s x s matrix: 2 * 2 * s_q * s_k * (d_qk + d_v) / 2 per head, where the
    // causal mask lets fused kernels skip half of the blocks (arXiv:2307.08691 sec. 3.1).
    const double queries = c.seqLen / c.cp * c.microBatch;
    const double full = 2.0 * queries * c.seqLen * shape.heads / c.tp * (shape.qkHeadDim + shape.vHeadDim);
    return 0.5 * full;
}

LayerTimes layerTimes(const ModelSpec& m, const LayerShape& shape, const ActivationContext& c,
    const ComputeRates& rates, const LayerCommGroups& groups, const EfficiencyDefaults& defaults)
{
    (void)defaults;
    LayerTimes t;
    const double tokens = c.seqLen / c.cp * c.microBatch; // rows of the GEMMs on this GPU
    const double h = static_cast<double>(m.hidden);
    const double rep = c.sp ? 1.0 / c.tp : 1.0;

    double gemmForward = 0;
    for (const LinearShape& l : shape.linears) {
        if (l.routedExpert) {
            // Grouped GEMM over the local experts, each receiving its share of the routed tokens.
            const double routed = routedTokensPerGpu(shape, c);
            const double shard = c.etp;
            const double k = l.rowParallel ? l.inFeatures / shard : l.inFeatures;
            const double n = l.rowParallel ? l.outFeatures : l.outFeatures / shard;
            gemmForward += rates.gemmSeconds(routed, n, k);
            continue;
        }
        const double shard = l.tensorParallel ? c.tp : 1.0;
        const double k = l.rowParallel ? l.inFeatures / shard : l.inFeatures;
        const double n = l.rowParallel ? l.outFeatures : l.outFeatures / shard;
        gemmForward += rates.gemmSeconds(tokens, n, k);
    }
    const double attention = rates.attentionSeconds(layerAttentionScoreFlops(shape, c));
    // Element-wise traffic per token: two norms, two residual adds, rotary/bias/activation, each
    // reading and writing 16-bit tensors (memory-bound; stated estimate of ~14 h-wide passes).
    const double width = shape.mlpWidth + (shape.moe ? shape.expertWidth * shape.topK : 0.0);
    const double elementwiseBytes = 2.0 * tokens * (14.0 * h * rep + 4.0 * width / c.tp);
    const double elementwise = rates.memorySeconds(elementwiseBytes);

    t.forwardCompute = gemmForward + attention + elementwise;
    // Backward: dX and dW GEMMs each cost one forward GEMM; attention backward is ~2x its forward
    // (arXiv:2205.14135 sec. 3.1 counts 5 backward matmuls vs 2 forward; ~2.5x FLOPs); element-wise 2x.
    t.backwardInputCompute = gemmForward + 2.5 * attention + 2.0 * elementwise;
    t.backwardWeightCompute = gemmForward;
    if (c.recompute == Recompute::Selective)
        t.recomputeCompute = attention; // arXiv:2205.05198 sec. 5: recompute the attention core only
    else if (c.recompute == Recompute::Full)
        t.recomputeCompute = t.forwardCompute; // one extra forward (arXiv:2205.05198 sec. 5)

    // TP with or without SP: per layer 2 all-reduces (or all-gather + reduce-scatter of the same
    // volume) in the forward and 2 in the backward of s b h 16-bit values (arXiv:2205.05198 sec. 4.2.2).
    const double tpBytes = 2.0 * tokens * h;
    const double tpCollective = c.sp ? groups.tp.seconds(CollectiveKind::AllGather, tpBytes)
            + groups.tp.seconds(CollectiveKind::ReduceScatter, tpBytes)
                                     : groups.tp.seconds(CollectiveKind::AllReduce, tpBytes);
    t.tpForward = 2.0 * tpCollective;
    t.tpBackward = t.tpForward;
    if (c.recompute == Recompute::Full)
        t.tpBackward += t.tpForward;

    // Context parallelism: ring attention passes K and V around the cp ranks, overlapped with the
    // attention blocks (arXiv:2310.01889 sec. 3); only what exceeds that compute is exposed.
    if (c.cp > 1) {
        const double kvBytes = 2.0 * tokens * shape.kvHeads / c.tp * (shape.qkHeadDim + shape.vHeadDim);
        const LinkLevel& link = groups.cp.outer > 1 ? groups.cp.inter : groups.cp.intra;
        const double comm = (c.cp - 1) * (kvBytes / std::max(1.0, link.bytesPerSecond) + link.latencySeconds);
        t.cpForward = exposedAfterOverlap(comm, attention * (c.cp - 1) / c.cp);
        t.cpBackward = exposedAfterOverlap(2.0 * comm, 2.5 * attention * (c.cp - 1) / c.cp);
    }

    // Expert parallelism: dispatch and combine all-to-alls of the routed tokens, forward and backward;
    // the busiest GPU sets the pace (load imbalance).
    if (shape.moe && groups.ep.size > 1) {
        const double bytes = 2.0 * localTokens(c) * shape.topK * h * c.expertLoadImbalance;
        const double a2a = groups.ep.seconds(CollectiveKind::AllToAll, bytes);
        t.epForward = 2.0 * a2a;
        t.epBackward = 2.0 * a2a;
    }
    return t;
}

HeadTimes lmHeadTimes(const ModelSpec& m, const ActivationContext& c, const ComputeRates& rates, const CommGroup& tp)
{
    HeadTimes t;
    const double tokens = c.seqLen / c.cp * c.microBatch;
    const double h = static_cast<double>(m.hidden);
    const double v = static_cast<double>(m.vocab) / c.tp; // vocabulary-parallel logits (arXiv:1909.08053 sec. 3)
    const double gemm = rates.gemmSeconds(tokens, v, h);
    // Softmax cross-entropy over fp32 logits: read/write 4-byte values, plus a tiny all-reduce of the
    // per-token max and sum over tp.
    const double loss
        = rates.memorySeconds(3.0 * 4.0 * tokens * v) + tp.seconds(CollectiveKind::AllReduce, 8.0 * tokens);
    t.forward = gemm + loss;
    t.backwardInput = gemm + loss;
    t.backwardWeight = gemm;
    return t;
}

} // namespace parallax::core
