// SPDX-License-Identifier: Apache-2.0
// The engine against published training runs (data/published_runs_train.json, a copy of
// ../shared/data/published_runs_train.json): every record is modelled or listed with its reason,
// and the errors stay within the bounds of issue 8. The data and its caveats: data/README.md.
#include "core/Engine.h"
#include "core/validation/ValidationSuite.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <map>

using namespace parallax::core;
using nlohmann::json;

namespace {

json readJson(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        return json();
    return json::parse(in);
}

const json& publishedRuns()
{
    static const json runs = readJson(std::string(PARALLAX_SOURCE_DIR) + "/data/published_runs_train.json");
    return runs;
}

const ValidationSummary& summary()
{
    static const ValidationSummary s = runValidation(publishedRuns());
    return s;
}

} // namespace

TEST(PublishedRuns, ErrorsWithinTheStatedBounds)
{
    ASSERT_TRUE(publishedRuns().is_array()) << "data/published_runs_train.json is missing or not an array";
    const ValidationSummary& s = summary();
    std::printf("%s", validationTable(s).c_str());
    // Issue 8: mean absolute step-time error <= 5% on A100 rows and <= 10% over all rows with a step
    // time, no row (step time or TFLOP/s) worse than 25%, peak memory <= 10% where printed.
    EXPECT_LE(s.a100StepTime.meanAbs, 0.05);
    EXPECT_LE(s.stepTime.meanAbs, 0.10);
    EXPECT_LE(s.stepTime.maxAbs, 0.25) << s.stepTime.worstId;
    EXPECT_LE(s.throughput.maxAbs, 0.25) << s.throughput.worstId;
    EXPECT_LE(s.memory.meanAbs, 0.10);
    EXPECT_TRUE(s.withinBounds());
    // Regression guard, tighter than the goals: measured on 2026-12-04 at 4.2% (A100), 4.1% (all 234 rows,
    // with the 18 Grok-1 and 6 GB200 rows; 4.3% before the LM head ran in bf16 under fp8), 17.5% (worst step
    // time, DeepSpeed ZeRO-3 on 384 A100; the 8-GPU fp8 Grok-1 proxy was 21.3% before), 18.4% (worst TFLOP/s
    // row), 3.6% (memory mean), 15.6% (worst memory). 2026-12-05: all rows 4.63% with Megatron-Core's gradient
    // buckets (the last one exposed; docs/validation.md), worst TFLOP/s row 19.7%; 4.49% with the GB200 GEMM
    // rate from the re-measured MSMF table (slowest GPU).
    EXPECT_LE(s.a100StepTime.meanAbs, 0.047);
    EXPECT_LE(s.stepTime.meanAbs, 0.046);
    EXPECT_LE(s.stepTime.maxAbs, 0.19) << s.stepTime.worstId;
    EXPECT_LE(s.memory.meanAbs, 0.042);
    EXPECT_LE(s.memory.maxAbs, 0.16) << s.memory.worstId;
}

// Issue 12: every compared family (GPU x dense/MoE) within 10% mean; the 18 Grok-1 MoE rows on H100, bf16 and
// fp8, are compared (no Grok-specific factor: Megatron-Core's etp = tp expert layout), and so are the six
// Llama 3.1 405B rows on GB200 NVL72.
TEST(PublishedRuns, FamiliesWithinTheirBounds)
{
    const ValidationSummary& s = summary();
    for (const auto& [family, stats] : s.perFamily)
        EXPECT_LE(stats.meanAbs, s.bounds.familyMean) << family;
    ASSERT_TRUE(s.perFamily.count("h100-sxm x MoE"));
    EXPECT_EQ(s.perFamily.at("h100-sxm x MoE").count, 18);
    EXPECT_EQ(s.familiesNotCompared.count("h100-sxm x MoE"), 0u);
    EXPECT_LE(s.perFamily.at("h100-sxm x MoE").meanAbs, 0.10);
    // Regression guard: 5.5% since the LM head and router run in bf16 under fp8 (7.1% before).
    EXPECT_LE(s.perFamily.at("h100-sxm x MoE").meanAbs, 0.06);
    // GB200: GEMM rates from the sustained-clock matmul microbenchmark (presets/gpus/gb200.json).
    ASSERT_TRUE(s.perFamily.count("gb200 x dense"));
    EXPECT_EQ(s.perFamily.at("gb200 x dense").count, 6);
    EXPECT_LE(s.perFamily.at("gb200 x dense").meanAbs, 0.10);
    // Regression guard: 4.0% since the MSMF table's slowest-GPU figures (9.4% with its earlier means).
    EXPECT_LE(s.perFamily.at("gb200 x dense").meanAbs, 0.05);
}

