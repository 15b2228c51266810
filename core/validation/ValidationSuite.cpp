// SPDX-License-Identifier: Apache-2.0
#include "core/validation/ValidationSuite.h"

#include "core/Engine.h"
#include "core/search/NumberText.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace parallax::core {

ValidationRow evaluatePublishedRun(PublishedRun run)
{
    ValidationRow row;
    const Report rep = evaluate(run.scenario, EvaluateOptions { nullptr, true, false, true });
    row.valid = rep.valid;
    if (!rep.valid) {
        row.invalidReason = rep.errors.empty() ? "invalid" : rep.errors.front().field + ": " + rep.errors.front().text;
        row.run = std::move(run);
        return row;
    }
    row.fits = rep.fits;
    row.memoryVerdict = rep.memoryVerdict;
    row.predictedStepSeconds = rep.stepTimeSeconds;
    if (run.metric == PublishedMetric::StepTime)
        row.predicted = rep.stepTimeSeconds;
    else
        row.predicted = run.sourceFlopsPerStep / rep.stepTimeSeconds / rep.gpus / 1e12;
    row.error = row.predicted / run.published - 1.0;
    for (const StageMemory& st : rep.stages)
        row.predictedPeakMemoryBytes = std::max(row.predictedPeakMemoryBytes, st.totalBytes() - st.runtimeBytes);
    if (run.peakMemoryBytes)
        row.memoryError = row.predictedPeakMemoryBytes / *run.peakMemoryBytes - 1.0;
    row.run = std::move(run);
    return row;
}

std::string validationFamily(const PublishedRun& run)
{
    return familyName(run.gpu, run.scenario.model.isMoe());
}

ValidationSummary runValidation(const nlohmann::json& records)
{
    ValidationSummary out;
    if (!records.is_array())
        return out;
    for (const auto& record : records) {
        PublishedRunConversion c;
        ValidationRow row;
        try {
            c = convertPublishedRun(record);
            if (c.run)
                row = evaluatePublishedRun(std::move(*c.run));
        } catch (const std::exception& e) { // a field of an unexpected type: the record is malformed
            c.run.reset();
            const bool named = record.is_object() && record.contains("id") && record["id"].is_string();
            c.id = named ? record["id"].get<std::string>() : std::string("?");
            c.reason = std::string("malformed record: ") + e.what();
        }
        if (!c.run) {
            out.skipped.push_back(std::move(c));
            continue;
        }
        if (!row.valid) {
            PublishedRunConversion s;
            s.id = row.run.id;
            s.reason = "the engine rejects the configuration: " + row.invalidReason;
            ++out.familiesNotCompared[validationFamily(row.run)];
            out.skipped.push_back(std::move(s));
            continue;
        }
        out.rows.push_back(std::move(row));
    }

    std::map<std::string, std::vector<std::pair<double, std::string>>> bySource, byFamily;
    std::vector<std::pair<double, std::string>> step, a100, throughput, memory;
    for (const ValidationRow& r : out.rows) {
        bySource[r.run.source].emplace_back(r.error, r.run.id);
        byFamily[validationFamily(r.run)].emplace_back(r.error, r.run.id);
        if (r.run.metric == PublishedMetric::StepTime) {
            step.emplace_back(r.error, r.run.id);
            if (r.run.gpu.rfind("a100", 0) == 0)
                a100.emplace_back(r.error, r.run.id);
        } else {
            throughput.emplace_back(r.error, r.run.id);
        }
        if (r.run.peakMemoryBytes)
            memory.emplace_back(r.memoryError, r.run.id);
    }
    for (const auto& [source, errors] : bySource)
        out.perSource[source] = errorStatsOf(errors);
    for (const auto& [family, errors] : byFamily)
        out.perFamily[family] = errorStatsOf(errors);
    out.familyTrends = familyTrends(out.rows);
    out.stepTime = errorStatsOf(step);
    out.a100StepTime = errorStatsOf(a100);
    out.throughput = errorStatsOf(throughput);
    out.memory = errorStatsOf(memory);

    const ValidationBounds& b = out.bounds;
    // No error at all is not "within bounds" when nothing was compared (issue 16).
    if (out.rows.empty())
        out.failures.push_back("no row could be modelled (" + std::to_string(out.skipped.size())
            + " skipped): nothing was compared with the engine");
    if (out.a100StepTime.meanAbs > b.a100StepMean)
        out.failures.push_back(
            "A100 step-time mean error " + percentText(out.a100StepTime.meanAbs) + " > " + percentText(b.a100StepMean));
    if (out.stepTime.meanAbs > b.allStepMean)
        out.failures.push_back(
            "step-time mean error " + percentText(out.stepTime.meanAbs) + " > " + percentText(b.allStepMean));
    for (const auto& [family, stats] : out.perFamily) {
        if (stats.meanAbs > b.familyMean)
            out.failures.push_back(
                "family " + family + " mean error " + percentText(stats.meanAbs) + " > " + percentText(b.familyMean));
    }
    for (const ErrorStats* s : { &out.stepTime, &out.throughput }) {
        if (s->maxAbs > b.worstRow)
            out.failures.push_back(
                "row " + s->worstId + " is off by " + percentText(s->maxAbs) + " > " + percentText(b.worstRow));
    }
    if (out.memory.meanAbs > b.memoryMean)
        out.failures.push_back(
            "peak-memory mean error " + percentText(out.memory.meanAbs) + " > " + percentText(b.memoryMean));
    return out;
}

} // namespace parallax::core
