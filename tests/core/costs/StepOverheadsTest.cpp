// SPDX-License-Identifier: Apache-2.0
// Fixed per-step work (core/costs/StepOverheads): each part is the memory-bound pass or small
// collective it cites, so a change of its byte count or a dropped part fails here.
#include "core/costs/StepOverheads.h"
#include "core/io/PresetLibrary.h"

#include <gtest/gtest.h>

using namespace parallax::core;

TEST(StepOverheads, EachPartFromItsBytes)
{
    const ComputeRates rates(*PresetLibrary::instance().gpu("h100-sxm"), DType::Bf16, nullptr, EfficiencyDefaults {});
    StepOverheadInputs in;
    in.optimizerShardParams = 1e9;
    in.gradBufferBytes = 8e9;
    in.microbatches = 16;
    in.tokensPerMicrobatch = 8192;
    in.tp.size = in.tp.inner = 8;
    in.tp.intra = { 450e9, 2e-6 };
    in.dp.size = in.dp.outer = 4;
    in.dp.inter = { 50e9, 5e-6 };
    const StepOverheadTimes t = stepOverheads(in, rates);
    EXPECT_DOUBLE_EQ(t.optimizerSeconds, rates.memorySeconds(28e9));
    EXPECT_GT(t.gradNormSeconds, rates.memorySeconds(4e9)); // the pass plus the scalar all-reduces
    EXPECT_LT(t.gradNormSeconds, rates.memorySeconds(4e9) + 1e-3);
    EXPECT_DOUBLE_EQ(t.clipSeconds, rates.memorySeconds(8e9));
    EXPECT_DOUBLE_EQ(t.zeroGradSeconds, rates.memorySeconds(8e9));
    EXPECT_GT(t.dataSeconds, 16 * 4 * 7 * 2e-6); // latency-bound broadcasts, every micro-batch
    EXPECT_GT(t.loggingSeconds, 0.0);
    EXPECT_DOUBLE_EQ(t.total(),
        t.optimizerSeconds + t.gradNormSeconds + t.clipSeconds + t.zeroGradSeconds + t.dataSeconds + t.loggingSeconds);
    // Without TP there is no batch broadcast.
    in.tp = CommGroup {};
    EXPECT_DOUBLE_EQ(stepOverheads(in, rates).dataSeconds, 0.0);
}

// The search prices every rank and ZeRO stage of a layout with the collectives computed once: the
// result is the per-shard call's, bit for bit, and the collectives do not depend on the shard.
TEST(StepOverheads, CollectivesComputedOnceGiveTheSameTimes)
{
    const ComputeRates rates(*PresetLibrary::instance().gpu("h100-sxm"), DType::Bf16, nullptr, EfficiencyDefaults {});
    StepOverheadInputs in;
    in.microbatches = 12;
    in.tokensPerMicrobatch = 4096;
    in.tp.size = in.tp.inner = 4;
    in.tp.intra = { 450e9, 2e-6 };
    in.dp.size = 16;
    in.dp.inner = 2;
    in.dp.outer = 8;
    in.dp.intra = { 450e9, 2e-6 };
    in.dp.inter = { 50e9, 5e-6 };
    const StepOverheadCollectives once = stepOverheadCollectives(in);
    EXPECT_GT(once.gradNormDpSeconds, 0.0);
    EXPECT_GT(once.gradNormTpSeconds, 0.0);
    EXPECT_GT(once.dataSeconds, 0.0);
    EXPECT_GT(once.loggingSeconds, once.gradNormDpSeconds * 0.5);
    for (double shard : { 0.0, 3.3e7, 1.7e9 }) {
        in.optimizerShardParams = shard;
        in.gradBufferBytes = 4.0 * shard + 123.0;
        const StepOverheadTimes a = stepOverheads(in, rates);
        const StepOverheadTimes b = stepOverheads(in, rates, once);
        EXPECT_EQ(a.optimizerSeconds, b.optimizerSeconds);
        EXPECT_EQ(a.gradNormSeconds, b.gradNormSeconds);
        EXPECT_EQ(a.clipSeconds, b.clipSeconds);
        EXPECT_EQ(a.zeroGradSeconds, b.zeroGradSeconds);
        EXPECT_EQ(a.dataSeconds, b.dataSeconds);
        EXPECT_EQ(a.loggingSeconds, b.loggingSeconds);
        EXPECT_EQ(a.total(), b.total());
        const StepOverheadCollectives again = stepOverheadCollectives(in);
        EXPECT_EQ(again.gradNormDpSeconds, once.gradNormDpSeconds);
        EXPECT_EQ(again.dataSeconds, once.dataSeconds);
    }
}

// The search prices a rank's own part once per ZeRO stage and adds the shared collectives: the sum is the
// whole fixed work, to rounding.
TEST(StepOverheads, ShardPartPlusCollectivesIsTheTotal)
{
    const ComputeRates rates(*PresetLibrary::instance().gpu("h100-sxm"), DType::Bf16, nullptr, EfficiencyDefaults {});
    StepOverheadInputs in;
    in.microbatches = 8;
    in.tokensPerMicrobatch = 8192;
    in.tp.size = in.tp.inner = 8;
    in.tp.intra = { 450e9, 2e-6 };
    in.dp.size = in.dp.outer = 32;
    in.dp.inter = { 50e9, 5e-6 };
    const StepOverheadCollectives collectives = stepOverheadCollectives(in);
    for (double shard : { 0.0, 2.5e8, 4.1e9 }) {
        in.optimizerShardParams = shard;
        in.gradBufferBytes = 2.0 * shard;
        const double total = stepOverheads(in, rates).total();
        EXPECT_NEAR(stepOverheadShardSeconds(in, rates) + collectives.total(), total, 1e-12 * total + 1e-15);
        // The shard part is the memory-bound passes alone: Adam 28 B, norm 4 B, clip 8 B per parameter, the memset.
        EXPECT_DOUBLE_EQ(stepOverheadShardSeconds(in, rates),
            rates.memorySeconds(28.0 * shard) + rates.memorySeconds(4.0 * shard) + rates.memorySeconds(8.0 * shard)
                + rates.memorySeconds(2.0 * shard));
    }
}
