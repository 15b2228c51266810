// SPDX-License-Identifier: Apache-2.0
#include "core/inference/ServingTime.h"

#include "core/inference/KvCache.h"
#include "core/inference/SpeculativeDecoding.h"
#include "core/inference/WeightBytes.h"
#include "core/model/LayerShape.h"
#include "core/model/ModelMath.h"
#include "core/parallel/StageLayout.h"

#include <algorithm>
#include <cmath>
#include <optional>

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

// One layer's kernels, run one after another: each GEMM bound by its math or by streaming its weights
// (ComputeRates::servingGemm), the attention kernel by its FLOPs or by reading the KV cache.
struct LayerCost {
    double weightsSeconds = 0; // GEMMs bound by their weights' HBM stream
    double kvSeconds = 0; // the attention kernel, bound by its KV reads
    double computeSeconds = 0; // GEMMs and attention bound by their FLOPs
    double tpSeconds = 0, epSeconds = 0;
    double kernelsSeconds() const { return weightsSeconds + kvSeconds + computeSeconds; }
    void addGemm(const GemmSplit& g) { (g.trafficBound ? weightsSeconds : computeSeconds) += g.seconds; }
};

// The routed experts of one MoE layer for `groupTokens` tokens entering its EP group: a grouped GEMM per
// expert linear over the local experts the step touches, each with its share of the routed tokens.
void addRoutedExperts(const ServingTimeInputs& in, const LayerShape& s, double groupTokens, bool decode, LayerCost& c)
{
    const ServingLayout& L = in.layout;
    const double k = s.topK, e = s.experts;
    // Experts a step touches under uniform routing: 1 - (1 - k/E)^T of them (expected distinct bins of
    // T draws of k; DeepSeek-V3's balanced routing, arXiv:2412.19437 sec. 2.1.2).
    const double touched = decode ? 1.0 - std::pow(1.0 - k / e, groupTokens) : 1.0;
    // ep ranks each hold E / ep experts, tensor-split expertShards / ep ways (ServingLayout).
    const double localExperts = e / L.ep;
    const double widthShard = static_cast<double>(L.expertShards()) / L.ep;
    const double groups = std::max(1.0, localExperts * touched);
    const double tokensPerExpert = groupTokens * k / (e * touched);
    for (const LinearShape& lin : s.linears) {
        if (!lin.routedExpert)
            continue;
        const double kDim = lin.rowParallel ? lin.inFeatures / widthShard : lin.inFeatures;
        const double nDim = lin.rowParallel ? lin.outFeatures : lin.outFeatures / widthShard;
        const double bpp = weightBytesPerParameter(in.config.weightFormat, lin.inFeatures);
        c.addGemm(in.rates.servingGemm(tokensPerExpert, nDim, kDim, bpp, groups));
    }
}

// One layer of shape `s` (layer `layer`'s, or a drafter's like it) for `tokens` new tokens per replica;
// `kvBytes` of cache read; the attention kernel's math takes `attentionSeconds` on one GPU.
LayerCost layerCost(const ServingTimeInputs& in, int layer, const LayerShape& s, double tokens, double kvBytes,
    double attentionSeconds, bool decode)
{
    const ModelSpec& m = in.model;
    const ServingLayout& L = in.layout;
    LayerCost c;
    for (const LinearShape& lin : s.linears) {
        if (lin.routedExpert)
            continue;
        const double shard = lin.tensorParallel ? L.tp : 1.0;
        const double kDim = lin.rowParallel ? lin.inFeatures / shard : lin.inFeatures;
        const double nDim = lin.rowParallel ? lin.outFeatures : lin.outFeatures / shard;
        // Routers stay in bf16 in quantized checkpoints (WeightBytes.h).
        const double bpp
            = lin.part == LinearPart::Router ? 2.0 : weightBytesPerParameter(in.config.weightFormat, lin.inFeatures);
        c.addGemm(in.rates.servingGemm(tokens, nDim, kDim, bpp));
    }
    const bool moe = m.isMoeLayer(layer);
    if (moe)
        addRoutedExperts(in, s, tokensInExpertGroup(L, tokens), decode, c);
    const double kvRead = in.rates.memorySeconds(kvBytes);
    (kvRead >= attentionSeconds ? c.kvSeconds : c.computeSeconds) += std::max(kvRead, attentionSeconds);
    // Megatron-style TP: one all-reduce after attention and one after the MLP (arXiv:1909.08053 sec. 3);
    // an EP MoE layer replaces the second by the dispatch and combine all-to-alls, a parallel block reduces
    // the summed outputs once (arXiv:2204.02311 sec. 2).
    const double activationBytes = 2.0 * tokens * m.hidden;
    const bool epMoe = moe && L.ep > 1;
    const bool oneReduction = epMoe || (m.parallelBlock && !moe);
    if (L.tp > 1)
        c.tpSeconds = (oneReduction ? 1 : 2) * in.tp.seconds(CollectiveKind::AllReduce, activationBytes);
    if (epMoe) {
        const double perRank = tokensInExpertGroup(L, tokens) / L.ep * m.moe->topK * 2.0 * m.hidden;
        c.epSeconds = 2.0 * in.ep.seconds(CollectiveKind::AllToAll, perRank);
    }
    return c;
}

