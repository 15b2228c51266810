// SPDX-License-Identifier: Apache-2.0
#include "core/inference/InferenceLessonValues.h"

#include "core/Units.h"
#include "core/inference/InferenceEngine.h"
#include "core/inference/ServingSearch.h"
#include "core/search/NumberText.h"

#include <cmath>
#include <functional>
#include <map>

namespace parallax::core {

namespace {
std::string layoutText(const ParallelConfig& p)
{
    std::string s = "TP" + std::to_string(p.tp);
    if (p.pp > 1)
        s += " x PP" + std::to_string(p.pp);
    if (p.dp > 1)
        s += (p.ep > 1 ? " x DP-attention" : " x DP") + std::to_string(p.dp);
    if (p.ep > 1)
        s += " + EP" + std::to_string(p.ep);
    return s;
}

std::string thousands(double v)
{
    std::string digits = std::to_string(std::llround(v));
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
        digits.insert(static_cast<std::size_t>(i), ",");
    return digits;
}
} // namespace

std::optional<std::string> inferenceLessonValue(const std::string& name, const Scenario& s, const Report& r)
{
    using Getter = std::function<std::string(const Scenario&, const InferenceReport&)>;
    static const std::map<std::string, Getter> kValues {
        { "weights_per_gpu_gib", [](auto&, auto& i) { return fixedText(i.weightsBytesPerGpu / kGiB, 1); } },
        { "model_weights_gb", [](auto&, auto& i) { return fixedText(i.modelWeightsBytes / 1e9, 0); } },
        { "kv_cache_gib", [](auto&, auto& i) { return fixedText(i.memory.kvCacheBytes / kGiB, 1); } },
        { "budget_gib",
            [](auto&, auto& i) { return fixedText(i.gpuMemoryUtilization * i.memory.hbmBytes / kGiB, 1); } },
        { "kv_bytes_per_token", [](auto&, auto& i) { return thousands(i.kvBytesPerToken); } },
        { "kv_bytes_per_token_per_gpu", [](auto&, auto& i) { return thousands(i.kvBytesPerTokenPerGpu); } },
        { "kv_capacity_tokens", [](auto&, auto& i) { return thousands(i.kvCapacityTokens); } },
        { "max_concurrency", [](auto&, auto& i) { return std::to_string(i.maxConcurrency); } },
        { "context_len", [](auto&, auto& i) { return thousands(i.contextLen); } },
        { "memory_verdict", [](auto&, auto& i) { return std::string(toString(i.verdict)); } },
        { "verdict_reason", [](auto&, auto& i) { return i.verdictReason; } },
        { "ttft_ms", [](auto&, auto& i) { return fixedText(i.ttftSeconds * 1e3, 0); } },
        { "tpot_ms", [](auto&, auto& i) { return fixedText(i.tpotSeconds * 1e3, 1); } },
        { "serving_concurrency", [](auto&, auto& i) { return std::to_string(i.concurrency); } },
        { "tokens_per_s_per_gpu", [](auto&, auto& i) { return fixedText(i.tokensPerSecondPerGpu, 0); } },
        { "layout", [](auto& sc, auto&) { return layoutText(sc.parallel); } },
        { "speculative_tokens", [](auto&, auto& i) { return std::to_string(i.speculativeTokens); } },
        { "draft_acceptance", [](auto&, auto& i) { return fixedText(i.draftAcceptance, 2); } },
        { "tokens_per_step", [](auto&, auto& i) { return fixedText(i.decode.tokensPerStep, 2); } },
        { "decode_step_ms", [](auto&, auto& i) { return fixedText(i.decode.stepSeconds * 1e3, 1); } },
        { "draft_ms", [](auto&, auto& i) { return fixedText(i.decode.draftSeconds * 1e3, 2); } },
        { "draft_weights_gib", [](auto&, auto& i) { return fixedText(i.draftWeightsBytesPerGpu / kGiB, 2); } },
        { "max_concurrency_full_attention",
            [](auto& sc, auto& i) {
                Scenario whole = sc; // every layer attending to the whole context: no window, no chunks
                whole.model.slidingWindow = 0;
                whole.model.chunkedAttention = false;
                return std::to_string(maxConcurrencyAtContext(whole, i.contextLen));
            } },
        { "serving_best",
            [](auto& sc, auto&) {
                const ServingSearchResult best = searchServingLayouts(sc, {}, 1);
                return best.candidates.empty() ? std::string("no layout fits")
                                               : layoutText(best.candidates.front().layout) + " at "
                        + fixedText(best.candidates.front().tokensPerSecondPerGpu, 0) + " tokens/s per GPU";
            } },
    };
    auto it = kValues.find(name);
    if (it == kValues.end() || !r.inference)
        return std::nullopt;
    return it->second(s, *r.inference);
}

const std::vector<std::pair<std::string, std::string>>& inferenceLessonPlaceholderNames()
{
    static const std::vector<std::pair<std::string, std::string>> kNames {
        { "weights_per_gpu_gib", "serving: weights on the fullest GPU, GiB" },
        { "model_weights_gb", "serving: the whole model in its weight format, GB" },
        { "kv_cache_gib", "serving: KV cache pool per GPU, GiB (negative when the rest does not fit)" },
        { "budget_gib", "serving: gpu_memory_utilization x HBM, GiB" },
        { "kv_bytes_per_token", "serving: KV cache bytes per token of the whole model" },
        { "kv_bytes_per_token_per_gpu", "serving: the same on one GPU" },
        { "kv_capacity_tokens", "serving: tokens of KV cache, all replicas" },
        { "max_concurrency", "serving: requests of context_len that fit at once" },
        { "context_len", "serving: tokens per request" },
        { "memory_verdict", "serving: fits, tight or does not fit" },
        { "verdict_reason", "serving: why" },
        { "ttft_ms", "serving: time to first token, ms" },
        { "tpot_ms", "serving: time per output token, ms" },
        { "serving_concurrency", "serving: requests in flight the times use" },
        { "tokens_per_s_per_gpu", "serving: output tokens per second per GPU" },
        { "layout", "serving: the layout, e.g. TP8 or DP-attention8 + EP8" },
        { "speculative_tokens", "serving: draft tokens per step (0: no speculative decoding)" },
        { "draft_acceptance", "serving: probability each draft token is accepted" },
        { "tokens_per_step", "serving: tokens a decode step emits per request" },
        { "decode_step_ms", "serving: one decode step (drafts and verification), ms" },
        { "draft_ms", "serving: the drafter's passes in one step (MTP module or draft model), ms" },
        { "draft_weights_gib", "serving: the drafter's weights per GPU of the last stage, GiB" },
        { "max_concurrency_full_attention",
            "serving: requests of context_len that would fit if every layer attended to the whole context (no "
            "sliding window or chunks)" },
        { "serving_best", "serving: the layout search's best layout of the cluster and its tokens/s per GPU" },
    };
    return kNames;
}

std::optional<bool> applyInferenceOverride(
    Scenario& s, const std::string& field, const std::string& value, std::string& error)
{
    InferenceConfig& c = s.inference;
    auto integer = [&](int& out) {
        try {
            std::size_t used = 0;
            const int v = std::stoi(value, &used);
            if (used != value.size() || v < 1)
                throw std::invalid_argument(value);
            out = v;
            return true;
        } catch (const std::exception&) {
            error = field + "=" + value + ": expected a positive integer";
            return false;
        }
    };
    if (field == "weight_dtype") {
        if (parseWeightFormat(value, c.weightFormat))
            return true;
        error = "weight_dtype=" + value + ": expected bf16, fp8, int8, int4, nvfp4 or mxfp4";
        return false;
    }
    if (field == "kv_dtype") {
        if (parseKvDtype(value, c.kvDtype))
            return true;
        error = "kv_dtype=" + value + ": expected bf16 or fp8";
        return false;
    }
    if (field == "context_len")
        return integer(c.contextLen);
    if (field == "isl")
        return integer(c.isl);
    if (field == "osl")
        return integer(c.osl);
    if (field == "speculative_tokens") {
        int drafts = 0;
        if (value == "0" || integer(drafts)) {
            c.speculativeTokens = drafts;
            return true;
        }
        return false;
    }
    if (field == "concurrency") {
        if (value == "max") {
            c.concurrency = 0;
            return true;
        }
        return integer(c.concurrency);
    }
    return std::nullopt;
}

} // namespace parallax::core