// Nothing is dropped silently: each record is either compared or listed with the reason.
TEST(PublishedRuns, EveryRecordIsComparedOrExplained)
{
    const ValidationSummary& s = summary();
    EXPECT_EQ(s.rows.size() + s.skipped.size(), publishedRuns().size());
    EXPECT_GE(s.rows.size(), 220u); // a converter regression would silently shrink the comparison
    EXPECT_GE(s.memory.count, 80);
    for (const auto& k : s.skipped)
        EXPECT_FALSE(k.reason.empty()) << k.id;
    // Every source of the file takes part.
    for (const char* source :
        { "arXiv:2104.04473", "arXiv:2401.10241", "arXiv:2211.05100", "dgxc-benchmarking", "Megatron-LM README" })
        EXPECT_TRUE(s.perSource.count(source)) << source;
}

// The repository's copy is the shared data set (when ../shared sits beside the checkout).
TEST(PublishedRuns, RepositoryCopyMatchesTheSharedData)
{
    const json shared = readJson(std::string(PARALLAX_SHARED_DIR) + "/data/published_runs_train.json");
    if (shared.is_null())
        GTEST_SKIP() << "../shared/data not beside the repository";
    EXPECT_EQ(shared, publishedRuns());
}

// Per-pass times against the profile of arXiv:2401.10241 Table 6 (the bubble-reference records):
// the forward, input-gradient and weight-gradient passes of one micro-batch on a middle stage.
TEST(PublishedRuns, ZeroBubblePassTimesMatchTheProfile)
{
    const json& runs = publishedRuns();
    std::map<std::string, json> byId;
    for (const json& r : runs)
        byId[r.value("id", "")] = r;
    const std::pair<const char*, const char*> cases[] = {
        { "zerobubble_bubble_ref_1.5B_p8_m24", "zerobubble_1.5B_p8_m24_ZB-1p" },
        { "zerobubble_bubble_ref_6.2B_p8_m24", "zerobubble_6.2B_p8_m24_ZB-1p" },
        { "zerobubble_bubble_ref_14.6B_p16_m48", "zerobubble_14.6B_p16_m48_ZB-1p" },
        { "zerobubble_bubble_ref_28.3B_p32_m96", "zerobubble_28.3B_p32_m96_ZB-1p" },
    };
    for (const auto& [ref, run] : cases) {
        ASSERT_TRUE(byId.count(ref) && byId.count(run)) << ref;
        const json& profile = byId[ref]["measured"]["profiled_ms"];
        const PublishedRunConversion c = convertPublishedRun(byId[run]);
        ASSERT_TRUE(c.run) << c.reason;
        const Report rep = evaluate(c.run->scenario);
        ASSERT_TRUE(rep.valid);
        double f = 0, b = 0, w = 0;
        for (const TimedOp& op : rep.schedule.ops) {
            if (op.rank != 1 || op.microbatch != 0)
                continue;
            const double ms = 1e3 * (op.end - op.start);
            (op.kind == OpKind::Forward ? f : op.kind == OpKind::BackwardInput ? b : w) = ms;
        }
        std::printf("%-40s F %.2f/%.2f  B %.2f/%.2f  W %.2f/%.2f ms (engine/profile)\n", run, f,
            profile["T_F"].get<double>(), b, profile["T_B"].get<double>(), w, profile["T_W"].get<double>());
        EXPECT_NEAR(f / profile["T_F"].get<double>(), 1.0, 0.10) << run;
        EXPECT_NEAR(b / profile["T_B"].get<double>(), 1.0, 0.10) << run;
        EXPECT_NEAR(w / profile["T_W"].get<double>(), 1.0, 0.10) << run;
    }
}