// A layer's cost depends on the layer only through its kind (MoE or dense, windowed or full attention):
// each kind is priced once per step and reused for the layers of that kind.
class LayerKinds {
public:
    template <class Price> const LayerCost& of(const ModelSpec& m, int layer, Price&& price)
    {
        const int kind = m.layerKind(layer);
        if (!m_cost[kind])
            m_cost[kind] = price();
        return *m_cost[kind];
    }

private:
    std::optional<LayerCost> m_cost[ModelSpec::kLayerKinds];
};

// The LM head (bf16 in quantized checkpoints, WeightBytes.h) over `tokens` rows.
GemmSplit headGemm(const ServingTimeInputs& in, double tokens)
{
    const ModelSpec& m = in.model;
    const double vocab = lmHeadParameters(m) > 0 ? lmHeadParameters(m) / m.hidden : embeddingParameters(m) / m.hidden;
    return in.rates.servingGemm(tokens, vocab / in.layout.tp, static_cast<double>(m.hidden), 2.0);
}

double hopSeconds(const ServingTimeInputs& in, double tokens)
{
    return pipelineSendSeconds(
        2.0 * tokens * in.model.hidden, in.ppHopLatencySeconds, in.ppHopBytesPerSecond, in.defaults);
}

// A bf16 drafter served beside the model (a separate draft model, or an EAGLE-3 head on the model's shapes):
// its weights split over the model's tp GPUs and its collectives on the model's TP group (vLLM's default
// draft_tensor_parallel_size is the model's tp), one pipeline stage (the last one's GPUs), no expert
// parallelism and no drafts of its own.
struct DrafterInputs {
    InferenceConfig config;
    ServingTimeInputs in;
    DrafterInputs(const ServingTimeInputs& target, const ModelSpec& draft)
        : config(target.config)
        , in { draft, config, ServingLayout { target.layout.tp, 1, 1, 1 },
            target.draftRates ? *target.draftRates : target.rates, target.tp, target.ep, 0, 0, target.maxBatchedTokens,
            target.defaults }
    {
        config.weightFormat = kDraftModelWeightFormat;
        config.speculativeTokens = 0;
        config.speculativeMethod = InferenceConfig {}.speculativeMethod;
        config.draftModel.clear();
    }
    DrafterInputs(const DrafterInputs&) = delete;
    DrafterInputs& operator=(const DrafterInputs&) = delete;
};

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
    const double batch = std::max(1.0, requests / L.pp); // one micro-batch of the pipeline
    const AttentionWidth w = decodeAttentionWidth(m);
    const double headsLocal = static_cast<double>(m.heads) / L.tp;
    // With speculative decoding one forward scores the k drafts and the token after them: k + 1 rows per
    // request through every GEMM, attention query and collective, over the same KV cache.
    const int drafts = draftTokensPerStep(m, in.config);
    const double queries = drafts + 1.0;
    // Layer l (or a drafter's layer of shape `shape` beside it) for `rows` rows, over the micro-batch's KV cache.
    const auto attentionOf = [&](int l, double rows, const LayerShape& shape, const ServingTimeInputs& inputs) {
        const double kv = batch * kvBytesPerRequest(m, in.config.kvDtype, L.tp, l, l + 1, averageContext);
        const double attention = 2.0 * rows * m.attendedKeys(l, averageContext) * headsLocal * (w.qk + w.v);
        return layerCost(inputs, l, shape, rows, kv, inputs.rates.attentionSeconds(attention), true);
    };
    DecodeBreakdown d;
    LayerKinds kinds;
    for (int l = 0; l < m.layers; ++l) {
        const LayerCost& c = kinds.of(m, l, [&] { return attentionOf(l, batch * queries, layerShape(m, l), in); });
        d.weightsSeconds += c.weightsSeconds;
        d.kvSeconds += c.kvSeconds;
        d.computeSeconds += c.computeSeconds;
        d.tpSeconds += c.tpSeconds;
        d.epSeconds += c.epSeconds;
    }
    const GemmSplit head = headGemm(in, batch * queries);
    (head.trafficBound ? d.weightsSeconds : d.computeSeconds) += head.seconds;
    if (L.pp > 1)
        d.ppSeconds = L.pp * hopSeconds(in, batch * queries); // the sampled tokens return to the first stage
    if (const ModelSpec* draft = drafts > 0 ? draftModelOf(in.config) : nullptr) {
        // Each draft is one decode step of the draft model for the micro-batch's requests, one token each, over
        // its own KV cache of the same context (arXiv:2211.17192 sec. 3: the drafter runs autoregressively).
        const DrafterInputs dm(in, *draft);
        d.draftSeconds = drafts * decodeStep(dm.in, batch, averageContext).stepSeconds;
    } else if (drafts > 0 && in.config.speculativeMethod == SpeculativeMethod::Eagle3) {
        // EAGLE-3 (arXiv:2503.01840 sec. 3): once per step the fc fuses each request's three hidden states of the
        // model (3h -> h, replicated); each draft then runs the head's layer (QKV over 2h, its own KV layer) over
        // one token per request and its LM head over the draft vocabulary, all in bf16.
        const DrafterInputs head(in, m);
        const LayerCost layer = attentionOf(m.layers - 1, batch, eagle3LayerShape(m), head.in);
        const double h = static_cast<double>(m.hidden);
        const double fc = head.in.rates.servingGemm(batch, h, 3.0 * h, 2.0).seconds;
        const double logits = head.in.rates.servingGemm(batch, kEagle3DraftVocab / L.tp, h, 2.0).seconds;
        d.draftSeconds = fc + drafts * (layer.kernelsSeconds() + layer.tpSeconds + logits);
    } else if (drafts > 0) {
        // Each draft is one pass of an MTP depth over one token per request: its bf16 2h -> h projection
        // (replicated), its block (a layer like the last one, with its own KV cache) and the shared head
        // (arXiv:2412.19437 sec. 2.2; vLLM runs the depths in turn, reusing them past mtp_layers).
        const LayerCost block = attentionOf(m.layers - 1, batch, layerShape(m, m.layers - 1), in);
        const double h = static_cast<double>(m.hidden);
        const double pass = in.rates.servingGemm(batch, h, 2.0 * h, 2.0).seconds + block.kernelsSeconds()
            + block.tpSeconds + block.epSeconds + headGemm(in, batch).seconds;
        d.draftSeconds = drafts * pass;
    }
    d.tokensPerStep = acceptedTokensPerStep(drafts, in.config.draftAcceptance);
    d.stepSeconds
        = d.weightsSeconds + d.kvSeconds + d.computeSeconds + d.tpSeconds + d.epSeconds + d.ppSeconds + d.draftSeconds;
    return d;
}

