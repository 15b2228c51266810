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
