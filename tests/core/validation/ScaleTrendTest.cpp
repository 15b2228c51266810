// SPDX-License-Identifier: Apache-2.0
// Issue 12: validate says which way each family's rows are off and whether that changes with the GPU count
// (a weak-scaling series: the same configuration on more data-parallel replicas).
#include "core/validation/ScaleTrend.h"
#include "core/validation/PublishedRun.h"
#include "core/validation/ValidationSuite.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace parallax::core;
using nlohmann::json;

namespace {

// A dense H100 row of `gpus` GPUs at TP2 (DP = gpus / 2, 4 sequences per replica), compared as `error`.
ValidationRow row(int gpus, double error, const std::string& model = "dense 7B", bool tflops = false)
{
    json r = json::parse(R"json({
      "id": "", "source": { "arxiv": null, "title": "NVIDIA DGX Cloud Benchmarking performance recipes" },
      "system": "NeMo", "run_kind": "benchmark",
      "model": { "name": "", "layers": 4, "hidden": 4096, "ffn_hidden": 11008, "heads": 32, "kv_heads": 32,
                 "vocab": 32000, "seq_len": 4096, "arch": "dense decoder" },
      "hardware": { "gpu": "NVIDIA H100 80GB HBM3 SXM", "gpu_memory_gb": 80, "gpus_per_node": 8, "gpu_count": 0 },
      "parallel": { "tp": 2, "sp": true, "pp": 1, "vpp": null, "dp": 0, "cp": 1, "ep": 1,
                    "recompute": "none", "micro_batch": 1, "global_batch": 0,
                    "schedule": "none", "precision": "bf16" },
      "measured": { "iteration_time_s": 1.0 },
      "fields_derived": [], "notes": ""
    })json");
    r["id"] = model + "_" + std::to_string(gpus) + (tflops ? "_tflops" : "");
    r["model"]["name"] = model;
    r["hardware"]["gpu_count"] = gpus;
    r["parallel"]["dp"] = gpus / 2;
    r["parallel"]["global_batch"] = 4 * (gpus / 2);
    PublishedRunConversion c = convertPublishedRun(r);
    EXPECT_TRUE(c.run) << c.reason;
    ValidationRow v;
    if (!c.run)
        return v;
    v.run = std::move(*c.run);
    v.run.metric = tflops ? PublishedMetric::TflopsPerGpu : PublishedMetric::StepTime;
    v.valid = true;
    v.error = error;
    return v;
}

constexpr const char* kFamily = "h100-sxm x dense";

} // namespace

TEST(ScaleTrend, SlopePerDoublingWithinASeries)
{
    // 8 -> 128 GPUs (four doublings), the engine 1 point further ahead of the published step each doubling.
    const std::vector<ValidationRow> rows { row(8, 0.02), row(32, 0.0), row(128, -0.02) };
    const auto trends = familyTrends(rows);
    ASSERT_TRUE(trends.count(kFamily));
    const FamilyTrend& t = trends.at(kFamily);
    EXPECT_EQ(t.rows, 3);
    EXPECT_NEAR(t.meanSignedError, 0.0, 1e-12);
    EXPECT_EQ(t.series, 1);
    EXPECT_EQ(t.seriesRows, 3);
    EXPECT_EQ(t.fewestGpus, 8);
    EXPECT_EQ(t.mostGpus, 128);
    EXPECT_EQ(t.rowsFewestGpus, 8);
    EXPECT_EQ(t.rowsMostGpus, 128);
    EXPECT_NEAR(t.slopePerDoubling, -0.01, 1e-12);
    EXPECT_NE(familyTrendText(t).find("-1.00 points per doubling of the GPUs (1 series, 3 rows, 8-128 GPUs)"),
        std::string::npos)
        << familyTrendText(t);
}

TEST(ScaleTrend, SeriesOffsetsDoNotMakeASlope)
{
    // Two models, each flat with GPUs but 10 points apart, the smaller one run at fewer GPUs: pooled over the
    // family a plain regression would see a slope; within each series there is none.
    const std::vector<ValidationRow> rows { row(8, 0.05, "a"), row(16, 0.05, "a"), row(64, -0.05, "b"),
        row(128, -0.05, "b") };
    const FamilyTrend t = familyTrends(rows).at(kFamily);
    EXPECT_EQ(t.series, 2);
    EXPECT_NEAR(t.slopePerDoubling, 0.0, 1e-12);
    EXPECT_NEAR(t.meanSignedError, 0.0, 1e-12);
}

TEST(ScaleTrend, ThroughputRowsInTheTimeSenseAndShortSpansLeftOut)
{
    // A TFLOP/s row 25% high is a step 20% short.
    const ValidationRow fast = row(8, 0.25, "dense 7B", true);
    EXPECT_NEAR(timeSenseError(fast), -0.2, 1e-12);
    // 16 and 24 GPUs span less than a doubling: no series, and the text says so.
    const FamilyTrend t = familyTrends({ row(16, 0.0), row(24, 0.1) }).at(kFamily);
    EXPECT_EQ(t.series, 0);
    EXPECT_NEAR(t.meanSignedError, 0.05, 1e-12);
    // The rows' span is kept though they make no series.
    EXPECT_EQ(t.rowsFewestGpus, 16);
    EXPECT_EQ(t.rowsMostGpus, 24);
    EXPECT_NE(
        familyTrendText(t).find("bias +5.0% over 2 rows of 16-24 GPUs; no weak-scaling series"), std::string::npos)
        << familyTrendText(t);
}

TEST(ScaleTrend, ValidateReportsIt)
{
    ValidationSummary s;
    s.rows = { row(8, 0.02), row(128, -0.02) };
    s.familyTrends = familyTrends(s.rows);
    EXPECT_NE(validationTable(s).find(
                  std::string(kFamily) + ": bias +0.0% over 2 rows of 8-128 GPUs; weak scaling -1.00 points"),
        std::string::npos);
    const json j = validationJson(s)["per_family_trend"][kFamily];
    EXPECT_NEAR(j["slope_per_doubling"].get<double>(), -0.01, 1e-12);
    EXPECT_EQ(j["series"].get<int>(), 1);
    EXPECT_EQ(j["rows_most_gpus"].get<int>(), 128);
}