PrefillTime prefill(const ServingTimeInputs& in, double tokens, double prompts)
{
    const ModelSpec& m = in.model;
    const ServingLayout& L = in.layout;
    const double headsLocal = static_cast<double>(m.heads) / L.tp;
    const double qk = queryKeyHeadDim(m), v = valueHeadDim(m);
    PrefillTime t;
    // Layer l (or a drafter's layer of shape `shape` beside it) over the prompts, writing their KV cache.
    const auto prefilled = [&](int l, const LayerShape& shape, const ServingTimeInputs& inputs) {
        // Causal attention: QK^T and AV over the lower triangle (or the window, or each chunk's triangle), 2 FLOPs
        // per multiply-add (arXiv:2205.14135 sec. 3 counts 4 s^2 d per head forward without the causal half).
        const double attention = 2.0 * m.attentionPairs(l, tokens) * headsLocal * (qk + v);
        const double kvWrite = prompts * kvBytesPerRequest(m, in.config.kvDtype, L.tp, l, l + 1, tokens);
        // Each prompt's fused causal kernel over its own keys, with the per-tile cost the probe measured
        // (ComputeRates::causalAttentionSeconds at the layer's span, as training prices it).
        const double attentionSeconds
            = prompts * inputs.rates.causalAttentionSeconds(attention, m.attentionSpan(l, tokens));
        return layerCost(inputs, l, shape, prompts * tokens, kvWrite, attentionSeconds, false);
    };
    LayerKinds kinds;
    const auto priced
        = [&](int l) -> const LayerCost& { return kinds.of(m, l, [&] { return prefilled(l, layerShape(m, l), in); }); };
    for (int l = 0; l < m.layers; ++l) {
        const LayerCost& c = priced(l);
        t.computeSeconds += c.kernelsSeconds();
        t.commSeconds += c.tpSeconds + c.epSeconds;
    }
    t.computeSeconds += headGemm(in, prompts).seconds; // logits of each prompt's last token only
    if (const ModelSpec* draft = draftTokensPerStep(m, in.config) > 0 ? draftModelOf(in.config) : nullptr) {
        // The draft model prefills the prompt too (its own KV cache), before it drafts the first tokens.
        const DrafterInputs dm(in, *draft);
        const PrefillTime own = prefill(dm.in, tokens, prompts);
        t.computeSeconds += own.computeSeconds;
        t.commSeconds += own.commSeconds;
    } else if (draftTokensPerStep(m, in.config) > 0 && in.config.speculativeMethod == SpeculativeMethod::Eagle3) {
        // The EAGLE-3 head over the prompt, in the step that emits the first token: the fc over every prompt
        // token's fused feature, its layer (filling its KV layer) and its head for the first draft.
        const DrafterInputs head(in, m);
        const LayerCost layer = prefilled(m.layers - 1, eagle3LayerShape(m), head.in);
        const double h = static_cast<double>(m.hidden);
        t.computeSeconds += head.in.rates.servingGemm(prompts * tokens, h, 3.0 * h, 2.0).seconds
            + layer.kernelsSeconds() + head.in.rates.servingGemm(prompts, kEagle3DraftVocab / L.tp, h, 2.0).seconds;
        t.commSeconds += layer.tpSeconds;
    } else if (draftTokensPerStep(m, in.config) > 0) {
        // The drafter's own pass over the prompt, in the step that emits the first token: its 2h -> h projection
        // of every prompt token's hidden state, its block (filling its KV layer) and the head for the first draft
        // (vLLM's MTP proposer runs on the target's prefill hidden states; arXiv:2412.19437 sec. 2.2).
        const LayerCost& block = priced(m.layers - 1);
        const double h = static_cast<double>(m.hidden);
        t.computeSeconds += in.rates.servingGemm(prompts * tokens, h, 2.0 * h, 2.0).seconds + block.kernelsSeconds()
            + headGemm(in, prompts).seconds;
        t.commSeconds += block.tpSeconds + block.epSeconds;
    }
    if (L.pp > 1)
        t.commSeconds += (L.pp - 1) * hopSeconds(in, prompts * tokens);
    return t;
}

