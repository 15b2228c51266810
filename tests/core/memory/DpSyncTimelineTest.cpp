// SPDX-License-Identifier: Apache-2.0
// The engine places the data-parallel collectives on the simulated timeline (core/memory/MemoryModel.cpp,
// dpSyncSeconds): the result does not depend on whether the report keeps the op list, and the per-chunk,
// per-micro-batch placement hides more than one micro-batch's windows do.
#include "../TestScenarios.h"
#include "core/Engine.h"

#include <gtest/gtest.h>

using namespace parallax;

TEST(DpSyncTimeline, KeepingTheTimelineDoesNotChangeTheStep)
{
    const core::Scenario s = test::presetScenario("llama3-405b-16kxh100");
    core::EvaluateOptions kept;
    kept.keepTimeline = true;
    core::EvaluateOptions dropped;
    dropped.keepTimeline = false;
    const core::Report a = core::evaluate(s, kept);
    const core::Report b = core::evaluate(s, dropped);
    ASSERT_TRUE(a.valid && b.valid);
    EXPECT_FALSE(a.schedule.ops.empty());
    EXPECT_TRUE(b.schedule.ops.empty());
    EXPECT_DOUBLE_EQ(a.step.dpExposedSeconds, b.step.dpExposedSeconds);
    EXPECT_DOUBLE_EQ(a.stepTimeSeconds, b.stepTimeSeconds);
}

// Llama 3 405B's ZeRO-2 (FSDP) reduce-scatters every micro-batch's fp32 gradients over 128 ranks; on the
// timeline each runs behind the following micro-batches' work, where charging each against its own
// backward alone (the closed-form path's windows) exposes more.
TEST(DpSyncTimeline, ZeroTwoReductionsHideBehindLaterMicrobatches)
{
    const core::Scenario s = test::presetScenario("llama3-405b-16kxh100");
    ASSERT_EQ(s.parallel.zero, 2);
    core::EvaluateOptions closedForm;
    closedForm.simulateSchedule = false;
    const core::Report simulated = core::evaluate(s);
    const core::Report windows = core::evaluate(s, closedForm);
    ASSERT_TRUE(simulated.valid && windows.valid);
    EXPECT_GT(simulated.comm.dpTotalSeconds, 1.0);
    EXPECT_LT(simulated.step.dpExposedSeconds, 0.9 * windows.step.dpExposedSeconds);
}

// Megatron-Core sizes its gradient buckets at max(40M, 1M x DP) parameters (core/costs/GradBuckets.h): at
// DP = 1024 a Llama 3 8B replica's 8 B parameters make eight buckets of 1 B, where DP = 8 makes 200 of 40 M,
// and the last bucket's reduce-scatter and the first one's all-gather wait for the backward's end and the
// forward's start. The same per-GPU work on 128x the GPUs exposes more of its (barely larger) sync.
TEST(DpSyncTimeline, LargerDataParallelismMeansCoarserBuckets)
{
    auto scenario = [](int nodes) {
        core::ParallelConfig p = test::degrees(1, 1, nodes * 8);
        p.zero = 1;
        return test::makeScenario(
            "llama3-8b", "h100-sxm", nodes, 8, p, test::batch(1, nodes * 8 * 8, 8192, core::Recompute::None));
    };
    const core::Report small = core::evaluate(scenario(1));
    const core::Report large = core::evaluate(scenario(128));
    ASSERT_TRUE(small.valid && large.valid);
    // The collectives grow by the NVLink-to-IB step, the exposure by much more.
    EXPECT_GT(large.step.dpExposedSeconds - small.step.dpExposedSeconds,
        0.1 * (large.comm.dpTotalSeconds - small.comm.dpTotalSeconds) + 0.05 * large.comm.dpTotalSeconds);

    // --ddp-bucket-size, both ways from the default: 4 B buckets (two for the replica) expose more of the
    // reduction behind the backward's end; 1 M buckets (8000 ring collectives over 128 nodes, each paying
    // its latency) far more: the reason Megatron-Core grows the bucket with DP.
    core::Scenario coarse = scenario(128);
    coarse.parallel.ddpBucketSize = 4000000000;
    core::Scenario tiny = scenario(128);
    tiny.parallel.ddpBucketSize = 1000000;
    const core::Report coarseReport = core::evaluate(coarse);
    const core::Report tinyReport = core::evaluate(tiny);
    ASSERT_TRUE(coarseReport.valid && tinyReport.valid);
    EXPECT_GT(coarseReport.step.dpExposedSeconds, large.step.dpExposedSeconds + 0.02);
    EXPECT_GT(tinyReport.step.dpExposedSeconds, 2 * large.step.dpExposedSeconds);
    EXPECT_GT(tinyReport.comm.dpTotalSeconds, 2 * large.comm.dpTotalSeconds);
    // A one-parameter bucket is legal and still evaluates (entries of many buckets each).
    core::Scenario single = scenario(128);
    single.parallel.ddpBucketSize = 1;
    const core::Report singleReport = core::evaluate(single);
    ASSERT_TRUE(singleReport.valid);
    EXPECT_GT(singleReport.comm.dpTotalSeconds, 100 * tinyReport.comm.dpTotalSeconds);
}
