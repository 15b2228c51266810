// SPDX-License-Identifier: Apache-2.0
#include "core/validation/ServingValidation.h"

#include "core/search/NumberText.h"

#include <cstdio>
#include <sstream>

namespace parallax::core {

std::string servingValidationTable(const ServingValidationSummary& s)
{
    std::ostringstream out;
    char line[320];
    std::snprintf(line, sizeof line, "%-50s %-40s %11s %11s %9s\n", "run", "metric", "predicted", "published", "error");
    out << line;
    for (const ServingComparison& r : s.rows) {
        const std::string metric = std::string(toString(r.metric)) + " (" + unitOf(r.metric) + ")";
        std::snprintf(line, sizeof line, "%-50s %-40s %11.5g %11.5g %+8.1f%%%s\n", r.id.c_str(), metric.c_str(),
            r.predicted, r.published, 100 * r.error,
            r.concurrencyCapped
                ? ("  (engine: the batch does not fit its KV pool, ran " + std::to_string(r.concurrencyUsed) + ")")
                      .c_str()
                : "");
        out << line;
    }
    out << "\nper source (absolute error):\n";
    for (const auto& [source, stats] : s.perSource)
        out << "  " << errorStatsLine(source, stats);
    out << "\nper metric (absolute error):\n";
    for (const auto& [metric, stats] : s.perMetric)
        out << "  " << errorStatsLine(metric, stats);
    out << "\n" << errorStatsLine("all figures", s.all);
    out << "\nnot modelled (" << s.notModelled.size() << "):\n";
    for (const auto& k : s.notModelled)
        out << "  " << k.id << ": " << k.reason << "\n";
    out << "\nbounds: memory mean <= " << percentText(s.bounds.memoryMean, 0)
        << ", throughput mean <= " << percentText(s.bounds.throughputMean, 0)
        << ", TTFT / TPOT mean <= " << percentText(s.bounds.latencyMean, 0)
        << ", every figure <= " << percentText(s.bounds.worstRow, 0) << ": " << (s.withinBounds() ? "met" : "NOT met")
        << "\n";
    for (const auto& f : s.failures)
        out << "  " << f << "\n";
    return out.str();
}

nlohmann::json servingValidationJson(const ServingValidationSummary& s)
{
    nlohmann::json rows = nlohmann::json::array();
    for (const ServingComparison& r : s.rows)
        rows.push_back({ { "id", r.id }, { "source", r.source }, { "framework", r.framework }, { "gpu", r.gpu },
            { "metric", toString(r.metric) }, { "unit", unitOf(r.metric) }, { "predicted", r.predicted },
            { "published", r.published }, { "error", r.error }, { "concurrency_used", r.concurrencyUsed },
            { "concurrency_capped", r.concurrencyCapped }, { "assumptions", r.assumptions } });
    nlohmann::json skipped = nlohmann::json::array();
    for (const auto& k : s.notModelled)
        skipped.push_back({ { "id", k.id }, { "reason", k.reason } });
    nlohmann::json sources = nlohmann::json::object(), metrics = nlohmann::json::object();
    for (const auto& [k, v] : s.perSource)
        sources[k] = errorStatsJson(v);
    for (const auto& [k, v] : s.perMetric)
        metrics[k] = errorStatsJson(v);
    return { { "rows", rows }, { "not_modelled", skipped }, { "per_source", sources }, { "per_metric", metrics },
        { "all", errorStatsJson(s.all) },
        { "bounds",
            { { "memory_mean", s.bounds.memoryMean }, { "throughput_mean", s.bounds.throughputMean },
                { "latency_mean", s.bounds.latencyMean }, { "worst_row", s.bounds.worstRow } } },
        { "within_bounds", s.withinBounds() }, { "failures", s.failures } };
}

} // namespace parallax::core
