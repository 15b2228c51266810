// SPDX-License-Identifier: Apache-2.0
// The data-parallel sync placed on a rank's simulated timeline (core/costs/DataParallelSync.h): per-chunk
// reductions under interleaving, the cooldown slack of the later pipeline ranks, the gather that only
// delays a rank's first forward, and ZeRO-2's per-micro-batch reduce-scatters running behind the next
// micro-batches.
#include "core/costs/DataParallelSync.h"

#include <gtest/gtest.h>

using namespace parallax::core;

namespace {

// One bucket reduced `gradSeconds` after each ready time, and one gathered before `needed`.
ChunkDpSync chunk(double gradSeconds, std::vector<double> ready, double gatherSeconds = 0, double needed = 0)
{
    ChunkDpSync c;
    for (double r : ready)
        c.grads.push_back({ r, gradSeconds });
    if (gatherSeconds > 0)
        c.gathers.push_back({ needed, gatherSeconds });
    c.firstForwardStartSeconds = needed;
    return c;
}

} // namespace

// Two interleaved chunks of 1 s reductions: chunk 1 finished its last backward long before the end, so
// only chunk 0's reduction (ready 0.5 s before the makespan) is exposed, 0.5 s plus the tax on the
// hidden 1.5 s. One window for the whole rank (the old model) exposes 1 s of the 2 s.
TEST(PipelinedDataParallelSync, InterleavingExposesOnlyTheLastChunk)
{
    const std::vector<ChunkDpSync> chunks = { chunk(1.0, { 9.5 }), chunk(1.0, { 2.0 }) };
    const DpSyncTimes t = pipelinedDataParallelSync(chunks, 10.0, true);
    EXPECT_DOUBLE_EQ(t.totalSeconds, 2.0);
    EXPECT_NEAR(t.exposedSeconds, 0.5 + kOverlapComputeTax * 1.5, 1e-12);
    DpCollectives whole;
    whole.reduceScatter = 2.0;
    EXPECT_GT(dataParallelSync(1, 8, whole, 0.0, 1.0).exposedSeconds, t.exposedSeconds + 0.4);
}

// A later pipeline rank ends its last backward 3 s before the first rank does: its 2 s reduction fits
// in that cooldown bubble, with or without --overlap-grad-reduce (without it, it starts at the rank's end).
TEST(PipelinedDataParallelSync, CooldownBubbleHidesALaterRanksReduction)
{
    EXPECT_NEAR(
        pipelinedDataParallelSync({ chunk(2.0, { 6.5 }) }, 10.0, true).exposedSeconds, kOverlapComputeTax * 2.0, 1e-12);
    EXPECT_DOUBLE_EQ(pipelinedDataParallelSync({ chunk(2.0, { 7.0 }) }, 10.0, false).exposedSeconds, 0.0);
    // The rank that ends the pipeline has no such slack: all of it after its end without overlap.
    EXPECT_DOUBLE_EQ(pipelinedDataParallelSync({ chunk(2.0, { 10.0 }) }, 10.0, false).exposedSeconds, 2.0);
}

// The parameter gather delays a rank only past the point its first forward needs it: a rank whose first
// input arrives at 2 s hides a 1.5 s gather; rank 0 (first forward at 0) waits for all of it.
TEST(PipelinedDataParallelSync, GatherDelaysOnlyPastTheFirstForward)
{
    const std::vector<ChunkDpSync> later = { chunk(0.0, {}, 1.5, 2.0) };
    EXPECT_DOUBLE_EQ(pipelinedDataParallelSync(later, 10.0, false).exposedSeconds, 0.0);
    const std::vector<ChunkDpSync> first = { chunk(0.0, {}, 1.5, 0.0) };
    EXPECT_DOUBLE_EQ(pipelinedDataParallelSync(first, 10.0, false).exposedSeconds, 1.5);
    // A bucket needed half a second into the forward waits 1 s; the hidden half second pays the tax.
    const std::vector<ChunkDpSync> bucket = { chunk(0.0, {}, 1.5, 0.5) };
    EXPECT_NEAR(pipelinedDataParallelSync(bucket, 10.0, true).exposedSeconds, 1.0 + kOverlapComputeTax * 0.5, 1e-12);
}

// ZeRO-2 (arXiv:1910.02054 sec. 5.2) reduce-scatters every micro-batch's gradients; in the 1F1B steady
// state each runs behind the next micro-batch's forward and backward, so four 1 s reductions 2 s apart end
// with the pipeline. Charging each against its own backward (0.5 s) alone exposes more than 2 s.
TEST(PipelinedDataParallelSync, ZeroTwoReductionsRunBehindLaterMicrobatches)
{
    const std::vector<ChunkDpSync> chunks = { chunk(1.0, { 0.0, 2.0, 4.0, 6.0 }) };
    const DpSyncTimes t = pipelinedDataParallelSync(chunks, 7.0, true);
    EXPECT_DOUBLE_EQ(t.totalSeconds, 4.0);
    EXPECT_NEAR(t.exposedSeconds, kOverlapComputeTax * 4.0, 1e-12);
    DpCollectives c;
    c.reduceScatter = 1.0;
    EXPECT_GT(dataParallelSync(2, 4, c, 0.0, 0.5).exposedSeconds, 2.0);
}
