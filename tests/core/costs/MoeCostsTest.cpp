// SPDX-License-Identifier: Apache-2.0
// The MoE layer's step time from its parts (core/costs/MoeCosts): each term is checked against the
// formula it cites, and would fail if the term were dropped or folded into one dense GEMM.
#include "core/costs/MoeCosts.h"
#include "core/costs/CostModel.h"
#include "core/io/PresetLibrary.h"
#include "core/model/LayerShape.h"

#include <gtest/gtest.h>

using namespace parallax::core;

namespace {

ModelSpec moeModel(int experts, int topK, std::int64_t expertHidden)
{
    ModelSpec m;
    m.name = "test-moe";
    m.layers = 2;
    m.hidden = 6144;
    m.heads = 48;
    m.kvHeads = 8;
    m.ffnHidden = expertHidden;
    m.vocab = 128256;
    m.moe = MoeSpec { experts, topK, 0, expertHidden, 0 };
    return m;
}

ActivationContext context(int tp)
{
    ActivationContext c;
    c.seqLen = 4096;
    c.microBatch = 1;
    c.tp = tp;
    c.sp = tp > 1;
    c.expertLoadImbalance = 1.25;
    return c;
}

const ComputeRates& h100Rates()
{
    static const ComputeRates rates(
        *PresetLibrary::instance().gpu("h100-sxm"), DType::Bf16, nullptr, EfficiencyDefaults {});
    return rates;
}

CommGroup nvlinkGroup(int size)
{
    CommGroup g;
    g.size = g.inner = size;
    g.intra = { 450e9, 0 };
    g.inter = { 50e9, 0 };
    return g;
}

} // namespace

// tokens x top_k / experts per local expert, times the imbalance: 8 GPUs of 1024 tokens (s/tp with SP),
// top-2 of 8 experts, one expert per GPU: 8 * 1024 * 2 / 8 * 1.25 = 2560 rows.
TEST(MoeCosts, TokensPerLocalExpert)
{
    const LayerShape shape = layerShape(moeModel(8, 2, 32768), 0);
    EXPECT_DOUBLE_EQ(tokensPerLocalExpert(shape, context(4), 8), 2560.0);
    // 64 experts over 8 GPUs: 8 local experts share the same 2560 token copies.
    const LayerShape many = layerShape(moeModel(64, 2, 4096), 0);
    EXPECT_DOUBLE_EQ(localExperts(many, 8), 8.0);
    EXPECT_DOUBLE_EQ(tokensPerLocalExpert(many, context(4), 8), 320.0);
}

// Each permutation pass reads and writes every routed 16-bit token copy: 2 x 2 B x 2560 x 6144; the
// forward runs two (permute, un-permute), the backward two more.
TEST(MoeCosts, PermutePassBytes)
{
    const LayerShape shape = layerShape(moeModel(8, 2, 32768), 0);
    const ActivationContext c = context(4);
    EXPECT_DOUBLE_EQ(permutePassBytes(shape, c, 6144), 4.0 * 2560 * 6144);
    const MoeLayerTimes t = moeLayerTimes(shape, c, h100Rates(), nvlinkGroup(8), 6144, false);
    EXPECT_DOUBLE_EQ(t.permuteForward, 2.0 * h100Rates().memorySeconds(4.0 * 2560 * 6144));
    EXPECT_DOUBLE_EQ(t.permuteBackward, t.permuteForward);
    EXPECT_GT(t.routerForward, 0.0);
}

// The same expert FLOPs cut into many small per-expert GEMMs run slower than one large GEMM: the
// weight gradient's reduction depth is the per-expert M, and small M leaves tiles part-empty.
TEST(MoeCosts, GroupedGemmEfficiencyFallsAtSmallPerExpertM)
{
    const ActivationContext c = context(4);
    const LayerShape few = layerShape(moeModel(8, 2, 4096), 0); // 1 local expert, M = 2560
    const LayerShape many = layerShape(moeModel(256, 2, 4096), 0); // 32 local experts, M = 80
    const MoeLayerTimes big = moeLayerTimes(few, c, h100Rates(), nvlinkGroup(8), 6144, false);
    const MoeLayerTimes small = moeLayerTimes(many, c, h100Rates(), nvlinkGroup(8), 6144, false);
    // The same FLOPs per GPU: 2560 token copies through one expert, or 80 through each of 32.
    const double flopsBig = 2.0 * 2560 * 6144 * 3.0 * 4096;
    const double flopsSmall = 32.0 * 2.0 * 80 * 6144 * 3.0 * 4096;
    ASSERT_DOUBLE_EQ(flopsBig, flopsSmall);
    const double rateBig = flopsBig / big.expertForward;
    const double rateSmall = flopsSmall / small.expertForward;
    EXPECT_LT(rateSmall, 0.75 * rateBig); // M = 80 fills 80/128 of a 128-row tile
    EXPECT_GT(small.expertBackwardWeight, 1.3 * big.expertBackwardWeight); // depth 80: 80/(80+64)
}

