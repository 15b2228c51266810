// SPDX-License-Identifier: Apache-2.0
#include "core/validation/ServingValidation.h"

#include "core/inference/InferenceEngine.h"
#include "core/inference/ServingMemory.h"
#include "core/search/NumberText.h"

#include <algorithm>
#include <cmath>

namespace parallax::core {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

bool isMemory(ServingMetric m)
{
    return m == ServingMetric::KvCacheTokens || m == ServingMetric::KvCacheGib || m == ServingMetric::WeightsGibPerGpu;
}

// SGLang's pool: mem_fraction_static x (HBM - what the process holds before loading) - weights
// (sglang model_runner.profile_max_num_token); the CUDA context and NCCL buffers are the engine's runtimeBytes.
double sglangPoolBytes(const ServingMemory& m, double fraction)
{
    return fraction * (m.hbmBytes - m.runtimeBytes) - m.weightsBytes;
}

// Families of the serving file the physics does not cover yet: listed with the reason and the engine's own
// figure, never averaged in (docs/validation.md, "Serving rows", known misses).
std::string familyNotYetModelled(const PublishedServingRun& run, const std::vector<ServingComparison>& rows)
{
    const ModelSpec& m = run.scenario.model;
    std::string figures;
    for (const ServingComparison& c : rows)
        figures += std::string(figures.empty() ? "" : "; ") + toString(c.metric) + " " + fixedText(c.predicted, 1)
            + " against " + fixedText(c.published, 1) + " printed";
    for (const ServingComparison& c : rows) {
        // A prompt of a few hundred tokens is launch- and runtime-bound: the engine's serving model has no
        // per-request fixed cost (scheduling, the first sampling step, host round trips).
        if (c.metric == ServingMetric::TtftMs && run.scenario.inference.isl < 512)
            return "not yet modelled: TTFT of a short prompt (isl " + std::to_string(run.scenario.inference.isl)
                + ") is dominated by the runtime's fixed per-request cost, which the serving model lacks (engine: "
                + figures + ")";
        // TensorRT-LLM of 2023 (v0.5, v0.6) generated GQA with its masked multi-head kernel; the XQA kernel for
        // MQA / GQA generation came after (TensorRT-LLM blog "New XQA-kernel provides 2.4x more Llama-70B
        // throughput within the same latency budget", docs/source/blogs/XQA-kernel.md, 2024-01-30).
        const bool preXqa
            = run.framework == "TensorRT-LLM" && (run.version.rfind("0.5", 0) == 0 || run.version.rfind("0.6", 0) == 0);
        const bool decodes
            = c.metric == ServingMetric::OutputTokensPerSecondPerGpu || c.metric == ServingMetric::TpotMs;
        if (preXqa && decodes && !m.mla && m.kvHeads < m.heads)
            return "not yet modelled: GQA generation in TensorRT-LLM " + run.version.substr(0, run.version.find(' '))
                + " (before the XQA kernel for GQA generation); the MHA rows of the same table are compared (engine: "
                + figures + ")";
        // vLLM's non-KV memory of a fused-MoE model (the profile run's expert workspaces, torch.compile and
        // CUDA-graph pools) is larger than the engine's dense-style workspace; no breakdown is printed.
        const bool kvPool = c.metric == ServingMetric::KvCacheTokens || c.metric == ServingMetric::KvCacheGib;
        if (kvPool && m.isMoe() && run.pool == KvPoolConvention::GpuMemoryUtilization)
            return "not yet modelled: vLLM's memory outside weights and KV for a fused-MoE model; the log prints "
                   "no breakdown of it (engine: "
                + figures + ")";
    }
    return {};
}

} // namespace

