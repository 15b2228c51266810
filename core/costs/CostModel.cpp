// SPDX-License-Identifier: Apache-2.0
#include "core/costs/CostModel.h"

#include "core/calibration/Calibration.h"
#include "core/costs/DataParallelSync.h"
#include "core/costs/MoeCosts.h"
#include "core/parallel/ParameterShard.h"

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
    // The GPU preset's documented fraction where it states one (fp8 keeps the same ratio to the
    // bf16 fraction as the defaults), else the defaults.
    const double bf16Fraction = gpu.gemmFractionOfPeak > 0 ? gpu.gemmFractionOfPeak : defaults.gemmFractionOfPeak;
    const double fp8Fraction = defaults.fp8GemmFractionOfPeak * bf16Fraction / defaults.gemmFractionOfPeak;
    m_gemmRate = m_peak * (fp8 ? fp8Fraction : bf16Fraction);
    m_peak16 = gpu.bf16FlopsPerSecond;
    m_gemmRate16 = m_peak16 * bf16Fraction;
    m_depthOverhead16 = defaults.gemmDepthOverhead;
    m_depthOverhead = m_depthOverhead16 * (fp8 ? 2.0 : 1.0); // a stage's bytes of k hold twice the fp8 elements
    m_streamK = gpu.gemmStreamK;
    // Layer kernels at their share of the default stream rate, whatever a preset or the probe measures
    // for a plain stream: their own rate is what the share states (EfficiencyDefaults).
    m_layerKernelRate = gpu.hbmBytesPerSecond * defaults.hbmFractionOfPeak * defaults.layerKernelShareOfStream;
    m_smCount = gpu.smCount;
    m_launchSeconds = defaults.kernelLaunchSeconds;
    m_attentionRate = gpu.bf16FlopsPerSecond
        * (gpu.attentionFractionOfPeak > 0 ? gpu.attentionFractionOfPeak : defaults.attentionFractionOfPeak);
    m_attentionKeyOverhead = gpu.attentionKeyOverhead;
    m_allToAllNvlinkFraction = gpu.allToAllNvlinkFraction;
    m_hbmRate
        = gpu.hbmBytesPerSecond * (gpu.hbmFractionOfPeak > 0 ? gpu.hbmFractionOfPeak : defaults.hbmFractionOfPeak);
    if (calibration) {
        if (auto peak = calibration->peakGemmFlopsPerSecond(fp8 ? DType::Fp8 : DType::Bf16)) {
            m_gemmRate = *peak;
            m_hasGemmCalibration = true;
        }
        if (auto peak = calibration->peakGemmFlopsPerSecond(DType::Bf16)) {
            m_gemmRate16 = *peak;
            m_hasGemmCalibration16 = true;
        }
        if (calibration->attentionFlopsPerSecond) {
            m_attentionRate = *calibration->attentionFlopsPerSecond;
            m_attentionKeyOverhead = 0; // the measured rate as it is
        }
        if (calibration->hbmBytesPerSecond)
            m_hbmRate = *calibration->hbmBytesPerSecond;
    }
}

ComputeRates ComputeRates::sixteenBit() const
{
    ComputeRates r = *this;
    if (m_dtype == DType::Bf16)
        return r;
    r.m_dtype = DType::Bf16;
    r.m_peak = m_peak16;
    r.m_gemmRate = m_gemmRate16;
    r.m_depthOverhead = m_depthOverhead16;
    r.m_hasGemmCalibration = m_hasGemmCalibration16;
    return r;
}

double ComputeRates::gemmComputeSeconds(double m, double n, double k, double count) const
{
    double rate = m_gemmRate * shapeEfficiency(m, n, k, count);
    if (m_hasGemmCalibration) {
        if (auto measured = m_calibration->gemmFlopsPerSecond(std::lround(m), std::lround(n), std::lround(k), m_dtype))
            rate = *measured; // the probe measured this shape (or its neighbours): no default curve
    }
    return 2.0 * m * n * k / rate; // 2 FLOPs per multiply-add
}

double ComputeRates::gemmSeconds(double m, double n, double k, double count) const
{
    if (m <= 0 || n <= 0 || k <= 0 || count <= 0)
        return 0;
    // Roofline: a GEMM is bound by its FLOPs or by moving A, B and C once through HBM (Williams et al.,
    // CACM 2009). The training shapes (sweep/*.json: 1024+ rows) fit the max of the two better than the
    // quadrature sum of gemmTime (bf16 4.8% against 5.5% mean, StreamKTest).
    return count
        * (std::max(gemmComputeSeconds(m, n, k, count), gemmTrafficSeconds(m, n, k, elementBytes()))
            + fp8CastSeconds(m, k));
}

