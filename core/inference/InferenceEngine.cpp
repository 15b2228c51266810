// SPDX-License-Identifier: Apache-2.0
#include "core/inference/InferenceEngine.h"

#include "core/Units.h"
#include "core/Validation.h"
#include "core/cluster/CommGroups.h"
#include "core/inference/InferenceMarkdown.h"
#include "core/inference/KvCache.h"
#include "core/inference/ServingBands.h"
#include "core/inference/ServingMemory.h"
#include "core/inference/ServingTime.h"
#include "core/inference/SpeculativeDecoding.h"
#include "core/inference/WeightBytes.h"
#include "core/model/ModelMath.h"
#include "core/search/NumberText.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace parallax::core {

const char* toString(ServingVerdict v)
{
    switch (v) {
    case ServingVerdict::Fits:
        return "fits";
    case ServingVerdict::Tight:
        return "tight";
    case ServingVerdict::DoesNotFit:
        return "does not fit";
    }
    return "does not fit";
}

namespace {

std::string str(long long v)
{
    return std::to_string(v);
}

std::string tokensText(double tokens)
{
    if (tokens >= 1024 && std::fmod(tokens, 1024) == 0)
        return str(static_cast<long long>(tokens / 1024)) + "K";
    return str(static_cast<long long>(tokens));
}

double smallestHbm(const Topology& t)
{
    double hbm = t.domains.front().gpu.hbmBytes;
    for (const auto& d : t.domains)
        hbm = std::min(hbm, d.gpu.hbmBytes);
    return hbm;
}

struct CapacityResult {
    ServingMemory memory;
    double perRequestBytes = 0;
    double perTokenBytesPerGpu = 0;
    int maxConcurrency = 0;
    double capacityTokensPerReplica = 0;
};

CapacityResult capacity(const Scenario& s, const InferenceConfig& config)
{
    CapacityResult c;
    const ServingMemoryInputs in { s.model, config, ServingLayout::of(s.parallel), smallestHbm(s.topology) };
    c.memory = servingMemory(in, c.perRequestBytes, c.perTokenBytesPerGpu);
    if (c.memory.kvCacheBytes > 0 && c.perRequestBytes > 0) {
        const double requests = c.memory.kvCacheBytes / c.perRequestBytes;
        c.maxConcurrency = static_cast<int>(std::min(1e9, std::floor(requests) * s.parallel.dp));
        c.capacityTokensPerReplica = std::floor(requests * config.effectiveContextLen()); // whole tokens
    }
    return c;
}

} // namespace

