// SPDX-License-Identifier: Apache-2.0
#include "core/inference/ServingSearch.h"

#include "core/Validation.h"
#include "core/inference/InferenceEngine.h"
#include "core/report/ReportMarkdown.h"
#include "core/search/NumberText.h"

#include <algorithm>
#include <map>

namespace parallax::core {

namespace {

// "tp=4 pp=1 dp=2 ep=8 (DP-attention)": a serving layout as the search's reasons name it.
std::string servingLayoutText(const ParallelConfig& p)
{
    std::string s = "tp=" + std::to_string(p.tp) + " pp=" + std::to_string(p.pp) + " dp=" + std::to_string(p.dp)
        + " ep=" + std::to_string(p.ep);
    return p.dp > 1 && p.ep > 1 ? s + " (DP-attention)" : s;
}

nlohmann::json candidateToJson(const ServingCandidate& c)
{
    return { { "layout",
                 { { "tp", c.layout.tp }, { "pp", c.layout.pp }, { "dp", c.layout.dp }, { "ep", c.layout.ep },
                     { "dp_attention", c.dpAttention } } },
        { "concurrency", c.concurrency }, { "ttft_s", c.ttftSeconds }, { "tpot_s", c.tpotSeconds },
        { "tokens_per_s_per_gpu", c.tokensPerSecondPerGpu }, { "max_concurrency", c.maxConcurrency },
        { "memory_verdict", c.verdict }, { "reason", c.reason } };
}

} // namespace

ServingSearchResult searchServingLayouts(
    const Scenario& base, const ServingLimits& limits, int topK, const EvaluateOptions& options)
{
    ServingSearchResult result;
    std::map<std::string, ServingCandidate> rejectedByFamily;
    auto reject = [&](const std::string& family, ServingCandidate c) {
        auto it = rejectedByFamily.find(family);
        if (it == rejectedByFamily.end() || c.tokensPerSecondPerGpu > it->second.tokensPerSecondPerGpu)
            rejectedByFamily[family] = std::move(c);
    };
    const int gpus = base.topology.gpuCount();
    std::vector<ServingCandidate> all;
    EvaluateOptions candidateOptions = options;
    candidateOptions.priceAlternatives = false; // a candidate's notes are not shown
    for (int tp : divisorsOf(gpus)) {
        for (int pp : divisorsOf(gpus / tp)) {
            const int dp = gpus / tp / pp;
            std::vector<int> eps { 1 };
            if (base.model.isMoe()) {
                for (int ep : { tp, tp * dp })
                    if (ep > 1 && std::find(eps.begin(), eps.end(), ep) == eps.end())
                        eps.push_back(ep);
            }
            for (int ep : eps) {
                Scenario s = base;
                s.parallel = ParallelConfig {};
                s.parallel.tp = tp;
                s.parallel.pp = pp;
                s.parallel.dp = dp;
                s.parallel.ep = ep;
                ServingCandidate c;
                c.layout = s.parallel;
                c.dpAttention = dp > 1 && ep > 1;
                const Report r = evaluateInference(s, candidateOptions);
                if (!r.valid) {
                    c.reason = servingLayoutText(c.layout) + " is not a valid layout: " + r.errors.front().field + ": "
                        + r.errors.front().text;
                    reject("invalid", c);
                    continue;
                }
                const InferenceReport& in = *r.inference;
                c.maxConcurrency = in.maxConcurrency;
                c.verdict = toString(in.verdict);
                c.ttftSeconds = in.ttftSeconds;
                if (in.verdict == ServingVerdict::Tight)
                    c.memoryNote = in.verdictReason;
                if (in.verdict == ServingVerdict::DoesNotFit) {
                    c.reason = in.verdictReason;
                    reject("memory", c);
                    continue;
                }
                if (limits.ttftSeconds > 0 && in.ttftSeconds > limits.ttftSeconds) {
                    c.reason = "TTFT " + formatSeconds(in.ttftSeconds) + " exceeds the "
                        + formatSeconds(limits.ttftSeconds) + " limit";
                    reject("ttft", c);
                    continue;
                }
                // The scenario's own concurrency, or every sweep point, under the TPOT limit.
                std::vector<ConcurrencyPoint> points;
                if (in.concurrencySolved)
                    points = in.sweep;
                else
                    points.push_back({ in.concurrency, in.tpotSeconds, in.tokensPerSecondPerGpu });
                bool any = false;
                for (const auto& p : points) {
                    if (limits.tpotSeconds > 0 && p.tpotSeconds > limits.tpotSeconds)
                        continue;
                    if (!any || p.tokensPerSecondPerGpu > c.tokensPerSecondPerGpu) {
                        c.concurrency = p.concurrency;
                        c.tpotSeconds = p.tpotSeconds;
                        c.tokensPerSecondPerGpu = p.tokensPerSecondPerGpu;
                    }
                    any = true;
                }
                if (!any) {
                    c.concurrency = points.front().concurrency;
                    c.tpotSeconds = points.front().tpotSeconds;
                    c.reason = "TPOT " + formatSeconds(c.tpotSeconds) + " at concurrency "
                        + std::to_string(c.concurrency) + " exceeds the " + formatSeconds(limits.tpotSeconds)
                        + " limit";
                    reject("tpot", c);
                    continue;
                }
                all.push_back(c);
            }
        }
    }
    std::stable_sort(all.begin(), all.end(),
        [](const auto& a, const auto& b) { return a.tokensPerSecondPerGpu > b.tokensPerSecondPerGpu; });
    for (std::size_t i = 0; i < all.size(); ++i) {
        ServingCandidate& c = all[i];
        const std::string figures = fixedText(c.tokensPerSecondPerGpu, 1) + " tokens/s per GPU at concurrency "
            + std::to_string(c.concurrency) + " (TTFT " + formatSeconds(c.ttftSeconds) + ", TPOT "
            + formatSeconds(c.tpotSeconds) + ")";
        if (i == 0) {
            c.reason = "the most output " + figures;
        } else {
            const ServingCandidate& best = all.front();
            std::string why
                = fixedText(c.tokensPerSecondPerGpu / best.tokensPerSecondPerGpu, 2) + "x of #1: " + figures;
            if (c.maxConcurrency < best.concurrency)
                why += "; its KV cache holds only " + std::to_string(c.maxConcurrency) + " requests";
            c.reason = why;
        }
        if (!c.memoryNote.empty())
            c.reason += "; " + c.memoryNote;
    }
    if (static_cast<int>(all.size()) > topK) {
        for (std::size_t i = topK; i < all.size(); ++i)
            reject("slower", all[i]);
        all.resize(topK);
    }
    result.candidates = std::move(all);
    for (auto& [family, c] : rejectedByFamily)
        result.rejected.push_back(std::move(c));
    return result;
}

nlohmann::json servingSearchToJson(const ServingSearchResult& r)
{
    nlohmann::json candidates = nlohmann::json::array(), rejected = nlohmann::json::array();
    for (const auto& c : r.candidates)
        candidates.push_back(candidateToJson(c));
    for (const auto& c : r.rejected)
        rejected.push_back(candidateToJson(c));
    return { { "mode", "inference" }, { "candidates", candidates }, { "rejected", rejected } };
}

} // namespace parallax::core