double ComputeRates::gemmTime(double computeSeconds, double trafficSeconds)
{
    // A GEMM that streams its weights at a few hundred rows or fewer sits near the roofline's ridge, where
    // its loads and math overlap only in part: the two times add in quadrature (exponent 2 chosen to match
    // data/probe/h200-2026-12-04/kernels.json: the 168 grouped GEMMs, 12.5% mean against the max's 18.7%,
    // and the same 168 run one by one through cuBLAS, 20.1% against 31.9%; GroupedGemmRateTest).
    return std::hypot(computeSeconds, trafficSeconds);
}

double ComputeRates::gemmTrafficSeconds(double m, double n, double k, double weightBytes) const
{
    // A (the activations) in the GEMM dtype, B (the weights) at weightBytes per element, C in 16 bits.
    return (elementBytes() * m * k + weightBytes * k * n + 2.0 * m * n) / m_hbmRate;
}

double ComputeRates::fp8CastSeconds(double m, double k) const
{
    // FP8 training casts the 16-bit input to fp8 before each GEMM (Transformer Engine): one
    // memory-bound pass reading 2 B and writing 1 B per input element, plus the amax reduction.
    return m_dtype == DType::Fp8 ? 3.0 * m * k / m_hbmRate : 0.0;
}

double ComputeRates::groupedComputeSeconds(double m, double n, double k, double groups) const
{
    // The same tile model as one GEMM over all groups' tiles (shapeEfficiency), with each group's last
    // 128-row tile part-filled (tile quantization, NVIDIA "Matrix Multiplication Background" guide).
    constexpr double kTileRows = 128;
    const double rowFill = m / (std::ceil(m / kTileRows) * kTileRows);
    return 2.0 * m * n * k / (m_gemmRate * shapeEfficiency(m, n, k, groups) * rowFill);
}

double ComputeRates::groupedGemmSeconds(double m, double n, double k, double groups) const
{
    if (m <= 0 || n <= 0 || k <= 0 || groups <= 0)
        return 0;
    // Small groups stream each expert's weights through HBM at about one FLOP per byte per token row,
    // near the roofline's ridge (gemmTime; the plain max of the two is 18.7% off on the 168 measured
    // grouped GEMMs and up to 2.2x fast at 64-256 tokens per expert).
    return groups
        * (gemmTime(groupedComputeSeconds(m, n, k, groups), gemmTrafficSeconds(m, n, k, elementBytes()))
            + fp8CastSeconds(m, k));
}

GemmSplit ComputeRates::servingGemm(double m, double n, double k, double weightBytes, double groups) const
{
    GemmSplit g;
    if (m <= 0 || n <= 0 || k <= 0 || groups <= 0)
        return g;
    // Serving kernels quantize the activations inside the previous fused kernel (no separate cast pass)
    // and dequantize the weights in the GEMM's main loop, so the weights cross HBM in their stored format.
    const double compute = groups > 1 ? groupedComputeSeconds(m, n, k, groups) : gemmComputeSeconds(m, n, k, 1);
    const double traffic = gemmTrafficSeconds(m, n, k, weightBytes);
    g.seconds = groups * gemmTime(compute, traffic);
    g.trafficBound = traffic >= compute;
    return g;
}

double ComputeRates::waveEfficiency(double m, double n, double count) const
{
    // Tile and wave quantization (NVIDIA "Matrix Multiplication Background" user's guide): the output
    // is cut into tiles, one per SM at a time; a last partial wave leaves SMs idle. cuBLAS picks among
    // 128x256, 256x128 and 128x128 tiles (the smaller at ~90% of the large tiles' efficiency).
    if (m_smCount <= 0)
        return 1.0;
    struct Tile {
        double rows, cols, efficiency;
    };
    constexpr Tile kTiles[] = { { 128, 256, 1.0 }, { 256, 128, 1.0 }, { 128, 128, 0.9 } };
    double best = 0;
    for (const Tile& t : kTiles) {
        const double tiles = std::ceil(m / t.rows) * std::ceil(n / t.cols) * std::max(1.0, count);
        const double waves = std::ceil(tiles / m_smCount);
        best = std::max(best, t.efficiency * tiles / (waves * m_smCount));
    }
    return best;
}