std::vector<Message> validateServingLayout(const Scenario& s)
{
    const ModelSpec& m = s.model;
    std::vector<Message> errors = modelProblems(m);
    const ParallelConfig& p = s.parallel;
    const ServingLayout L = ServingLayout::of(p);
    const int gpus = s.topology.gpuCount();
    if (L.world() != gpus)
        errors.push_back({ "parallel.dp",
            "tp*pp*dp = " + str(p.tp) + "*" + str(p.pp) + "*" + str(p.dp) + " = " + str(L.world())
                + " but the cluster has " + str(gpus) + " GPUs: choose degrees whose product is " + str(gpus) });
    if (p.cp != 1)
        errors.push_back({ "parallel.cp", "context parallelism is not modelled for serving: set cp=1" });
    const InferenceConfig& c = s.inference;
    if (c.contextLen > 0 && c.contextLen < c.isl + c.osl)
        errors.push_back({ "inference.context_len",
            "context_len=" + str(c.contextLen) + " must hold isl + osl = " + str(c.isl + c.osl)
                + " tokens: raise context_len or lower isl/osl" });
    if (m.heads % p.tp != 0)
        errors.push_back({ "parallel.tp",
            "heads=" + str(m.heads) + " is not divisible by tp=" + str(p.tp) + ": choose a tp that divides heads" });
    if (!m.mla && p.tp > 0 && m.kvHeads % p.tp != 0 && p.tp % m.kvHeads != 0)
        errors.push_back({ "parallel.tp",
            "kv_heads=" + str(m.kvHeads) + " and tp=" + str(p.tp)
                + ": one must divide the other (vLLM replicates kv heads only when tp is a multiple of kv_heads)" });
    if (p.pp > m.layers)
        errors.push_back({ "parallel.pp", "pp=" + str(p.pp) + " exceeds layers=" + str(m.layers) + ": lower pp" });
    if (!m.isMoe() && p.ep > 1)
        errors.push_back({ "parallel.ep", "the model has no experts: set ep=1" });
    const ModelSpec* draft = draftModelOf(s.inference);
    if (s.inference.speculativeTokens > 0 && s.inference.speculativeMethod == SpeculativeMethod::Mtp
        && m.mtpLayers == 0)
        errors.push_back({ "inference.speculative_tokens",
            "speculative_tokens=" + str(s.inference.speculativeTokens)
                + " drafts with the model's multi-token-"
                  "prediction module, and "
                + (m.name.empty() ? std::string("the model") : m.name)
                + " has none (mtp_layers 0): set speculative_tokens to 0, set draft_model to a smaller model of "
                  "its tokenizer, set speculative_method to eagle3, or set mtp_layers to the checkpoint's "
                  "num_nextn_predict_layers" });
    if (s.inference.speculativeTokens > 0 && s.inference.speculativeMethod == SpeculativeMethod::Eagle3
        && !eagle3Fits(m))
        errors.push_back({ "inference.speculative_method",
            "eagle3 is modelled for dense models without MLA (one decoder layer like the model's), and "
                + (m.name.empty() ? std::string("the model") : m.name) + (m.isMoe() ? " has experts" : " has MLA")
                + ": use its MTP module (speculative_method mtp) or a draft model" });
    if (s.inference.speculativeMethod == SpeculativeMethod::DraftModel && !draft)
        errors.push_back({ "inference.draft_model",
            "unknown model preset \"" + s.inference.draftModel + "\": choose a model preset, or clear draft_model" });
    if (draft) {
        // A drafter proposes token ids the model scores: both must share one tokenizer (vLLM checks the draft's
        // vocabulary against the target's), and its heads split over the model's tp.
        if (draft->vocab != m.vocab)
            errors.push_back({ "inference.draft_model",
                draft->name + " has a vocabulary of " + str(draft->vocab) + " tokens and the model " + str(m.vocab)
                    + ": a draft model must share the model's tokenizer; choose one of its family" });
        if (draft->heads % p.tp != 0 || (draft->kvHeads % p.tp != 0 && p.tp % draft->kvHeads != 0))
            errors.push_back({ "inference.draft_model",
                draft->name + " (heads " + str(draft->heads) + ", kv_heads " + str(draft->kvHeads)
                    + ") does not split over tp=" + str(p.tp)
                    + ": the draft model runs at the model's tp; choose a tp or a draft model that fits" });
    }
    if (m.isMoe() && p.ep > 1) {
        if (m.moe->experts % p.ep != 0)
            errors.push_back({ "parallel.ep",
                "experts=" + str(m.moe->experts) + " is not divisible by ep=" + str(p.ep)
                    + ": choose an ep that divides it" });
        if ((p.tp * p.dp) % p.ep != 0)
            errors.push_back({ "parallel.ep",
                "ep=" + str(p.ep) + " must divide tp*dp=" + str(p.tp * p.dp)
                    + " (experts are sharded over the ranks of one pipeline stage)" });
    }
    return errors;
}

int maxConcurrencyAtContext(const Scenario& s, int contextLen)
{
    InferenceConfig config = s.inference;
    config.contextLen = contextLen;
    config.isl = std::min(config.isl, std::max(1, contextLen - 1));
    config.osl = std::min(config.osl, std::max(1, contextLen - config.isl));
    return capacity(s, config).maxConcurrency;
}

