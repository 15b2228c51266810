// SPDX-License-Identifier: Apache-2.0
#include "core/validation/ValidationSuite.h"

#include "core/search/NumberText.h"

#include <cstdio>
#include <set>
#include <sstream>

namespace parallax::core {

namespace {

const char* unitOf(PublishedMetric m)
{
    return m == PublishedMetric::StepTime ? "s" : "TFLOP/s";
}

} // namespace

std::string validationTable(const ValidationSummary& s)
{
    std::ostringstream out;
    char line[256];
    std::snprintf(line, sizeof line, "%-52s %-9s %10s %10s %8s %9s %9s %8s\n", "run", "metric", "predicted",
        "published", "error", "mem pred", "mem pub", "mem err");
    out << line;
    for (const ValidationRow& r : s.rows) {
        std::string mem = "", memPub = "", memErr = "";
        if (r.run.peakMemoryBytes) {
            mem = gibText(r.predictedPeakMemoryBytes);
            memPub = gibText(*r.run.peakMemoryBytes);
            memErr = signedPercentText(r.memoryError);
        }
        std::snprintf(line, sizeof line, "%-52s %-9s %10.3f %10.3f %+7.1f%% %9s %9s %8s%s\n", r.run.id.c_str(),
            unitOf(r.run.metric), r.predicted, r.run.published, 100 * r.error, mem.c_str(), memPub.c_str(),
            memErr.c_str(),
            r.memoryVerdict == MemoryVerdict::Fits        ? ""
                : r.memoryVerdict == MemoryVerdict::Tight ? "  (engine: tight)"
                                                          : "  (engine: does not fit)");
        out << line;
    }
    out << "\nper source (absolute error of step time or TFLOP/s):\n";
    for (const auto& [source, stats] : s.perSource)
        out << "  " << errorStatsLine(source, stats);
    out << "\nper family (GPU x dense/MoE; absolute error of step time or TFLOP/s):\n";
    std::set<std::string> families;
    for (const auto& [family, stats] : s.perFamily)
        families.insert(family);
    for (const auto& [family, count] : s.familiesNotCompared)
        families.insert(family);
    for (const std::string& family : families) {
        const auto compared = s.perFamily.find(family);
        const auto skipped = s.familiesNotCompared.find(family);
        std::string line = compared != s.perFamily.end() ? errorStatsLine(family, compared->second)
                                                         : family + ": no rows compared\n";
        if (skipped != s.familiesNotCompared.end()) {
            line.pop_back();
            line += " [" + std::to_string(skipped->second) + " not modelled]\n";
        }
        out << "  " << line;
    }
    if (!s.familyTrends.empty())
        out << "\nper family, signed (time sense: + where the engine's step is longer than published):\n";
    for (const auto& [family, trend] : s.familyTrends)
        out << "  " << family << ": " << familyTrendText(trend) << "\n";
    out << "\n" << errorStatsLine("step time, all rows", s.stepTime);
    out << errorStatsLine("step time, A100 rows", s.a100StepTime);
    out << errorStatsLine("TFLOP/s rows", s.throughput);
    out << errorStatsLine("peak memory", s.memory);
    out << "\nnot modelled (" << s.skipped.size() << "):\n";
    for (const auto& k : s.skipped)
        out << "  " << k.id << ": " << k.reason << "\n";
    out << "\nbounds: A100 step-time mean <= " << percentText(s.bounds.a100StepMean, 0)
        << ", all step-time mean <= " << percentText(s.bounds.allStepMean, 0)
        << ", every row <= " << percentText(s.bounds.worstRow, 0)
        << ", peak-memory mean <= " << percentText(s.bounds.memoryMean, 0)
        << ", every family's mean <= " << percentText(s.bounds.familyMean, 0) << ": "
        << (s.withinBounds() ? "met" : "NOT met") << "\n";
    for (const auto& f : s.failures)
        out << "  " << f << "\n";
    return out.str();
}

nlohmann::json validationJson(const ValidationSummary& s)
{
    nlohmann::json rows = nlohmann::json::array();
    for (const ValidationRow& r : s.rows) {
        nlohmann::json j { { "id", r.run.id }, { "source", r.run.source }, { "gpu", r.run.gpu },
            { "metric", r.run.metric == PublishedMetric::StepTime ? "step_time_s" : "tflops_per_gpu" },
            { "predicted", r.predicted }, { "published", r.run.published }, { "error", r.error }, { "fits", r.fits },
            { "memory_verdict", toString(r.memoryVerdict) }, { "predicted_step_time_s", r.predictedStepSeconds },
            { "assumptions", r.run.assumptions } };
        if (r.run.peakMemoryBytes) {
            j["peak_memory_bytes_published"] = *r.run.peakMemoryBytes;
            j["peak_memory_bytes_predicted"] = r.predictedPeakMemoryBytes;
            j["memory_error"] = r.memoryError;
        }
        rows.push_back(j);
    }
    nlohmann::json skipped = nlohmann::json::array();
    for (const auto& k : s.skipped)
        skipped.push_back({ { "id", k.id }, { "reason", k.reason } });
    nlohmann::json sources = nlohmann::json::object();
    for (const auto& [source, stats] : s.perSource)
        sources[source] = errorStatsJson(stats);
    nlohmann::json families = nlohmann::json::object();
    for (const auto& [family, stats] : s.perFamily)
        families[family] = errorStatsJson(stats);
    for (const auto& [family, count] : s.familiesNotCompared) {
        if (!families.contains(family))
            families[family] = errorStatsJson(ErrorStats {});
        families[family]["not_modelled"] = count;
    }
    nlohmann::json trends = nlohmann::json::object();
    for (const auto& [family, trend] : s.familyTrends)
        trends[family] = familyTrendJson(trend);
    return { { "rows", rows }, { "not_modelled", skipped }, { "per_source", sources }, { "per_family", families },
        { "per_family_trend", trends }, { "step_time", errorStatsJson(s.stepTime) },
        { "a100_step_time", errorStatsJson(s.a100StepTime) }, { "tflops", errorStatsJson(s.throughput) },
        { "peak_memory", errorStatsJson(s.memory) },
        { "bounds",
            { { "a100_step_mean", s.bounds.a100StepMean }, { "all_step_mean", s.bounds.allStepMean },
                { "worst_row", s.bounds.worstRow }, { "memory_mean", s.bounds.memoryMean },
                { "family_mean", s.bounds.familyMean } } },
        { "within_bounds", s.withinBounds() }, { "failures", s.failures } };
}

} // namespace parallax::core