double ComputeRates::shapeEfficiency(double m, double n, double k, double count) const
{
    if (!m_streamK || m_smCount <= 0)
        return waveEfficiency(m, n, count) * k / (k + m_depthOverhead);
    // Stream-K (Osama et al., arXiv:2301.03598 sec. 4): the main-loop iterations of all output tiles are
    // divided evenly among the SMs, so no wave is left partly idle; a GEMM with fewer tiles than SMs has
    // each tile's K loop shared by about SMs / tiles SMs, each paying the stage overhead (and the partial
    // sums' fix-up), so the depth term sees k spread over that many slices.
    struct Tile {
        double rows, cols, efficiency;
    };
    constexpr Tile kTiles[] = { { 128, 256, 1.0 }, { 256, 128, 1.0 }, { 128, 128, 0.9 } };
    const double sms = m_smCount;
    double best = 0;
    for (const Tile& t : kTiles) {
        const double tiles = std::ceil(m / t.rows) * std::ceil(n / t.cols) * std::max(1.0, count);
        const double iterations = tiles * std::ceil(k / m_depthOverhead);
        const double balance = iterations / (std::ceil(iterations / sms) * sms);
        const double slices = std::max(1.0, sms / tiles);
        best = std::max(best, t.efficiency * balance * k / (k + m_depthOverhead * slices));
    }
    return best;
}

double ComputeRates::attentionSeconds(double flops) const
{
    return flops > 0 ? flops / m_attentionRate : 0;
}

double ComputeRates::causalAttentionSeconds(double flops, double keys) const
{
    return attentionSeconds(flops) / causalAttentionEfficiency(keys);
}

double ComputeRates::causalAttentionEfficiency(double keys) const
{
    if (m_attentionKeyOverhead <= 0 || keys <= 0)
        return 1.0;
    // A query tile of 128 rows visits (keys + 128) / 2 keys on average under the causal mask and pays
    // a fixed cost worth m_attentionKeyOverhead keys (the same form as the GEMM depth term; the value
    // is measured per GPU, presets/gpus attention_key_overhead).
    const double visited = 0.5 * (keys + 128.0);
    return visited / (visited + m_attentionKeyOverhead);
}

double ComputeRates::memorySeconds(double bytes) const
{
    return bytes > 0 ? bytes / m_hbmRate : 0;
}

double ComputeRates::layerKernelSeconds(double bytes) const
{
    return bytes > 0 ? bytes / m_layerKernelRate : 0;
}

double CommGroup::seconds(CollectiveKind kind, double bytes) const
{
    if (size <= 1 || bytes <= 0)
        return 0;
    return hierarchicalCollectiveSeconds(kind, inner, outer, bytes, intra, inter);
}

double pipelineSendSeconds(
    double bytes, double linkLatencySeconds, double linkBytesPerSecond, const EfficiencyDefaults& d)
{
    return linkLatencySeconds + bytes / std::min(linkBytesPerSecond, d.pipelineSendBytesPerSecond);
}

CommGroup CommGroup::firstMembers(int n) const
{
    CommGroup g = *this;
    g.size = n;
    g.inner = std::max(1, std::min(n, inner));
    g.outer = std::max(1, n / g.inner);
    return g;
}

double CommGroup::flatRingSeconds(CollectiveKind kind, double bytes) const
{
    if (size <= 1 || bytes <= 0)
        return 0;
    return ringCollectiveSeconds(kind, size, bytes, outer > 1 ? inter : intra);
}

DpCollectives dpCollectives(
    const CommGroup& dp, const CommGroup& edp, double denseParams, double expertParams, bool gradReduceInFp32)
{
    return dpCollectives(dp, edp, denseParams, expertParams, gradReduceInFp32, -1);
}

DpCollectives dpCollectives(
    const CommGroup& dp, const CommGroup& edp, double denseParams, double expertParams, bool gradReduceInFp32, int zero)
{
    const bool all = zero < 0;
    const double gradBytes = gradReduceInFp32 ? 4.0 : 2.0;
    const double denseGrad = gradBytes * denseParams;
    const double expertGrad = gradBytes * expertParams;
    const double denseWeights = kWeightBytesPerParam * denseParams;
    const double expertWeights = kWeightBytesPerParam * expertParams;
    DpCollectives c;
    if (all || zero == 0)
        c.allReduce
            = dp.seconds(CollectiveKind::AllReduce, denseGrad) + edp.seconds(CollectiveKind::AllReduce, expertGrad);
    if (all || zero == 1 || zero == 2) {
        c.reduceScatter = dp.seconds(CollectiveKind::ReduceScatter, denseGrad)
            + edp.seconds(CollectiveKind::ReduceScatter, expertGrad);
        c.allGather = dp.seconds(CollectiveKind::AllGather, denseWeights)
            + edp.seconds(CollectiveKind::AllGather, expertWeights);
    }
    if (all || zero >= 3) {
        // ZeRO-3 implementations reduce-scatter in the 16-bit training dtype (DeepSpeed
        // communication_data_type, FSDP MixedPrecision.reduce_dtype) and accumulate the shard in fp32.
        c.flatReduceScatter = dp.flatRingSeconds(CollectiveKind::ReduceScatter, denseWeights)
            + edp.flatRingSeconds(CollectiveKind::ReduceScatter, expertWeights);
        c.flatAllGather = dp.flatRingSeconds(CollectiveKind::AllGather, denseWeights)
            + edp.flatRingSeconds(CollectiveKind::AllGather, expertWeights);
    }
    return c;
}