Report evaluateInference(const Scenario& s, const EvaluateOptions& options)
{
    Report report;
    const ModelSpec& m = s.model;
    const InferenceConfig& config = s.inference;
    const ServingLayout L = ServingLayout::of(s.parallel);
    // Serving loads the model without its multi-token-prediction modules (used only for speculative decoding):
    // the kept sums less them, not the sums of a copy (a copy displaces them: 40% of an evaluation).
    report.paramsTotal = totalParameters(m) - mtpParameters(m);
    report.paramsActive = activeParameters(m) - mtpActiveParameters(m);
    report.gpus = s.topology.gpuCount();
    report.seqLen = config.effectiveContextLen();
    if (s.topology.domains.empty()) {
        report.errors.push_back({ "cluster", "the cluster has no GPUs: add an NVLink domain" });
        return report;
    }
    report.hbmBytes = smallestHbm(s.topology);
    report.errors = validateServingLayout(s);
    if (!report.errors.empty())
        return report;
    report.valid = true;

    report.rankMap = RankMap::build(s.parallel, &s.topology);
    for (int d = 0; d < kDimCount; ++d)
        report.groupsCrossingDomains[d] = report.rankMap.groupsCrossingDomains(static_cast<Dim>(d));
    bool calibrated = false;
    const EngineCommGroups comm
        = buildCommGroups(s.parallel, s.topology, report.rankMap, options.calibration, calibrated);

    GpuSpec gpu = s.topology.domains.front().gpu;
    for (const auto& d : s.topology.domains)
        if (d.gpu.bf16FlopsPerSecond < gpu.bf16FlopsPerSecond)
            gpu = d.gpu;
    const EfficiencyDefaults defaults;
    const ComputeRates rates(gpu, servingComputeDType(config.weightFormat), options.calibration, defaults);
    report.peakFlopsPerSecond = rates.peakFlopsPerSecond();

    InferenceReport r;
    r.tp = L.tp, r.pp = L.pp, r.dp = L.dp, r.ep = L.ep;
    r.dpAttention = L.dpAttention();
    r.weightDtype = toString(config.weightFormat);
    r.kvDtype = toString(config.kvDtype);
    r.contextLen = config.effectiveContextLen();
    r.isl = config.isl;
    r.osl = config.osl;
    r.gpuMemoryUtilization = config.gpuMemoryUtilization;
    r.speculativeTokens = draftTokensPerStep(m, config);
    r.draftAcceptance = r.speculativeTokens > 0 ? config.draftAcceptance : 0.0;
    const ModelSpec* draft = r.speculativeTokens > 0 ? draftModelOf(config) : nullptr;
    r.draftModel = draft ? draft->name : std::string();
    r.speculativeMethod = r.speculativeTokens > 0 ? toString(config.speculativeMethod) : "";
    r.draftWeightsBytesPerGpu = draftWeightBytes(m, config, L.tp, L.expertShards());
    r.modelWeightsBytes = servingWeightBytes(m, config.weightFormat, 1, 1, 0, m.layers, true, true).total();
    r.kvBytesPerToken = kvBytesPerToken(m, config.kvDtype);

    const CapacityResult cap = capacity(s, config);
    r.memory = cap.memory;
    r.weightsBytesPerGpu = cap.memory.weightsBytes;
    r.kvBytesPerTokenPerGpu = cap.perTokenBytesPerGpu;
    r.kvBytesPerRequestPerGpu = cap.perRequestBytes;
    r.maxConcurrency = cap.maxConcurrency;
    r.kvCapacityTokensPerReplica = cap.capacityTokensPerReplica;
    r.kvCapacityTokens = cap.capacityTokensPerReplica * L.dp;

    const ServingMemoryDefaults memoryDefaults;
    const int schedulerCap = memoryDefaults.maxNumSeqs * L.dp;
    r.concurrencySolved = config.solvesConcurrency();
    const int wanted = r.concurrencySolved ? std::min(r.maxConcurrency, schedulerCap) : config.concurrency;
    r.concurrency = std::max(1, std::min(wanted, std::max(1, r.maxConcurrency)));

    // Verdict.
    const std::string ctx = tokensText(r.contextLen);
    const double budget = config.gpuMemoryUtilization * report.hbmBytes;
    if (cap.memory.kvCacheBytes <= 0) {
        r.verdict = ServingVerdict::DoesNotFit;
        r.verdictReason = "weights " + gibText(cap.memory.weightsBytes) + " + workspace, CUDA graphs and buffers "
            + gibText(cap.memory.usedBytes() - cap.memory.weightsBytes) + " per GPU exceed the " + gibText(budget)
            + " budget (gpu_memory_utilization " + fixedText(config.gpuMemoryUtilization, 2) + " x HBM) by "
            + gibText(-cap.memory.kvCacheBytes) + ": use a smaller weight_dtype or more GPUs (tp, pp)";
    } else if (r.maxConcurrency < 1) {
        r.verdict = ServingVerdict::DoesNotFit;
        r.verdictReason = "one request of " + ctx + " tokens needs " + gibText(cap.perRequestBytes)
            + " of KV cache per GPU but only " + gibText(cap.memory.kvCacheBytes)
            + " is free: lower context_len, use kv_dtype fp8 or more GPUs";
    } else if (!r.concurrencySolved && config.concurrency > r.maxConcurrency) {
        r.verdict = ServingVerdict::Tight;
        const double need = std::ceil(static_cast<double>(config.concurrency) / L.dp) * cap.perRequestBytes;
        r.verdictReason = "KV cache for " + str(config.concurrency) + " requests of " + ctx + " needs "
            + fixedText(need / cap.memory.kvCacheBytes, 1) + "x the free HBM: " + str(r.maxConcurrency)
            + " run at once, the rest queue";
    } else if (r.concurrencySolved && r.maxConcurrency < report.gpus) {
        r.verdict = ServingVerdict::Tight;
        r.verdictReason = "the KV cache holds " + str(r.maxConcurrency) + " requests of " + ctx
            + ", fewer than one per GPU (" + str(report.gpus) + ")";
    } else {
        r.verdict = ServingVerdict::Fits;
        r.verdictReason = "the KV cache holds " + str(r.maxConcurrency) + " requests of " + ctx;
    }

    // Time.
    ServingTimeInputs timeIn { m, config, L, rates, comm.tp, comm.ep };
    timeIn.defaults = defaults;
    // A draft model or an EAGLE-3 head runs in bf16 whatever the model's weights (kDraftModelWeightFormat).
    std::optional<ComputeRates> draftRates;
    const bool bf16Drafter
        = draft || (r.speculativeTokens > 0 && config.speculativeMethod == SpeculativeMethod::Eagle3);
    if (bf16Drafter && servingComputeDType(config.weightFormat) != DType::Bf16) {
        draftRates.emplace(gpu, DType::Bf16, options.calibration, defaults);
        timeIn.draftRates = &*draftRates;
    }
    timeIn.maxBatchedTokens = memoryDefaults.maxBatchedTokens;
    if (L.pp > 1) {
        const int first = report.rankMap.member(Dim::Pp, 0, 0), second = report.rankMap.member(Dim::Pp, 0, 1);
        timeIn.ppHopLatencySeconds = s.topology.p2pLatencySeconds(first, second);
        timeIn.ppHopBytesPerSecond = s.topology.p2pBytesPerSecond(first, second);
    }
    const PrefillTime pre = prefill(timeIn, config.isl);
    r.ttftSeconds = pre.totalSeconds();
    r.prefillComputeSeconds = pre.computeSeconds;
    r.prefillCommSeconds = pre.commSeconds;
    const double perReplica = std::max(1.0, static_cast<double>(r.concurrency) / L.dp);
    const double meanContext = config.isl + config.osl / 2.0;
    r.decode = decodeStep(timeIn, perReplica, meanContext);
    r.tpotSeconds = r.decode.tpotSeconds();
    if (m.mtpLayers > 0 && r.speculativeTokens == 0 && options.priceAlternatives) {
        // The model carries an MTP module it decodes without: what one draft per step would give at the
        // same requests (DeepSeek-V3 serves with it, arXiv:2412.19437 sec. 5.4.3).
        InferenceConfig drafting = config;
        drafting.speculativeTokens = 1;
        drafting.speculativeMethod = SpeculativeMethod::Mtp; // the MTP module, not the scenario's other drafter
        drafting.draftModel.clear();
        const ServingTimeInputs withDrafts { m, drafting, L, rates, comm.tp, comm.ep, timeIn.ppHopLatencySeconds,
            timeIn.ppHopBytesPerSecond, timeIn.maxBatchedTokens, defaults };
        const double tpot = decodeStep(withDrafts, perReplica, meanContext).tpotSeconds();
        report.notes.push_back({ "inference.speculative_tokens",
            m.name
                + " has a multi-token-prediction module: drafting one token per step with it "
                  "(speculative_tokens 1, acceptance "
                + fixedText(drafting.draftAcceptance, 2) + ") would give TPOT " + secondsText(tpot) + " against "
                + secondsText(r.tpotSeconds) + " at " + str(r.concurrency) + " requests, for "
                + gibText(draftWeightBytes(m, drafting, L.tp, L.expertShards()))
                + " more weights per GPU of the last stage and one more layer of KV cache" });
    }
    const ConcurrencyPoint point = servingThroughput(timeIn, r.concurrency, &r.decodeTokensPerSecondPerGpu);
    r.tokensPerSecondPerGpu = point.tokensPerSecondPerGpu;
    r.ttftLowSeconds = servingTtftBand().low(r.ttftSeconds);
    r.ttftHighSeconds = servingTtftBand().high(r.ttftSeconds);
    r.tpotLowSeconds = servingTpotBand().low(r.tpotSeconds);
    r.tpotHighSeconds = servingTpotBand().high(r.tpotSeconds);
    r.tokensPerSecondPerGpuLow = servingThroughputBand().low(r.tokensPerSecondPerGpu);
    r.tokensPerSecondPerGpuHigh = servingThroughputBand().high(r.tokensPerSecondPerGpu);
    const int sweepTop = std::max(1, std::min(std::max(r.maxConcurrency, 1), schedulerCap));
    for (int c = 1; c < sweepTop; c *= 2)
        r.sweep.push_back(servingThroughput(timeIn, c));
    r.sweep.push_back(servingThroughput(timeIn, sweepTop));

    report.fits = r.verdict != ServingVerdict::DoesNotFit;
    report.peakMemoryBytes = cap.memory.usedBytes() + std::max(0.0, cap.memory.kvCacheBytes);
    // The report's own verdict is the serving one (`evaluate --json` prints both; they must agree). The pool
    // is sized by the framework's rule from what is left, so the peak is the rule's figure, not a prediction.
    report.memoryVerdict = r.verdict == ServingVerdict::Fits ? MemoryVerdict::Fits
        : r.verdict == ServingVerdict::Tight                 ? MemoryVerdict::Tight
                                                             : MemoryVerdict::DoesNotFit;
    report.peakMemoryLowBytes = report.peakMemoryBytes;
    report.peakMemoryHighBytes = report.peakMemoryBytes;
    report.tokensPerSecond = r.tokensPerSecondPerGpu * report.gpus;
    if (r.verdict != ServingVerdict::Fits)
        report.warnings.push_back({ "memory", r.verdictReason });
    if (report.groupsCrossingDomains[static_cast<int>(Dim::Tp)] > 0)
        report.warnings.push_back({ "parallel.tp",
            "TP groups cross NVLink domains: every layer's all-reduces run over IB; keep tp within a node" });
    if (config.weightFormat != WeightFormat::Bf16 && config.weightFormat != WeightFormat::Int4
        && gpu.fp8FlopsPerSecond <= 0)
        report.notes.push_back({ "inference.weight_dtype",
            gpu.name + " has no fp8 tensor cores: the weights are dequantized to bf16 (weight-only, Marlin kernels)" });
    if ((config.weightFormat == WeightFormat::Nvfp4 || config.weightFormat == WeightFormat::Mxfp4)
        && gpu.id.rfind('b', 0) != 0 && gpu.id.rfind("gb", 0) != 0)
        report.notes.push_back({ "inference.weight_dtype",
            "fp4 tensor cores are Blackwell-only: on " + gpu.name
                + " fp4 weights are dequantized; the time uses the fp8 rate" });
    if (r.dpAttention)
        report.notes.push_back({ "parallel.dp",
            "DP-attention: attention runs on " + str(L.dp) + " replicas of tp=" + str(L.tp)
                + " while the experts are split ep=" + str(L.ep) + " over them (SGLang --enable-dp-attention)" });
    if (r.speculativeTokens > 0)
        report.notes.push_back({ "inference.speculative_tokens",
            describeSpeculation(r) + " (arXiv:2211.17192 eq. 1): the step verifies " + str(r.speculativeTokens + 1)
                + " tokens per request and adds " + secondsText(r.decode.draftSeconds)
                + " of drafting; TPOT is the step / " + fixedText(r.decode.tokensPerStep, 2)
                + ". Acceptance depends on the traffic: measure it (the serving engine's speculative-decoding "
                  "metrics) and set draft_acceptance" });
    report.inference = std::move(r);
    return report;
}

} // namespace parallax::core