// Dispatch and combine run at DeepEP's achieved share of NVLink (153-158 of 200 GB/s), forward and
// backward; with EP overlap the all-to-all hides behind the expert GEMMs.
TEST(MoeCosts, AllToAllAtAchievedBandwidthAndOverlap)
{
    const LayerShape shape = layerShape(moeModel(8, 2, 32768), 0);
    const ActivationContext c = context(4);
    const CommGroup ep = nvlinkGroup(8);
    const MoeLayerTimes t = moeLayerTimes(shape, c, h100Rates(), ep, 6144, false);
    const double bytes = 2.0 * 1024 * 2 * 6144 * 1.25;
    const double datasheet = 2.0 * 7.0 / 8.0 * bytes / 450e9;
    EXPECT_NEAR(t.allToAllForward, datasheet / AllToAllEfficiency {}.nvlinkFraction, 1e-12);
    EXPECT_DOUBLE_EQ(t.allToAllBackward, t.allToAllForward);
    const MoeLayerTimes overlapped = moeLayerTimes(shape, c, h100Rates(), ep, 6144, true);
    EXPECT_LT(overlapped.allToAllForward, 0.5 * t.allToAllForward);
    // Across IB the NIC share applies.
    CommGroup ib = ep;
    ib.inner = 1;
    ib.outer = 8;
    const MoeLayerTimes remote = moeLayerTimes(shape, c, h100Rates(), ib, 6144, false);
    EXPECT_NEAR(
        remote.allToAllForward, 2.0 * 7.0 / 8.0 * bytes / (50e9 * AllToAllEfficiency {}.scaleOutFraction), 1e-12);
}

// With expert tensor parallelism (etp = 4) the dispatcher all-gathers the tokens an EP rank received over
// the ETP group and reduce-scatters the outputs: 2 B x (1024 tokens x top-2 x 1.25 x 4 ETP shards) x 6144
// gathered, each at (n-1)/n of it over NVLink. Without an ETP group (etp = 1) there is none.
TEST(MoeCosts, ExpertTensorParallelGatherOfTheRoutedTokens)
{
    const LayerShape shape = layerShape(moeModel(8, 2, 32768), 0);
    ActivationContext c = context(4);
    c.etp = 4;
    const CommGroup ep = nvlinkGroup(8);
    const MoeLayerTimes without = moeLayerTimes(shape, c, h100Rates(), ep, 6144, false);
    const MoeLayerTimes with = moeLayerTimes(shape, c, h100Rates(), ep, 6144, false, {}, nvlinkGroup(4));
    const double gathered = 2.0 * 1024 * 2 * 1.25 * 4 * 6144;
    const double collective = 3.0 / 4.0 * gathered / 450e9;
    EXPECT_NEAR(with.expertTensorGatherForward, 2.0 * collective, 1e-12);
    EXPECT_NEAR(with.allToAllForward - without.allToAllForward, 2.0 * collective, 1e-12);
    EXPECT_NEAR(with.allToAllBackward - without.allToAllBackward, 2.0 * collective, 1e-12);
    EXPECT_DOUBLE_EQ(without.expertTensorGatherForward, 0.0);
}

// Under sequence parallelism a MoE layer gathers and scatters only its attention over TP (and its shared
// experts, a dense MLP); the routed experts take their tokens through the dispatcher. A dense layer of the
// same width has twice the TP traffic of a MoE layer without shared experts.
TEST(MoeCosts, MoeLayerTensorParallelTrafficIsTheAttentionsAndTheSharedExperts)
{
    ModelSpec dense = moeModel(8, 2, 32768);
    dense.moe.reset();
    ModelSpec shared = moeModel(8, 2, 32768);
    shared.moe->sharedExperts = 1;
    const ActivationContext c = context(4);
    LayerCommGroups groups;
    groups.tp = nvlinkGroup(4);
    const EfficiencyDefaults d;
    const double denseTp = layerTimes(dense, layerShape(dense, 0), c, h100Rates(), groups, d).tpForward;
    const ModelSpec routed = moeModel(8, 2, 32768);
    const double routedTp = layerTimes(routed, layerShape(routed, 0), c, h100Rates(), groups, d).tpForward;
    const double sharedTp = layerTimes(shared, layerShape(shared, 0), c, h100Rates(), groups, d).tpForward;
    EXPECT_GT(denseTp, 0.0);
    EXPECT_NEAR(routedTp, 0.5 * denseTp, 1e-15);
    EXPECT_NEAR(sharedTp, denseTp, 1e-15);
}