double layerAttentionScoreFlops(const LayerShape& shape, const ActivationContext& c)
{
    // QK^T and AV over the full s x s matrix: 2 * 2 * s_q * s_k * (d_qk + d_v) / 2 per head, where the
    // causal mask lets fused kernels skip half of the blocks (arXiv:2307.08691 sec. 3.1).
    const double queries = c.seqLen / c.cp * c.microBatch;
    const double full = 2.0 * queries * c.seqLen * shape.heads / c.tp * (shape.qkHeadDim + shape.vHeadDim);
    return 0.5 * full;
}

namespace {

// The share of the layers of a kind (dense or MoE) that have a sliding window or chunk (ModelSpec::
// isSlidingWindowLayer), 0-1; `firstWindowed` (optional) receives the first of them, -1 where none has.
double windowedLayerShare(const ModelSpec& m, bool moe, int* firstWindowed)
{
    int windowed = 0, all = 0, first = -1;
    for (int l = 0; l < m.layers && m.slidingWindow > 0; ++l) {
        if (m.isMoeLayer(l) != moe)
            continue;
        ++all;
        if (m.isSlidingWindowLayer(l) && windowed++ == 0)
            first = l;
    }
    if (firstWindowed != nullptr)
        *firstWindowed = first;
    return all > 0 ? static_cast<double>(windowed) / all : 0.0;
}

} // namespace

WindowedAttention fusedAttentionByWindow(
    const ModelSpec& m, const LayerShape& shape, const ActivationContext& c, const ComputeRates& rates)
{
    // One fused kernel call (attentionKernelKeys); the windowed layers the ring all-gathers see the whole sequence.
    const double keys = attentionKernelKeys(c.seqLen, c.cpCommType, c.cp, c.cpA2aSize);
    const double full = layerAttentionScoreFlops(shape, c);
    WindowedAttention a;
    a.full = a.windowed = rates.causalAttentionSeconds(full, keys);
    int l = -1;
    a.windowedShare = windowedLayerShare(m, shape.moe, &l);
    if (l < 0)
        return a;
    // A fused kernel with a window skips the key blocks outside it (FlashAttention-2's window_size,
    // arXiv:2307.08691; Transformer Engine's window_size): a windowed layer pays its own (query, key) pairs at the
    // rate of its span (ModelSpec::attentionPairs, attentionSpan), priced once at the kind's first such layer.
    a.windowed = rates.causalAttentionSeconds(full * m.attentionPairs(l, c.seqLen) / (c.seqLen * c.seqLen / 2.0),
        std::min(c.cpCommType == CpCommType::P2p && m.windowedBelow(c.seqLen) ? c.seqLen : keys,
            m.attentionSpan(l, c.seqLen)));
    return a;
}

double fusedAttentionSeconds(
    const ModelSpec& m, const LayerShape& shape, const ActivationContext& c, const ComputeRates& rates)
{
    return fusedAttentionByWindow(m, shape, c, rates).mean();
}

UnfusedAttention unfusedAttentionSeconds(
    const ModelSpec& m, const LayerShape& shape, const ActivationContext& c, const ComputeRates& rates)
{
    // Without a fused kernel the attention core is two batched GEMMs per head in the forward (QK^T
    // and PV over the full s x s matrix, the causal half is not skipped) and four in the backward,
    // plus memory-bound passes over the 16-bit scores: scale-mask-softmax reads and writes them,
    // dropout reads them and writes output and a 1-byte mask (arXiv:2205.05198 sec. 4.1 lists these
    // tensors); the fused backward kernels read P (or the mask) and the incoming gradient and write one
    // gradient, the same traffic.
    UnfusedAttention a;
    const ComputeRates bf16 = rates.sixteenBit(); // torch.baddbmm / bmm: not fp8 under Transformer Engine
    const double batches = c.microBatch * shape.heads / static_cast<double>(c.tp);
    const double queries = c.seqLen / c.cp;
    const double keys = c.seqLen;
    const double scoreQk = bf16.gemmSeconds(queries, keys, shape.qkHeadDim, batches);
    const double scoreV = bf16.gemmSeconds(queries, shape.vHeadDim, keys, batches);
    const double elements = batches * queries * keys;
    const double dropoutPass = m.dropout ? 5.0 : 0.0;
    a.forward = scoreQk + scoreV + rates.layerKernelSeconds(elements * (4.0 + dropoutPass));
    a.backward = 2.0 * (scoreQk + scoreV) + rates.layerKernelSeconds(elements * (4.0 + dropoutPass));
    return a;
}

