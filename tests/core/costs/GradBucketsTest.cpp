// SPDX-License-Identifier: Apache-2.0
// Megatron-Core's gradient buckets (core/costs/GradBuckets.h): the default size grows with the data-parallel
// size, full buckets fill from the last layer back, the input embedding rides in the last one, and a chunk
// that is not bucketed reduces as a whole after its backward.
#include "core/costs/GradBuckets.h"
#include "core/costs/DataParallelSync.h"

#include <gtest/gtest.h>

using namespace parallax::core;

// distributed_data_parallel.py: max(40M, 1M x DP) parameters.
TEST(GradBuckets, DefaultSizeGrowsWithDataParallelism)
{
    EXPECT_DOUBLE_EQ(megatronDefaultBucketParams(8), 40e6);
    EXPECT_DOUBLE_EQ(megatronDefaultBucketParams(40), 40e6);
    EXPECT_DOUBLE_EQ(megatronDefaultBucketParams(1024), 1024e6);
    // The engine passes dp without cp; a --ddp-bucket-size wins.
    EXPECT_DOUBLE_EQ(ddpBucketParams(0, 64), 64e6);
    EXPECT_DOUBLE_EQ(ddpBucketParams(25000000, 1024), 25e6);
}

// 1000 layer parameters in buckets of 400: two full ones, ready 40% and 80% into the backward (and needed
// 60% and 20% into the forward), then the 200 left with the 300 of the embedding, ready at the end and
// needed at the forward's start.
TEST(GradBuckets, FullBucketsThenTheRemainderWithTheEmbedding)
{
    const std::vector<GradBucket> b = gradBuckets(1000, 300, 400);
    ASSERT_EQ(b.size(), 3u);
    EXPECT_DOUBLE_EQ(b[0].params, 400);
    EXPECT_DOUBLE_EQ(b[0].readyFraction, 0.4);
    EXPECT_DOUBLE_EQ(b[0].neededFraction, 0.6);
    EXPECT_DOUBLE_EQ(b[1].readyFraction, 0.8);
    EXPECT_DOUBLE_EQ(b[1].neededFraction, 0.2);
    EXPECT_DOUBLE_EQ(b[2].params, 500);
    EXPECT_DOUBLE_EQ(b[2].readyFraction, 1.0);
    EXPECT_DOUBLE_EQ(b[2].neededFraction, 0.0);
    double total = 0;
    for (const GradBucket& x : b)
        total += x.params * x.count;
    EXPECT_DOUBLE_EQ(total, 1300);
}

// Chunks after the first and pipeline ranks above 0 (bucket size 0), and chunks smaller than a bucket, are
// one bucket: everything ready at the end of the backward, needed at the start of the forward.
TEST(GradBuckets, UnbucketedChunkIsOneBucket)
{
    for (const std::vector<GradBucket>& b : { gradBuckets(1000, 300, 0), gradBuckets(1000, 300, 2000) }) {
        ASSERT_EQ(b.size(), 1u);
        EXPECT_DOUBLE_EQ(b[0].params, 1300);
        EXPECT_DOUBLE_EQ(b[0].readyFraction, 1.0);
        EXPECT_DOUBLE_EQ(b[0].neededFraction, 0.0);
    }
    EXPECT_TRUE(gradBuckets(0, 0, 400).empty());
}

// The last bucket's reduction starts when the backward ends, so it is exposed however long the backward
// is; reducing the whole chunk from the backward's start (one bucket per parameter) would hide it all.
TEST(GradBuckets, LastBucketIsExposedBehindTheBackward)
{
    const double backwardStart = 9.0, backwardEnd = 10.0, secondsPerParam = 1e-3;
    ChunkDpSync chunk;
    for (const GradBucket& b : gradBuckets(1000, 300, 400))
        chunk.grads.push_back(
            { backwardStart + b.readyFraction * (backwardEnd - backwardStart), b.params * secondsPerParam });
    // Buckets of 0.4 s ready at 9.4 and 9.8 s end at 9.8 and 10.2 s; the last, 0.5 s, queues behind the
    // second and ends at 10.7 s.
    const DpSyncTimes t = pipelinedDataParallelSync({ chunk }, backwardEnd, false);
    EXPECT_NEAR(t.exposedSeconds, 0.7, 1e-12);
    ChunkDpSync whole;
    whole.grads.push_back({ backwardStart, 0.9 });
    EXPECT_DOUBLE_EQ(pipelinedDataParallelSync({ whole }, backwardEnd, false).exposedSeconds, 0.0);
}

// A one-parameter bucket (a legal --ddp-bucket-size) over a trillion parameters: runs of equal buckets share
// entries, at most kMaxGradBucketEntries of them, every parameter counted once, the last ready at the end.
TEST(GradBuckets, TinyBucketsStayBounded)
{
    const std::vector<GradBucket> b = gradBuckets(1e12, 5e8, 1);
    ASSERT_LE(b.size(), static_cast<std::size_t>(kMaxGradBucketEntries));
    double total = 0, buckets = 0;
    for (const GradBucket& x : b) {
        total += x.params * x.count;
        buckets += x.count;
    }
    EXPECT_DOUBLE_EQ(total, 1e12 + 5e8);
    EXPECT_DOUBLE_EQ(buckets, 1e12 + 1);
    EXPECT_DOUBLE_EQ(b.back().readyFraction, 1.0);
    EXPECT_DOUBLE_EQ(b.back().params, 5e8);
    EXPECT_DOUBLE_EQ(b[b.size() - 2].readyFraction, 1.0);
}
