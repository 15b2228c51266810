// SPDX-License-Identifier: Apache-2.0
// The engine's memory verdict and ranges, and how evaluate --json carries them.
#include "../TestScenarios.h"

#include "core/Engine.h"
#include "core/memory/PredictionBands.h"
#include "core/memory/RangeText.h"
#include "core/report/ReportJson.h"

#include <gtest/gtest.h>

using namespace parallax::core;
using namespace parallax::test;

namespace {
Scenario seventyB()
{
    ParallelConfig p = degrees(8, 4, 2);
    p.zero = 1;
    p.vpp = 2;
    p.schedule = ScheduleKind::Interleaved1F1B;
    return makeScenario("llama3-70b", "h100-sxm", 8, 8, p, batch(1, 64, 8192));
}

// The same scenario on a GPU whose HBM is set to `hbmBytes`.
Report withHbm(double hbmBytes)
{
    Scenario s = seventyB();
    for (auto& d : s.topology.domains)
        d.gpu.hbmBytes = hbmBytes;
    return evaluate(s);
}
} // namespace

TEST(MemoryVerdict, RangesBracketThePredictions)
{
    const Report r = evaluate(seventyB());
    ASSERT_TRUE(r.valid);
    EXPECT_LT(r.peakMemoryLowBytes, r.peakMemoryBytes);
    EXPECT_GT(r.peakMemoryHighBytes, r.peakMemoryBytes);
    for (const StageMemory& st : r.stages) {
        EXPECT_LE(st.lowBytes, st.totalBytes()) << st.stage;
        EXPECT_GE(st.highBytes, st.totalBytes()) << st.stage;
    }
    EXPECT_LT(r.stepTimeLowSeconds, r.stepTimeSeconds);
    EXPECT_GT(r.stepTimeHighSeconds, r.stepTimeSeconds);
    EXPECT_EQ(r.stepTimeFamily, "h100-sxm x dense");
    const ErrorBand band = stepTimeBand("h100-sxm", false).band;
    EXPECT_DOUBLE_EQ(r.stepTimeHighSeconds, r.stepTimeSeconds * (1.0 + band.above));
}

// fits / tight / does not fit as the HBM moves past the two ends of the range; the JSON's fits is false
// only for "does not fit".
TEST(MemoryVerdict, TightWhenTheRangeStraddlesHbm)
{
    const Report base = evaluate(seventyB());
    ASSERT_TRUE(base.valid);
    const Report roomy = withHbm(base.peakMemoryHighBytes * 1.01);
    EXPECT_EQ(roomy.memoryVerdict, MemoryVerdict::Fits);
    const Report tight = withHbm(base.peakMemoryBytes);
    EXPECT_EQ(tight.memoryVerdict, MemoryVerdict::Tight);
    EXPECT_TRUE(tight.fits);
    const Report over = withHbm(base.peakMemoryLowBytes * 0.99);
    EXPECT_EQ(over.memoryVerdict, MemoryVerdict::DoesNotFit);
    EXPECT_FALSE(over.fits);

    const Scenario s = seventyB();
    const auto jt = reportToJson(s, tight);
    EXPECT_EQ(jt["memory_verdict"], "tight");
    EXPECT_EQ(jt["fits"], true);
    ASSERT_EQ(jt["peak_memory_range_bytes"].size(), 2u);
    EXPECT_DOUBLE_EQ(jt["peak_memory_range_bytes"][0].get<double>(), tight.peakMemoryLowBytes);
    ASSERT_EQ(jt["step_time_range_s"].size(), 2u);
    EXPECT_DOUBLE_EQ(jt["step_time_range_s"][1].get<double>(), tight.stepTimeHighSeconds);
    const auto jo = reportToJson(s, over);
    EXPECT_EQ(jo["memory_verdict"], "does not fit");
    EXPECT_EQ(jo["fits"], false);
    bool warned = false;
    for (const Message& m : tight.warnings)
        warned = warned || (m.field == "memory" && m.text.find("tight") != std::string::npos);
    EXPECT_TRUE(warned);
}

TEST(MemoryVerdict, RangeTextAsPrinted)
{
    EXPECT_EQ(secondsRangeText(2.36, 2.2, 2.5), "2.36 s (2.2-2.5)");
    EXPECT_EQ(secondsRangeText(0.523, 0.48, 0.561), "523 ms (480-561)");
    // A bound that rounds past its point is rounded outwards instead: the printed range holds the printed point.
    EXPECT_EQ(secondsRangeText(0.0158, 0.0158, 0.0198), "15.8 ms (15-20)");
    EXPECT_EQ(secondsRangeText(0.0158, 0.0150, 0.0161), "15.8 ms (15-16)");
    EXPECT_EQ(rateRangeText(55.26, 55.26, 60.0), "55.3 (55.2-60.0)");
    EXPECT_EQ(rateRangeText(1411.9, 1411.9, 1511.0), "1411.9 (1411-1511)");
}

// A GPU without validation data gets the widest band of its kind, and the report says so.
TEST(MemoryVerdict, UnmeasuredGpuGetsTheWidestBand)
{
    const StepTimeBand b = stepTimeBand("mi300x", false);
    EXPECT_FALSE(b.measured);
    for (const StepTimeFamily& f : stepTimeFamilies()) {
        if (!f.moe) {
            EXPECT_GE(b.band.below, f.band.below);
            EXPECT_GE(b.band.above, f.band.above);
        }
    }
    EXPECT_TRUE(stepTimeBand("h200", false).measured); // the H100 family covers the same silicon
}