int cpAllToAllRanks(CpCommType type, int cp, int a2aSize)
{
    if (cp <= 1)
        return 1;
    if (type == CpCommType::A2a)
        return cp;
    if (type == CpCommType::A2aP2p && a2aSize > 1 && cp % a2aSize == 0)
        return a2aSize;
    return 1;
}

int cpAllToAllRanks(const ActivationContext& c)
{
    return cpAllToAllRanks(c.cpCommType, c.cp, c.cpA2aSize);
}

double attentionKernelKeys(double seqLen, CpCommType type, int cp, int a2aSize)
{
    // The ring: a CP rank's queries against one rank's chunk of keys per step. Ulysses: the whole sequence with
    // fewer heads, the same pairs (a2a+p2p: a2a-level-fold chunks). all_gather: each of a rank's two load-balanced
    // query chunks against the gathered keys up to its end (Transformer Engine's AttnFuncWithCPAndKVAllGather;
    // arXiv:2407.21783 sec. 3.3.2); over the pair a query tile visits s/2 keys on average, as in one causal kernel
    // over the sequence.
    if (cp <= 1 || type == CpCommType::AllGather)
        return seqLen;
    return seqLen * cpAllToAllRanks(type, cp, a2aSize) / cp;
}

CpTimes contextParallelTimes(const ModelSpec& m, const LayerShape& shape, const ActivationContext& c,
    const ComputeRates& rates, const CommGroup& group, const WindowedAttention& byWindow)
{
    CpTimes t;
    if (c.cp <= 1)
        return t;
    const double tokens = c.seqLen / c.cp * c.microBatch;
    // An exposed forward collective runs again in the backward where the attention core is recomputed (full
    // recompute, or selective with core_attn: Transformer Engine's communication sits inside the checkpointed
    // DotProductAttention); the ring's re-run hides behind the re-run attention as the first run does.
    const bool recomputed = c.recompute == Recompute::Full || (recomputedModules(c) & recompute_module::kCoreAttn) != 0;
    const int a2aRanks = cpAllToAllRanks(c);
    if (a2aRanks > 1) {
        // DeepSpeed-Ulysses (arXiv:2309.14509 sec. 3.1): before the attention an all-to-all gives each rank the whole
        // sequence of heads / cp of the query, key and value heads, after it another returns the output to its
        // sequence shard; the backward exchanges dO, then dQ, dK and dV, the same bytes. Nothing hides them
        // (Transformer Engine's AttnFuncWithCPAndQKVOA2A waits on each). 16-bit values, at the achieved all-to-all
        // bandwidth the MoE dispatcher gets (AllToAllEfficiency). Under a2a+p2p the all-to-all spans the first
        // level only, a2aRanks adjacent cp ranks (Megatron-Core hierarchical_context_parallel_sizes).
        const double tpHeads = 1.0 / c.tp;
        const double qkvBytes = 2.0 * tokens * tpHeads
            * (shape.heads * shape.qkHeadDim + shape.kvHeads * (shape.qkHeadDim + shape.vHeadDim));
        const double outBytes = 2.0 * tokens * tpHeads * shape.heads * shape.vHeadDim;
        const CommGroup level = achievedAllToAll(group.firstMembers(a2aRanks), allToAllEfficiency(rates));
        t.forward
            = level.seconds(CollectiveKind::AllToAll, qkvBytes) + level.seconds(CollectiveKind::AllToAll, outBytes);
        t.backward = t.forward * (recomputed ? 2.0 : 1.0);
    }
    const int ringRanks = c.cp / a2aRanks;
    if (ringRanks <= 1)
        return t;
    // The ring (arXiv:2310.01889 sec. 3): ringRanks - 1 steps each pass one rank's K and V to the next, overlapped
    // with the attention blocks; only what exceeds that compute is exposed. After a2a+p2p's all-to-all a rank holds
    // ringRanks-th of the sequence with a2aRanks-th of the heads: the same bytes per step. The all_gather type moves
    // them before the attention, exposed, and the backward gathers again and reduce-scatters dK, dV.
    const double kvBytes = 2.0 * tokens * shape.kvHeads / c.tp * (shape.qkHeadDim + shape.vHeadDim);
    const LinkLevel& link = group.outer > 1 ? group.inter : group.intra;
    const double comm = (ringRanks - 1) * (kvBytes / std::max(1.0, link.bytesPerSecond) + link.latencySeconds);
    // Transformer Engine's p2p ring has no windows: Megatron-Core runs the windowed layers with --cp-comm-type
    // all_gather (TransformerEngine PR #1060; Megatron-LM PR #1160). The type is per layer (TransformerConfig
    // cp_comm_type: one entry per layer), so the full-attention layers keep the ring behind their attention.
    const double gathered = c.cpCommType == CpCommType::AllGather      ? 1.0
        : c.cpCommType == CpCommType::P2p && m.windowedBelow(c.seqLen) ? byWindow.windowedShare
                                                                       : 0.0;
    const double ringWindow = byWindow.full * (ringRanks - 1) / ringRanks;
    t.forward += gathered * comm + (1.0 - gathered) * exposedAfterOverlap(comm, ringWindow);
    t.backward += gathered * (recomputed ? 3.0 : 2.0) * comm
        + (1.0 - gathered) * exposedAfterOverlap(2.0 * comm, 2.5 * ringWindow);
    return t;
}

