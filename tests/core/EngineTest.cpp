// SPDX-License-Identifier: Apache-2.0
#include "TestScenarios.h"

#include "core/Engine.h"
#include "core/Units.h"

#include <gtest/gtest.h>

using namespace parallax::core;
using namespace parallax::test;

namespace {
bool hasWarning(const Report& r, const std::string& field, const std::string& text)
{
    for (const auto& w : r.warnings) {
        if (w.field == field && w.text.find(text) != std::string::npos)
            return true;
    }
    return false;
}
} // namespace

// The cardinal warning: a TP group that leaves its NVLink domain.
TEST(Engine, TpCrossingIbIsWarned)
{
    Scenario s = makeScenario("llama3-8b", "h100-sxm", 2, 4, degrees(8, 1, 1), batch(1, 8, 4096));
    Report r = evaluate(s);
    ASSERT_TRUE(r.valid);
    EXPECT_EQ(r.groupsCrossingDomains[static_cast<int>(Dim::Tp)], 1);
    EXPECT_TRUE(hasWarning(r, "parallel.tp", "TP group 0 spans node0 .. node1: its all-reduces run over IB"));
    const double crossingStep = r.stepTimeSeconds;
    s.parallel = degrees(4, 1, 2);
    r = evaluate(s);
    ASSERT_TRUE(r.valid);
    EXPECT_EQ(r.groupsCrossingDomains[static_cast<int>(Dim::Tp)], 0);
    EXPECT_FALSE(hasWarning(r, "parallel.tp", "spans"));
    EXPECT_LT(r.stepTimeSeconds, crossingStep);
}

TEST(Engine, OutOfMemoryIsReportedWithTheMargin)
{
    Scenario s = makeScenario("llama3-70b", "h100-sxm", 1, 8, degrees(8, 1, 1), batch(1, 8, 8192, Recompute::None));
    const Report r = evaluate(s);
    ASSERT_TRUE(r.valid);
    EXPECT_FALSE(r.fits);
    EXPECT_TRUE(hasWarning(r, "memory", "out of memory by"));
}

TEST(Engine, ReportIsConsistent)
{
    ParallelConfig p = degrees(8, 8, 1);
    p.vpp = 2;
    p.schedule = ScheduleKind::Interleaved1F1B;
    Scenario s = makeScenario("llama3-70b", "h100-sxm", 8, 8, p, batch(1, 512, 8192));
    const Report r = evaluate(s);
    ASSERT_TRUE(r.valid);
    EXPECT_EQ(r.microbatches, 512);
    EXPECT_EQ(r.stages.size(), 8u);
    EXPECT_NEAR(r.tokensPerSecond * r.stepTimeSeconds, 512.0 * 8192, 1e-3);
    EXPECT_NEAR(r.mfu, r.tflopsPerGpu * kTera / r.peakFlopsPerSecond, 1e-12);
    EXPECT_GT(r.hfu, r.mfu); // selective recompute adds the attention core
    EXPECT_GT(r.mfu, 0.2);
    EXPECT_LT(r.mfu, 0.75);
    EXPECT_GE(r.stepTimeSeconds, r.step.pipelineSeconds);
    // Interleaved, v=2, m=512, p=8: the bubble is near (p-1)/(v m + p - 1) = 0.68%, raised by p2p.
    EXPECT_GT(r.bubbleFraction, 7.0 / (2 * 512 + 7) * 0.9);
    EXPECT_LT(r.bubbleFraction, 0.1);
}

// More micro-batches shrink the bubble; a larger micro-batch raises activation memory.
TEST(Engine, BubbleAndActivationTrends)
{
    ParallelConfig p = degrees(8, 4, 1);
    p.schedule = ScheduleKind::OneFOneB;
    Scenario s = makeScenario("llama3-70b", "h100-sxm", 4, 8, p, batch(1, 8, 4096));
    const Report few = evaluate(s);
    s.training.globalBatch = 64;
    const Report many = evaluate(s);
    ASSERT_TRUE(few.valid && many.valid);
    EXPECT_GT(few.bubbleFraction, many.bubbleFraction);
    EXPECT_NEAR(few.bubbleFraction, 3.0 / (8 + 3), 0.05);
    s.training.microBatch = 2;
    const Report bigger = evaluate(s);
    EXPECT_NEAR(bigger.stages[0].activationsBytes / many.stages[0].activationsBytes, 2.0, 0.01);
}

TEST(Engine, InvalidScenarioStillReportsParameters)
{
    Scenario s = makeScenario("llama3-70b", "h100-sxm", 8, 8, degrees(8, 8, 2), batch(1, 64, 4096));
    const Report r = evaluate(s);
    EXPECT_FALSE(r.valid);
    EXPECT_FALSE(r.errors.empty());
    EXPECT_NEAR(r.paramsTotal / 70.6e9, 1.0, 0.01);
}

// The timeline carries each op's exposed TP communication (part of its duration) so that the Gantt
// can show it; uniform unit-time schedules have none.
TEST(Engine, TimelineCarriesExposedCommunication)
{
    ParallelConfig p = degrees(8, 4, 1);
    p.schedule = ScheduleKind::OneFOneB;
    Scenario s = makeScenario("llama3-70b", "h100-sxm", 4, 8, p, batch(1, 8, 4096));
    const Report r = evaluate(s);
    ASSERT_TRUE(r.valid);
    int withComm = 0;
    for (const TimedOp& op : r.schedule.ops) {
        EXPECT_LE(op.commSeconds, op.end - op.start + 1e-12);
        if (op.kind == OpKind::Forward || op.kind == OpKind::Backward)
            withComm += op.commSeconds > 0;
    }
    EXPECT_EQ(withComm, static_cast<int>(r.schedule.ops.size())); // TP=8: every F and B all-reduces
    SimulationInput uniform;
    uniform.shape = { ScheduleKind::OneFOneB, 4, 8, 1 };
    for (const TimedOp& op : simulate(uniform).ops)
        EXPECT_EQ(op.commSeconds, 0.0);
}