ConcurrencyPoint servingThroughput(const ServingTimeInputs& in, int concurrency, double* decodeOnlyPerGpu)
{
    const ServingLayout& L = in.layout;
    const double perReplica = std::max(1.0, static_cast<double>(concurrency) / L.dp);
    const double isl = in.config.isl, osl = in.config.osl;
    const DecodeBreakdown d = decodeStep(in, perReplica, isl + osl / 2.0);
    // Continuous batching prefills the waiting prompts together, up to max_num_batched_tokens per
    // forward, so the weights cross HBM once per forward, not once per prompt.
    const double prompts = std::clamp(in.maxBatchedTokens / isl, 1.0, perReplica);
    const double prefillSeconds = prefill(in, isl, prompts).totalSeconds() / prompts;
    const double gpusPerReplica = static_cast<double>(L.tp) * L.pp;
    // A request's osl tokens take osl / tokensPerStep decode steps (1 without speculative decoding).
    const double round = perReplica * prefillSeconds + osl * d.tpotSeconds();
    ConcurrencyPoint point;
    point.concurrency = concurrency;
    point.tpotSeconds = d.tpotSeconds();
    point.tokensPerSecondPerGpu = round > 0 ? perReplica * osl / round / gpusPerReplica : 0;
    if (decodeOnlyPerGpu)
        *decodeOnlyPerGpu = d.tpotSeconds() > 0 ? perReplica / d.tpotSeconds() / gpusPerReplica : 0;
    return point;
}

} // namespace parallax::core
