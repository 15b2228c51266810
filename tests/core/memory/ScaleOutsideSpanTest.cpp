// SPDX-License-Identifier: Apache-2.0
// A job outside the GPU span of its family's published runs: the step-time band widens along the family's
// weak-scaling trend on the side the trend points to, and the report says how far outside the job is.
#include "../TestScenarios.h"

#include "core/Engine.h"
#include "core/memory/PredictionBands.h"
#include "core/memory/RangeText.h"
#include "core/report/ReportJson.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace parallax::core;
using namespace parallax::test;

namespace {
const StepTimeFamily& family(const char* gpu, bool moe)
{
    const auto families = stepTimeFamilies();
    const auto it = std::find_if(families.begin(), families.end(),
        [&](const StepTimeFamily& f) { return std::string(f.gpu) == gpu && f.moe == moe; });
    EXPECT_NE(it, families.end()) << gpu;
    return *it;
}

bool hasNote(const Report& r, const std::string& text)
{
    return std::any_of(r.notes.begin(), r.notes.end(),
        [&](const Message& f) { return f.field == "step_time" && f.text.find(text) != std::string::npos; });
}
} // namespace

TEST(ScaleOutsideSpan, InsideTheSpanTheBandIsTheFamilys)
{
    const StepTimeFamily& h100 = family("h100-sxm", false);
    for (int gpus : { 0, h100.fewestGpus, 64, h100.mostGpus }) {
        const StepTimeBand b = stepTimeBand("h100-sxm", false, gpus);
        EXPECT_EQ(b.doublingsOutside, 0.0) << gpus;
        EXPECT_DOUBLE_EQ(b.band.below, h100.band.below) << gpus;
        EXPECT_DOUBLE_EQ(b.band.above, h100.band.above) << gpus;
    }
}

// H100 dense: published steps grow faster with the job than the engine's (errorPerDoubling < 0), so a job
// two doublings beyond the largest run gets a high end wider by twice the trend, and the same low end.
TEST(ScaleOutsideSpan, BeyondTheLargestRunTheTrendWidensItsSide)
{
    const StepTimeFamily& h100 = family("h100-sxm", false);
    ASSERT_LT(h100.errorPerDoubling, 0.0);
    const StepTimeBand b = stepTimeBand("h100-sxm", false, 4 * h100.mostGpus);
    EXPECT_DOUBLE_EQ(b.doublingsOutside, 2.0);
    EXPECT_EQ(b.spanEdgeGpus(), h100.mostGpus);
    EXPECT_DOUBLE_EQ(b.band.above, h100.band.above - 2.0 * h100.errorPerDoubling);
    EXPECT_DOUBLE_EQ(b.band.below, h100.band.below);
    EXPECT_DOUBLE_EQ(b.widenedBy, -2.0 * h100.errorPerDoubling);
}

// Below the smallest run the same trend says the engine is slow there: the low end widens.
TEST(ScaleOutsideSpan, BelowTheSmallestRunTheLowEndWidens)
{
    const StepTimeFamily& gb200 = family("gb200", false);
    ASSERT_LT(gb200.errorPerDoubling, 0.0);
    const StepTimeBand b = stepTimeBand("gb200", false, gb200.fewestGpus / 2);
    EXPECT_DOUBLE_EQ(b.doublingsOutside, -1.0);
    EXPECT_EQ(b.spanEdgeGpus(), gb200.fewestGpus);
    EXPECT_DOUBLE_EQ(b.band.below, gb200.band.below - gb200.errorPerDoubling);
    EXPECT_DOUBLE_EQ(b.band.above, gb200.band.above);
}

// A family without a weak-scaling series has no trend to carry: the band stays, the distance is still said.
TEST(ScaleOutsideSpan, NoTrendNoWidening)
{
    const StepTimeFamily& a100 = family("a100-sxm-80gb", false);
    ASSERT_EQ(a100.errorPerDoubling, 0.0);
    const StepTimeBand b = stepTimeBand("a100-sxm-80gb", false, 8 * a100.mostGpus);
    EXPECT_DOUBLE_EQ(b.doublingsOutside, 3.0);
    EXPECT_DOUBLE_EQ(b.band.above, a100.band.above);
    EXPECT_DOUBLE_EQ(b.band.below, a100.band.below);
    // A GPU no family measured has no span either.
    EXPECT_EQ(stepTimeBand("mi300x", false, 1 << 20).doublingsOutside, 0.0);
}

// The engine passes the job's GPU count: a GB200 rack of 64 GPUs lies below the family's smallest run, so its
// range reaches further down than the family's band, and a note says by how much.
TEST(ScaleOutsideSpan, TheReportCarriesTheWidenedRangeAndSaysWhy)
{
    const StepTimeFamily& gb200 = family("gb200", false);
    ParallelConfig p = degrees(4, 1, 16);
    p.zero = 1;
    const Scenario scenario = makeScenario("llama3-8b", "gb200", 16, 4, p, batch(1, 64, 8192));
    const Report r = evaluate(scenario);
    ASSERT_TRUE(r.valid) << (r.errors.empty() ? "" : r.errors.front().text);
    ASSERT_EQ(p.worldSize(), 64);
    const double doublings = -1.0; // 64 against 128
    EXPECT_DOUBLE_EQ(
        r.stepTimeLowSeconds, r.stepTimeSeconds * (1.0 - gb200.band.below + gb200.errorPerDoubling * -doublings));
    EXPECT_DOUBLE_EQ(r.stepTimeHighSeconds, r.stepTimeSeconds * (1.0 + gb200.band.above));
    EXPECT_TRUE(hasNote(r, "64 GPUs is 1.0 doublings below the smallest published gb200 x dense run"));
    EXPECT_TRUE(hasNote(r, "low end is widened by 0.9 points"));
    // The report names the span the range was measured on, in words and in the JSON.
    EXPECT_EQ(stepTimeRangeSourceText(r), "gb200 x dense, runs of 128-512 GPUs");
    EXPECT_EQ(reportToJson(scenario, r)["step_time_family_gpus"], nlohmann::json::array({ 128, 512 }));
    // Inside the span: no note.
    ParallelConfig inside = degrees(4, 1, 32);
    inside.zero = 1;
    const Report in = evaluate(makeScenario("llama3-8b", "gb200", 32, 4, inside, batch(1, 64, 8192)));
    ASSERT_TRUE(in.valid);
    EXPECT_FALSE(hasNote(in, "doublings"));
}