LayerTimes layerTimes(const ModelSpec& m, const LayerShape& shape, const ActivationContext& c,
    const ComputeRates& rates, const LayerCommGroups& groups, const EfficiencyDefaults& defaults, bool epCommOverlap)
{
    LayerTimes t;
    const double tokens = c.seqLen / c.cp * c.microBatch; // rows of the GEMMs on this GPU
    const double h = static_cast<double>(m.hidden);
    const double rep = c.sp ? 1.0 / c.tp : 1.0;

    // Each linear is three GEMMs of different shapes: forward Y = X W (tokens x out, depth in), input
    // gradient dX = dY W^T (tokens x in, depth out) and weight gradient dW = X^T dY (in x out, depth
    // tokens); their tile and depth efficiencies differ.
    double gemmForward = 0, gemmBackwardInput = 0, gemmBackwardWeight = 0;
    double partForward[6] = {}; // forward GEMM seconds by LinearPart, for selective recompute
    const ComputeRates bf16 = rates.sixteenBit(); // the router's GEMMs (not a Transformer Engine module)
    for (const LinearShape& l : shape.linears) {
        const double rows = tokens;
        const double shard = l.tensorParallel ? c.tp : 1.0;
        const double k = l.rowParallel ? l.inFeatures / shard : l.inFeatures;
        const double n = l.rowParallel ? l.outFeatures : l.outFeatures / shard;
        if (l.routedExpert)
            continue; // grouped expert GEMMs: moeLayerTimes
        const ComputeRates& r = l.part == LinearPart::Router ? bf16 : rates;
        const double forward = r.gemmSeconds(rows, n, k);
        gemmForward += forward;
        partForward[static_cast<int>(l.part)] += forward;
        gemmBackwardInput += r.gemmSeconds(rows, k, n);
        gemmBackwardWeight += r.gemmSeconds(k, n, rows);
    }
    WindowedAttention byWindow; // unfused attention computes the full s x s on every layer: no window
    double attentionBackward = 0;
    if (c.flashAttention) {
        byWindow = fusedAttentionByWindow(m, shape, c, rates);
        attentionBackward = 2.5 * byWindow.mean();
    } else {
        const UnfusedAttention unfused = unfusedAttentionSeconds(m, shape, c, rates);
        byWindow.full = byWindow.windowed = unfused.forward;
        byWindow.windowedShare = windowedLayerShare(m, shape.moe, nullptr);
        attentionBackward = unfused.backward;
    }
    const double attention = byWindow.mean();
    // Element-wise traffic per token: two norms, two residual adds, rotary/bias/activation, each
    // reading and writing 16-bit tensors (memory-bound; stated estimate of ~14 h-wide passes). A parallel
    // block has one norm (2 passes) and one three-input add (4 passes instead of 2 x 3): 10.
    const double width = shape.mlpWidth + (shape.moe ? shape.expertWidth * shape.topK : 0.0);
    const bool parallelBlock = m.parallelBlock && !shape.moe;
    const double hPasses = parallelBlock ? 10.0 : 14.0;
    const double elementwiseBytes = 2.0 * tokens * (hPasses * h * rep + 4.0 * width / c.tp);
    const double elementwise = rates.layerKernelSeconds(elementwiseBytes);

    const double launches = rates.launchSeconds();
    t.forwardCompute = gemmForward + attention + elementwise + defaults.forwardKernelsPerLayer * launches;
    // Backward: dX and dW GEMMs each cost one forward GEMM; fused attention backward is ~2.5x its
    // forward (arXiv:2205.14135 sec. 3.1 counts 5 backward matmuls vs 2 forward). Element-wise backward
    // kernels (fused bias-GeLU, dropout-add, norm) move about the forward's bytes: the profiled
    // backward-for-inputs of arXiv:2401.10241 Table 6 is within 3% of the forward.
    t.backwardInputCompute
        = gemmBackwardInput + attentionBackward + elementwise + defaults.backwardKernelsPerLayer * launches;
    t.backwardWeightCompute = gemmBackwardWeight;
    namespace rm = recompute_module;
    const unsigned modules = recomputedModules(c);
    if (c.recompute == Recompute::Full)
        t.recomputeCompute = t.forwardCompute; // one extra forward (arXiv:2205.05198 sec. 5)
    if ((modules & rm::kCoreAttn) != 0) {
        // arXiv:2205.05198 sec. 5: recompute the attention core only. A fused kernel re-runs its forward
        // too (Megatron-Core checkpoints TEDotProductAttention the same way).
        t.recomputeCompute += attention;
    }
    // The other modules of training.recompute_modules re-run their forward in the backward: GEMMs of
    // their linears, and memory-bound passes reading and writing 16-bit tensors (2 + 2 bytes/element).
    if ((modules & rm::kLayernorm) != 0) {
        const double norms = (shape.mlaLatentWidth > 0 ? 1.0 : 0.0) + (shape.moe ? 1.0 : 0.0);
        t.recomputeCompute += rates.layerKernelSeconds(4.0 * norms * tokens * h * rep);
    }
    if ((modules & rm::kMlaUpProj) != 0 && shape.mlaLatentWidth > 0) {
        // q and kv up projections, the latents' norms, RoPE and the Q/K assembly.
        const double qk = (shape.heads + shape.kvHeads) * shape.qkHeadDim / c.tp;
        t.recomputeCompute += partForward[static_cast<int>(LinearPart::MlaUpProjection)]
            + rates.layerKernelSeconds(4.0 * tokens * (shape.mlaLatentWidth + qk));
    }
    // An MLP's activation pass: SwiGLU reads gate and up and writes one tensor (GELU one and one).
    const double actElements = m.activation == Activation::SwiGlu ? 3.0 : 2.0;
    if ((modules & rm::kMlp) != 0 && !shape.moe && shape.mlpWidth > 0) {
        t.recomputeCompute += partForward[static_cast<int>(LinearPart::DenseMlp)]
            + rates.layerKernelSeconds(2.0 * actElements * tokens * shape.mlpWidth / c.tp);
    }
    if (shape.moe && (modules & rm::kSharedExperts) != 0 && (modules & rm::kMoe) == 0 && shape.mlpWidth > 0) {
        t.recomputeCompute += partForward[static_cast<int>(LinearPart::SharedExpert)]
            + rates.layerKernelSeconds(2.0 * actElements * tokens * shape.mlpWidth / c.tp);
    }

    // TP with or without SP: per layer 2 all-reduces (or all-gather + reduce-scatter of the same
    // volume) in the forward and 2 in the backward of s b h 16-bit values (arXiv:2205.05198 sec. 4.2.2).
    const double tpBytes = 2.0 * tokens * h;
    const double tpCollective = c.sp ? groups.tp.seconds(CollectiveKind::AllGather, tpBytes)
            + groups.tp.seconds(CollectiveKind::ReduceScatter, tpBytes)
                                     : groups.tp.seconds(CollectiveKind::AllReduce, tpBytes);
    // With --tp-comm-overlap each collective is split into chunks and pipelined with the GEMM that
    // consumes or produces it (Transformer Engine userbuffers; arXiv:2406.13258 sec. 3.1 style
    // collective matmul), so only what exceeds the layer's GEMM time stays exposed.
    // The blocks whose input is gathered and output scattered over TP: attention and the MLP. Under SP (which
    // Megatron-Core requires for MoE with TP) a MoE layer's routed experts take their tokens through the token
    // dispatcher instead (moeLayerTimes: the all-to-all and, with expert tensor parallelism, the gather over
    // the ETP group); only its shared experts are a dense MLP on the sequence-parallel tokens.
    // A parallel block gathers its one normed input once and reduces the summed attention and MLP outputs
    // once (arXiv:2204.02311 sec. 2).
    const double tpBlocks = shape.moe && c.sp ? 1.0 + (shape.mlpWidth > 0 ? 1.0 : 0.0) : parallelBlock ? 1.0 : 2.0;
    t.tpForward = c.tpCommOverlap ? exposedAfterOverlap(tpBlocks * tpCollective, gemmForward) : tpBlocks * tpCollective;
    t.tpBackward = t.tpForward;
    if (c.recompute == Recompute::Full)
        t.tpBackward += t.tpForward;
    else if ((modules & rm::kMlp) != 0 && !shape.moe && shape.mlpWidth > 0)
        t.tpBackward += 0.5 * t.tpForward; // the MLP's all-gather and reduce-scatter, re-run
    else if ((modules & rm::kMoe) != 0 && shape.moe)
        t.tpBackward += (tpBlocks - 1.0) / tpBlocks * t.tpForward; // the MoE block's shared experts, re-run

    if (c.cp > 1) {
        const CpTimes cp = contextParallelTimes(m, shape, c, rates, groups.cp, byWindow);
        t.cpForward = cp.forward;
        t.cpBackward = cp.backward;
    }

    // MoE layers: router kernels, token permutation, grouped expert GEMMs and the dispatch/combine
    // all-to-alls (core/costs/MoeCosts).
    if (shape.moe) {
        // The expert-tensor-parallel group: the first c.etp ranks of the TP axis (Megatron-Core's expert rank
        // order etp-ep-dp-pp puts it innermost, as TP is), so it has the TP group's links.
        const CommGroup etp = c.etp != c.tp ? groups.tp.firstMembers(c.etp) : groups.tp;
        const MoeLayerTimes moe
            = moeLayerTimes(shape, c, rates, groups.ep, h, epCommOverlap, allToAllEfficiency(rates), etp);
        t.forwardCompute += moe.forwardCompute();
        t.backwardInputCompute += moe.backwardInputCompute();
        t.backwardWeightCompute += moe.expertBackwardWeight;
        const bool wholeMoe = c.recompute == Recompute::Full || (modules & rm::kMoe) != 0;
        if (wholeMoe)
            t.recomputeCompute += moe.forwardCompute();
        if ((modules & rm::kMoe) != 0) // router and shared experts re-run with the layer
            t.recomputeCompute += partForward[static_cast<int>(LinearPart::Router)]
                + partForward[static_cast<int>(LinearPart::SharedExpert)];
        else if ((modules & rm::kMoeAct) != 0) // the expert activation over the routed copies
            t.recomputeCompute += rates.layerKernelSeconds(
                2.0 * actElements * routedTokensPerGpu(shape, c) * shape.expertWidth / c.etp);
        t.epForward = moe.allToAllForward;
        t.epBackward = moe.allToAllBackward;
        if (wholeMoe)
            t.epBackward += moe.allToAllForward;
        // DeepEP's kernels hold their SMs while the layer's compute runs next to them (overlapped dispatch):
        // the compute that shares the GPU with the dispatch and combine goes at the remaining SMs' rate.
        if (c.epCommConcurrent && c.dispatcher == MoeDispatcher::DeepEp) {
            t.forwardCompute += dispatchSmSeconds(t.forwardCompute, moe.dispatchForward, c.dispatchSmShare);
            t.backwardInputCompute += dispatchSmSeconds(
                t.backwardInputCompute + t.backwardWeightCompute, moe.dispatchBackward, c.dispatchSmShare);
        }
    }
    return t;
}

