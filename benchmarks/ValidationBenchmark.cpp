// SPDX-License-Identifier: Apache-2.0
#include "core/validation/ValidationSuite.h"

#include <benchmark/benchmark.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

using namespace parallax::core;

namespace {
// The whole published-runs comparison (`parallax-cli validate`): convert every record, simulate each
// run's schedule, compute the statistics; the file is read once, outside the timed loop.
void BM_ValidatePublishedRuns(benchmark::State& state)
{
    std::ifstream in(std::string(PARALLAX_SOURCE_DIR) + "/data/published_runs_train.json");
    if (!in)
        throw std::runtime_error("data/published_runs_train.json not found");
    const nlohmann::json records = nlohmann::json::parse(in);
    std::size_t rows = 0;
    for (auto _ : state) {
        const ValidationSummary s = runValidation(records);
        rows = s.rows.size();
        benchmark::DoNotOptimize(s.stepTime.meanAbs);
    }
    state.counters["runs"] = static_cast<double>(rows);
}
BENCHMARK(BM_ValidatePublishedRuns)->Unit(benchmark::kMillisecond);
} // namespace
