// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace parallax::core {

struct ValidationRow;

// Which way a family's rows are off, and whether that changes with the GPU count. Errors here are in
// the time sense whatever the row's metric: > 0 when the engine's step is longer than published (a
// TFLOP/s row's published / predicted - 1). A weak-scaling series is rows of one source that differ
// only in the GPU count and the DP degree, with the same sequences per DP replica (the dgxc recipes'
// tables); its trend says whether the engine misses a cost that grows with the job (issue 12: a
// constant offset and a growing one call for different physics).
struct FamilyTrend {
    int rows = 0;
    int rowsFewestGpus = 0; // the GPU counts the rows span (a job outside them is extrapolated:
    int rowsMostGpus = 0; // core/memory/PredictionBands.h)
    double meanSignedError = 0;
    int series = 0; // weak-scaling series whose GPU counts span at least a doubling
    int seriesRows = 0;
    int fewestGpus = 0;
    int mostGpus = 0;
    // The pooled least-squares slope of the error over log2(GPUs) within the series (each series
    // centred on its own mean, so a series' offset does not count): the change per doubling.
    double slopePerDoubling = 0;
};

// The time-sense error of a row (its own error for a step-time row).
double timeSenseError(const ValidationRow& row);
// Per family (validationFamily), from the compared rows.
std::map<std::string, FamilyTrend> familyTrends(const std::vector<ValidationRow>& rows);
// "bias +1.6% over 101 rows of 8-6144 GPUs; weak scaling -0.6 points per doubling of the GPUs (14 series, 80 rows,
// 8-2048 GPUs)", or "...; no weak-scaling series".
std::string familyTrendText(const FamilyTrend& t);
nlohmann::json familyTrendJson(const FamilyTrend& t);

} // namespace parallax::core
