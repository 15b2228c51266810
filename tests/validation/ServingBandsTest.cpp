// SPDX-License-Identifier: Apache-2.0
// The serving ranges (core/inference/ServingBands.h) against the rows they were measured on: each band holds
// at least 80% of its metric's rows of data/published_serving.json, holds the engine's own number, and is at
// most a little wider than the rows' whole spread. A change of the serving physics that moves the rows out of
// their band fails here until the band is re-measured.
#include "core/inference/ServingBands.h"
#include "core/Scenario.h"
#include "core/inference/InferenceEngine.h"
#include "core/inference/InferenceJson.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/report/ReportJson.h"
#include "core/validation/ServingValidation.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <vector>

using namespace parallax::core;
using nlohmann::json;

namespace {

constexpr double kWiderThanSpread = 0.02;

// real / predicted of every compared figure of one metric.
std::vector<double> realOverPredicted(ServingMetric metric)
{
    std::ifstream in(std::string(PARALLAX_SOURCE_DIR) + "/data/published_serving.json");
    if (!in)
        return {};
    const ServingValidationSummary s = runServingValidation(json::parse(in));
    std::vector<double> ratios;
    for (const ServingComparison& r : s.rows) {
        if (r.metric == metric && r.predicted > 0)
            ratios.push_back(r.published / r.predicted);
    }
    return ratios;
}

void expectBandCovers(const ErrorBand& band, const std::vector<double>& ratios, const char* name)
{
    ASSERT_FALSE(ratios.empty()) << name << ": no rows";
    const auto inside = std::count_if(ratios.begin(), ratios.end(),
        [&](double x) { return x >= 1.0 - band.below - 1e-9 && x <= 1.0 + band.above + 1e-9; });
    const auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
    std::printf("%-24s %2zu rows, real/predicted %.3f-%.3f, band -%.3f +%.3f, %ld inside\n", name, ratios.size(), *lo,
        *hi, band.below, band.above, static_cast<long>(inside));
    EXPECT_GE(static_cast<double>(inside), 0.8 * static_cast<double>(ratios.size())) << name;
    EXPECT_GE(band.below, 0.0) << name;
    EXPECT_GE(band.above, 0.0) << name;
    EXPECT_LE(band.below, std::max(0.0, 1.0 - *lo) + kWiderThanSpread) << name;
    EXPECT_LE(band.above, std::max(0.0, *hi - 1.0) + kWiderThanSpread) << name;
}

} // namespace

TEST(ServingBands, EachBandCoversItsRows)
{
    expectBandCovers(servingThroughputBand(), realOverPredicted(ServingMetric::OutputTokensPerSecondPerGpu),
        "output tokens/s per GPU");
    expectBandCovers(servingTtftBand(), realOverPredicted(ServingMetric::TtftMs), "TTFT");
}

// TPOT = requests in flight / tokens per second of a replica: its band is the throughput's, inverted.
TEST(ServingBands, TpotBandIsTheThroughputBandInverted)
{
    const ErrorBand t = servingThroughputBand();
    const ErrorBand p = servingTpotBand();
    EXPECT_NEAR(1.0 - p.below, 1.0 / (1.0 + t.above), 1e-12);
    EXPECT_NEAR(1.0 + p.above, 1.0 / (1.0 - t.below), 1e-12);
}

// The engine's report and its JSON carry the ranges around their figures.
TEST(ServingBands, ReportCarriesTheRanges)
{
    const auto* info = PresetLibrary::instance().scenario("serve-70b-bf16-4xh100");
    ASSERT_TRUE(info);
    LoadError error;
    const auto s = parseScenario(info->json, error);
    ASSERT_TRUE(s) << error.text();
    const Report report = evaluateInference(*s);
    ASSERT_TRUE(report.inference);
    const InferenceReport& r = *report.inference;
    EXPECT_DOUBLE_EQ(r.ttftLowSeconds, servingTtftBand().low(r.ttftSeconds));
    EXPECT_DOUBLE_EQ(r.ttftHighSeconds, servingTtftBand().high(r.ttftSeconds));
    EXPECT_LT(r.tpotLowSeconds, r.tpotSeconds);
    EXPECT_GT(r.tpotHighSeconds, r.tpotSeconds);
    EXPECT_LT(r.tokensPerSecondPerGpuLow, r.tokensPerSecondPerGpu);
    EXPECT_GT(r.tokensPerSecondPerGpuHigh, r.tokensPerSecondPerGpu);
    const json j = inferenceReportToJson(r);
    ASSERT_TRUE(j.contains("tpot_range_s"));
    EXPECT_DOUBLE_EQ(j["tpot_range_s"][0].get<double>(), r.tpotLowSeconds);
    EXPECT_DOUBLE_EQ(j["ttft_range_s"][1].get<double>(), r.ttftHighSeconds);
    EXPECT_DOUBLE_EQ(j["tokens_per_s_per_gpu_range"][1].get<double>(), r.tokensPerSecondPerGpuHigh);
    // The top-level verdict of `evaluate --json` agrees with the serving one (it read "does not fit" beside
    // a serving "fits" until 2026-12-05).
    const json top = reportToJson(*s, report);
    EXPECT_EQ(top["memory_verdict"], j["memory_verdict"]);
    EXPECT_EQ(top["fits"].get<bool>(), r.verdict != ServingVerdict::DoesNotFit);
}