std::vector<ServingComparison> evaluateServingRun(const PublishedServingRun& run, std::string& reason)
{
    std::vector<ServingComparison> out;
    const Report rep = evaluateInference(run.scenario);
    if (!rep.valid || !rep.inference) {
        reason = "the engine rejects the layout: "
            + (rep.errors.empty() ? std::string("invalid") : rep.errors.front().field + ": " + rep.errors.front().text);
        return out;
    }
    const InferenceReport& r = *rep.inference;
    const int dp = run.scenario.parallel.dp;
    for (const ServingFigure& f : run.figures) {
        ServingComparison c;
        c.id = run.id;
        c.source = run.source;
        c.framework = run.framework;
        c.gpu = run.gpu;
        c.metric = f.metric;
        c.published = f.published;
        c.assumptions = run.assumptions;
        c.concurrencyUsed = r.concurrency;
        c.concurrencyCapped
            = !run.scenario.inference.solvesConcurrency() && run.scenario.inference.concurrency > r.concurrency;
        double poolBytes = r.memory.kvCacheBytes;
        if (run.pool == KvPoolConvention::MemFractionStatic)
            poolBytes = sglangPoolBytes(r.memory, run.memFractionStatic);
        switch (f.metric) {
        case ServingMetric::KvCacheTokens:
            c.predicted = r.kvBytesPerTokenPerGpu > 0 ? std::max(0.0, poolBytes) / r.kvBytesPerTokenPerGpu * dp : 0;
            break;
        case ServingMetric::KvCacheGib:
            c.predicted = std::max(0.0, poolBytes) / kGiB;
            break;
        case ServingMetric::WeightsGibPerGpu:
            c.predicted = r.memory.weightsBytes / kGiB;
            break;
        case ServingMetric::TtftMs:
            c.predicted = 1e3 * r.ttftSeconds;
            break;
        case ServingMetric::TpotMs:
            c.predicted = 1e3 * r.tpotSeconds;
            break;
        case ServingMetric::OutputTokensPerSecondPerGpu:
            c.predicted = r.tokensPerSecondPerGpu;
            break;
        }
        c.error = c.predicted / c.published - 1.0;
        out.push_back(std::move(c));
    }
    return out;
}

ServingValidationSummary runServingValidation(const nlohmann::json& records)
{
    ServingValidationSummary out;
    if (!records.is_array()) {
        out.failures.emplace_back("the file is not a JSON array of serving records");
        return out;
    }
    for (const auto& record : records) {
        ServingRunConversion c = convertServingRecord(record);
        if (c.run) {
            std::string reason;
            std::vector<ServingComparison> rows = evaluateServingRun(*c.run, reason);
            if (rows.empty()) {
                c.run.reset();
                c.reason = reason;
            } else if (std::string why = familyNotYetModelled(*c.run, rows); !why.empty()) {
                c.run.reset();
                c.reason = std::move(why);
            } else {
                for (auto& row : rows)
                    out.rows.push_back(std::move(row));
                continue;
            }
        }
        out.notModelled.push_back(std::move(c));
    }

    std::map<std::string, std::vector<std::pair<double, std::string>>> bySource, byMetric;
    std::vector<std::pair<double, std::string>> all;
    for (const ServingComparison& r : out.rows) {
        const std::string label = r.id + " " + toString(r.metric);
        bySource[r.source].emplace_back(r.error, label);
        byMetric[toString(r.metric)].emplace_back(r.error, r.id);
        all.emplace_back(r.error, label);
    }
    for (const auto& [k, v] : bySource)
        out.perSource[k] = errorStatsOf(v);
    for (const auto& [k, v] : byMetric)
        out.perMetric[k] = errorStatsOf(v);
    out.all = errorStatsOf(all);

    const ServingBounds& b = out.bounds;
    if (out.rows.empty())
        out.failures.push_back("no figure could be compared (" + std::to_string(out.notModelled.size())
            + " records not modelled): nothing was checked against the engine");
    for (ServingMetric m : { ServingMetric::KvCacheTokens, ServingMetric::KvCacheGib, ServingMetric::WeightsGibPerGpu,
             ServingMetric::TtftMs, ServingMetric::TpotMs, ServingMetric::OutputTokensPerSecondPerGpu }) {
        const auto stats = out.perMetric.find(toString(m));
        if (stats == out.perMetric.end())
            continue;
        const bool latency = m == ServingMetric::TtftMs || m == ServingMetric::TpotMs;
        const double bound = isMemory(m) ? b.memoryMean : latency ? b.latencyMean : b.throughputMean;
        if (stats->second.meanAbs > bound)
            out.failures.push_back(std::string(toString(m)) + " mean error " + percentText(stats->second.meanAbs)
                + " > " + percentText(bound));
    }
    if (out.all.maxAbs > b.worstRow)
        out.failures.push_back(
            "row " + out.all.worstId + " is off by " + percentText(out.all.maxAbs) + " > " + percentText(b.worstRow));
    return out;
}

} // namespace parallax::core
