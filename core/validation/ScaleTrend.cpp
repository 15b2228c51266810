// SPDX-License-Identifier: Apache-2.0
#include "core/validation/ScaleTrend.h"

#include "core/search/NumberText.h"
#include "core/validation/ValidationSuite.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <tuple>

namespace parallax::core {

namespace {

// What a weak-scaling series holds fixed: everything of the configuration but the GPU count and DP.
auto seriesKey(const ValidationRow& row)
{
    const Scenario& s = row.run.scenario;
    const ParallelConfig& p = s.parallel;
    const TrainingConfig& t = s.training;
    const double perReplica = static_cast<double>(t.globalBatch) / std::max(1, p.dp);
    return std::tuple(row.run.source, row.run.system, row.run.gpu, s.model.name, s.model.layers,
        static_cast<int>(t.dtype), static_cast<int>(row.run.metric),
        std::tuple(p.tp, p.cp, p.pp, p.vpp, p.ep, p.etp, p.zero, static_cast<int>(p.schedule)), t.microBatch,
        s.seqLen(), static_cast<int>(t.recompute), perReplica);
}

} // namespace

double timeSenseError(const ValidationRow& row)
{
    return row.run.metric == PublishedMetric::StepTime ? row.error : 1.0 / (1.0 + row.error) - 1.0;
}

std::map<std::string, FamilyTrend> familyTrends(const std::vector<ValidationRow>& rows)
{
    std::map<std::string, FamilyTrend> out;
    using Point = std::pair<double, double>; // log2(GPUs), error
    std::map<std::string, std::map<decltype(seriesKey(rows.front())), std::vector<Point>>> seriesOf;
    std::map<std::string, std::vector<int>> gpusOf;
    for (const ValidationRow& r : rows) {
        const std::string family = validationFamily(r.run);
        FamilyTrend& t = out[family];
        const double e = timeSenseError(r);
        ++t.rows;
        t.meanSignedError += e;
        const int gpus = r.run.scenario.topology.gpuCount();
        if (gpus <= 0)
            continue;
        t.rowsFewestGpus = t.rowsFewestGpus ? std::min(t.rowsFewestGpus, gpus) : gpus;
        t.rowsMostGpus = std::max(t.rowsMostGpus, gpus);
        seriesOf[family][seriesKey(r)].emplace_back(std::log2(gpus), e);
    }
    for (auto& [family, t] : out) {
        t.meanSignedError /= t.rows;
        double sxy = 0, sxx = 0;
        for (const auto& [key, points] : seriesOf[family]) {
            std::set<double> counts;
            double mx = 0, my = 0;
            for (const auto& [x, y] : points) {
                counts.insert(x);
                mx += x;
                my += y;
            }
            // A slope over less than a doubling is mostly the rows' own noise (two tables of one paper).
            if (*counts.rbegin() - *counts.begin() < 1)
                continue;
            mx /= static_cast<double>(points.size());
            my /= static_cast<double>(points.size());
            for (const auto& [x, y] : points) {
                sxy += (x - mx) * (y - my);
                sxx += (x - mx) * (x - mx);
            }
            ++t.series;
            t.seriesRows += static_cast<int>(points.size());
            const int lo = static_cast<int>(std::lround(std::exp2(*counts.begin())));
            const int hi = static_cast<int>(std::lround(std::exp2(*counts.rbegin())));
            t.fewestGpus = t.fewestGpus ? std::min(t.fewestGpus, lo) : lo;
            t.mostGpus = std::max(t.mostGpus, hi);
        }
        t.slopePerDoubling = sxx > 0 ? sxy / sxx : 0;
    }
    return out;
}

std::string familyTrendText(const FamilyTrend& t)
{
    std::string text = "bias " + signedPercentText(t.meanSignedError) + " over " + std::to_string(t.rows)
        + (t.rows == 1 ? " row" : " rows") + " of " + std::to_string(t.rowsFewestGpus) + "-"
        + std::to_string(t.rowsMostGpus) + " GPUs; ";
    if (t.series == 0)
        return text + "no weak-scaling series";
    char slope[32];
    std::snprintf(slope, sizeof slope, "%+.2f", 100 * t.slopePerDoubling);
    return text + "weak scaling " + slope + " points per doubling of the GPUs (" + std::to_string(t.series)
        + " series, " + std::to_string(t.seriesRows) + " rows, " + std::to_string(t.fewestGpus) + "-"
        + std::to_string(t.mostGpus) + " GPUs)";
}

nlohmann::json familyTrendJson(const FamilyTrend& t)
{
    return { { "rows", t.rows }, { "rows_fewest_gpus", t.rowsFewestGpus }, { "rows_most_gpus", t.rowsMostGpus },
        { "mean_signed_time_error", t.meanSignedError }, { "series", t.series }, { "series_rows", t.seriesRows },
        { "fewest_gpus", t.fewestGpus }, { "most_gpus", t.mostGpus }, { "slope_per_doubling", t.slopePerDoubling } };
}

} // namespace parallax::core