HeadTimes lmHeadTimes(const ModelSpec& m, const ActivationContext& c, const ComputeRates& rates, const CommGroup& tp)
{
    HeadTimes t;
    const double tokens = c.seqLen / c.cp * c.microBatch;
    const double h = static_cast<double>(m.hidden);
    const double v = static_cast<double>(m.vocab) / c.tp; // vocabulary-parallel logits (arXiv:1909.08053 sec. 3)
    // The output layer is not a Transformer Engine module: its GEMMs run in bf16 under FP8 training too.
    const ComputeRates bf16 = rates.sixteenBit();
    const double gemm = bf16.gemmSeconds(tokens, v, h);
    const double gemmInput = bf16.gemmSeconds(tokens, h, v);
    const double gemmWeight = bf16.gemmSeconds(h, v, tokens);
    // Softmax cross-entropy over fp32 logits: read/write 4-byte values, plus a tiny all-reduce of the
    // per-token max and sum over tp.
    const double loss
        = rates.memorySeconds(3.0 * 4.0 * tokens * v) + tp.seconds(CollectiveKind::AllReduce, 8.0 * tokens);
    t.forward = gemm + loss;
    t.backwardInput = gemmInput + loss;
    t.backwardWeight = gemmWeight;
    return t;
}

HeadTimes mtpProjectionTimes(const ModelSpec& m, const ActivationContext& c, const ComputeRates& rates)
{
    HeadTimes t;
    if (m.mtpLayers <= 0)
        return t;
    const double tokens = c.seqLen / c.cp * c.microBatch;
    const double h = static_cast<double>(m.hidden);
    const double rep = c.sp ? 1.0 / c.tp : 1.0;
    // M_k [RMSNorm(h); RMSNorm(Emb(t_{i+k}))]: a column-parallel linear of 2h inputs and h outputs.
    const double out = h / c.tp;
    // Two norms, the concatenation and the output norm: four passes reading and writing 16-bit rows.
    const double passes = rates.layerKernelSeconds(4.0 * 4.0 * tokens * h * rep);
    t.forward = rates.gemmSeconds(tokens, out, 2.0 * h) + passes;
    t.backwardInput = rates.gemmSeconds(tokens, 2.0 * h, out) + passes;
    t.backwardWeight = rates.gemmSeconds(2.0 * h, out, tokens);
    return t;
}

} // namespace parallax::core
