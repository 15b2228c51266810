// SPDX-License-Identifier: Apache-2.0
#include "core/inference/ServingTime.h"

#include "core/inference/KvCache.h"
#include "core/inference/WeightBytes.h"
#include "core/model/ModelMath.h"
#include "core/parallel/StageLayout.h"

#include <algorithm>
#include <cmath>

namespace parallax::core {

namespace {

// Attention widths of the serving kernels: MLA decodes in the absorbed form, attending over the
// latent (d_c + d_h^R for QK, d_c for AV; arXiv:2405.04434 sec. 2.1.3 / appendix C weight absorption).
struct AttentionWidth {
    double qk = 0, v = 0;
};
AttentionWidth decodeAttentionWidth(const ModelSpec& m)
{
    if (m.mla)
        return { static_cast<double>(m.mla->kvLoraRank + m.mla->qkRopeHeadDim),
            static_cast<double>(m.mla->kvLoraRank) };
    return { static_cast<double>(queryKeyHeadDim(m)), static_cast<double>(valueHeadDim(m)) };
}

// Tokens one step sends into a MoE layer's EP group: every attention replica in it contributes.
double tokensInExpertGroup(const ServingLayout& L, double tokensPerReplica)
{
    return tokensPerReplica * std::max(1.0, static_cast<double>(L.ep) / L.tp);
}

struct LayerCost {
    double weightsSeconds = 0, kvSeconds = 0, computeSeconds = 0, tpSeconds = 0, epSeconds = 0;
    double roofline() const { return std::max(weightsSeconds + kvSeconds, computeSeconds); }
};

// One layer for `tokens` new tokens per replica; `kvBytes` of cache read; `attentionFlops` per GPU.
LayerCost layerCost(const ServingTimeInputs& in, int layer, double tokens, double kvBytes, double attentionFlops,
    double gemmRate, bool decode)
{
    const ModelSpec& m = in.model;
    const ServingLayout& L = in.layout;
    const LayerParameters p = layerParameters(m, layer);
    const double bpp = weightBytesPerParameter(in.config.weightFormat, static_cast<double>(m.hidden));
    const double denseLocal = (p.attention + p.denseMlp + p.sharedExperts) / L.tp;
    double weightBytes = bpp * denseLocal + 2.0 * (p.router + p.norms);
    double flops = 2.0 * tokens * (denseLocal + p.router); // 2 FLOPs per multiply-add
    const bool moe = m.isMoeLayer(layer);
    if (moe) {
        const double groupTokens = tokensInExpertGroup(L, tokens);
        // Experts a step touches under uniform routing: 1 - (1 - k/E)^T of them (expected distinct
        // bins of T draws of k; DeepSeek-V3's balanced routing, arXiv:2412.19437 sec. 2.1.2).
        const double k = m.moe->topK, e = m.moe->experts;
        const double touched = decode ? 1.0 - std::pow(1.0 - k / e, groupTokens) : 1.0;
        weightBytes += bpp * p.routedExperts / L.expertShards() * touched;
        flops += 2.0 * groupTokens * k * p.oneExpert / L.expertShards();
    }
    LayerCost c;
    c.weightsSeconds = in.rates.memorySeconds(weightBytes);
    c.kvSeconds = in.rates.memorySeconds(kvBytes);
    c.computeSeconds = flops / gemmRate + in.rates.attentionSeconds(attentionFlops);
    // Megatron-style TP: one all-reduce after attention and one after the MLP (arXiv:1909.08053 sec. 3);
    // an EP MoE layer replaces the second by the dispatch and combine all-to-alls.
    const double activationBytes = 2.0 * tokens * m.hidden;
    const bool epMoe = moe && L.ep > 1;
    if (L.tp > 1)
        c.tpSeconds = (epMoe ? 1 : 2) * in.tp.seconds(CollectiveKind::AllReduce, activationBytes);
    if (epMoe) {
        const double perRank = tokensInExpertGroup(L, tokens) / L.ep * m.moe->topK * 2.0 * m.hidden;
        c.epSeconds = 2.0 * in.ep.seconds(CollectiveKind::AllToAll, perRank);
    }
    return c;
}

double headSeconds(const ServingTimeInputs& in, double tokens, double gemmRate)
{
    const double local = lmHeadParameters(in.model) > 0 ? lmHeadParameters(in.model) : embeddingParameters(in.model);
    const double params = local / in.layout.tp;
    return std::max(in.rates.memorySeconds(2.0 * params), 2.0 * tokens * params / gemmRate);
}

double hopSeconds(const ServingTimeInputs& in, double tokens)
{
    return pipelineSendSeconds(
        2.0 * tokens * in.model.hidden, in.ppHopLatencySeconds, in.ppHopBytesPerSecond, in.defaults);
}

} // namespace

DType servingComputeDType(WeightFormat f)
{
    return f == WeightFormat::Bf16 || f == WeightFormat::Int4 ? DType::Bf16 : DType::Fp8;
}

double sustainedGemmFlopsPerSecond(const ComputeRates& rates)
{
    constexpr double n = 8192;
    return 2.0 * n * n * n / rates.gemmSeconds(n, n, n);
}

DecodeBreakdown decodeStep(const ServingTimeInputs& in, double requests, double averageContext)
{
    const ModelSpec& m = in.model;
    const ServingLayout& L = in.layout;
    const double gemmRate = sustainedGemmFlopsPerSecond(in.rates);
    const double batch = std::max(1.0, requests / L.pp); // one micro-batch of the pipeline
    const AttentionWidth w = decodeAttentionWidth(m);
    const double headsLocal = static_cast<double>(m.heads) / L.tp;
    DecodeBreakdown d;
    for (int l = 0; l < m.layers; ++l) {
        const double kv = batch * kvBytesPerRequest(m, in.config.kvDtype, L.tp, l, l + 1, averageContext);
        const double ctx = m.isSlidingWindowLayer(l) ? std::min(averageContext, static_cast<double>(m.slidingWindow))
                                                     : averageContext;
        const double attention = 2.0 * batch * ctx * headsLocal * (w.qk + w.v);
        const LayerCost c = layerCost(in, l, batch, kv, attention, gemmRate, true);
        const double roof = c.roofline();
        // Split the roofline time between its parts for the breakdown (the bound side takes it all).
        if (c.computeSeconds >= c.weightsSeconds + c.kvSeconds) {
            d.computeSeconds += roof;
        } else {
            d.weightsSeconds += c.weightsSeconds;
            d.kvSeconds += c.kvSeconds;
        }
        d.tpSeconds += c.tpSeconds;
        d.epSeconds += c.epSeconds;
    }
    const double head = headSeconds(in, batch, gemmRate);
    d.weightsSeconds += head;
    if (L.pp > 1)
        d.ppSeconds = L.pp * hopSeconds(in, batch); // the sampled token returns to the first stage
    d.stepSeconds = d.weightsSeconds + d.kvSeconds + d.computeSeconds + d.tpSeconds + d.epSeconds + d.ppSeconds;
    return d;
}

PrefillTime prefill(const ServingTimeInputs& in, double tokens)
{
    const ModelSpec& m = in.model;
    const ServingLayout& L = in.layout;
    const double gemmRate = sustainedGemmFlopsPerSecond(in.rates);
    const double headsLocal = static_cast<double>(m.heads) / L.tp;
    const double qk = queryKeyHeadDim(m), v = valueHeadDim(m);
    PrefillTime t;
    for (int l = 0; l < m.layers; ++l) {
        const double span = m.isSlidingWindowLayer(l) ? std::min(tokens, static_cast<double>(m.slidingWindow)) : tokens;
        // Causal attention: QK^T and AV over the lower triangle, 2 FLOPs per multiply-add
        // (arXiv:2205.14135 sec. 3 counts 4 s^2 d per head forward without the causal half).
        const double attention = 2.0 * tokens * span / (span < tokens ? 1.0 : 2.0) * headsLocal * (qk + v);
        const double kvWrite = kvBytesPerRequest(m, in.config.kvDtype, L.tp, l, l + 1, tokens);
        const LayerCost c = layerCost(in, l, tokens, kvWrite, attention, gemmRate, false);
        t.computeSeconds += c.roofline();
        t.commSeconds += c.tpSeconds + c.epSeconds;
    }
    t.computeSeconds += headSeconds(in, 1, gemmRate); // logits of the last prompt token only
    if (L.pp > 1)
        t.commSeconds += (L.pp - 1) * hopSeconds(in, tokens);
    return t;
}

ConcurrencyPoint servingThroughput(const ServingTimeInputs& in, int concurrency, double* decodeOnlyPerGpu)
{
    const ServingLayout& L = in.layout;
    const double perReplica = std::max(1.0, static_cast<double>(concurrency) / L.dp);
    const double isl = in.config.isl, osl = in.config.osl;
    const DecodeBreakdown d = decodeStep(in, perReplica, isl + osl / 2.0);
    const double prefillSeconds = prefill(in, isl).totalSeconds();
    const double gpusPerReplica = static_cast<double>(L.tp) * L.pp;
    const double round = perReplica * prefillSeconds + osl * d.stepSeconds;
    ConcurrencyPoint point;
    point.concurrency = concurrency;
    point.tpotSeconds = d.stepSeconds;
    point.tokensPerSecondPerGpu = round > 0 ? perReplica * osl / round / gpusPerReplica : 0;
    if (decodeOnlyPerGpu)
        *decodeOnlyPerGpu = d.stepSeconds > 0 ? perReplica / d.stepSeconds / gpusPerReplica : 0;
    return point;
}

} // namespace parallax::core
