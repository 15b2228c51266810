// SPDX-License-Identifier: Apache-2.0
// Token dispatch as DeepSeek-V3 and DeepEP run it (core/costs/MoeCosts): how many nodes and ranks a token's
// experts are on under plain and group-limited routing (checked against a seeded simulation of the router),
// DeepEP's one InfiniBand send per remote node, fp8 dispatch, and the SMs DeepEP's kernels take from compute.
#include "core/Engine.h"
#include "core/costs/CostModel.h"
#include "core/costs/MoeCosts.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/model/LayerShape.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <set>
#include <vector>

using namespace parallax::core;

namespace {

LayerShape moeShape(int experts, int topK, int groups, int groupTopk)
{
    LayerShape s;
    s.moe = true;
    s.experts = experts;
    s.topK = topK;
    s.routerGroups = groups;
    s.routerGroupTopk = groupTopk;
    return s;
}

// The router, simulated: every expert draws an independent score; with groups, a group scores the sum of its
// best topK / chosen experts and the best `chosen` groups are kept (Megatron-Core group_limited_topk); the
// token takes its topK best experts among the eligible ones. Counts the distinct units (blocks of experts /
// units experts) the picks land on. Written apart from the engine's simulation, with its own generator.
double simulatedUnitsTouched(int experts, int topK, int groups, int chosen, int units, int samples)
{
    std::mt19937_64 rng(12345);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    if (groups <= 1) {
        groups = 1;
        chosen = 1;
    }
    const int perGroup = experts / groups;
    const int perUnit = experts / units;
    const int best = std::max(1, topK / chosen);
    // Only the best few of each sort matter: partial sorts of reused buffers pick the same experts in the
    // same order as full sorts would (the scores are distinct), at a fraction of the cost under ASan.
    std::vector<double> score(experts);
    std::vector<double> mine(perGroup);
    std::vector<std::pair<double, int>> groupScore(groups);
    std::vector<std::pair<double, int>> eligible;
    eligible.reserve(static_cast<std::size_t>(chosen) * perGroup);
    const auto descending = [](const auto& a, const auto& b) { return a > b; };
    double total = 0;
    for (int n = 0; n < samples; ++n) {
        for (double& x : score)
            x = uniform(rng);
        for (int g = 0; g < groups; ++g) {
            std::copy(score.begin() + g * perGroup, score.begin() + (g + 1) * perGroup, mine.begin());
            std::partial_sort(mine.begin(), mine.begin() + best, mine.end(), descending);
            groupScore[g] = { std::accumulate(mine.begin(), mine.begin() + best, 0.0), g };
        }
        std::partial_sort(groupScore.begin(), groupScore.begin() + chosen, groupScore.end(), descending);
        eligible.clear();
        for (int c = 0; c < chosen; ++c) {
            for (int e = 0; e < perGroup; ++e) {
                const int id = groupScore[c].second * perGroup + e;
                eligible.emplace_back(score[id], id);
            }
        }
        std::partial_sort(eligible.begin(), eligible.begin() + topK, eligible.end(), descending);
        std::set<int> touched;
        for (int i = 0; i < topK; ++i)
            touched.insert(eligible[i].second / perUnit);
        total += static_cast<double>(touched.size());
    }
    return total / samples;
}

CommGroup eightNodesOfEight()
{
    CommGroup g;
    g.size = 64;
    g.inner = 8;
    g.outer = 8;
    g.intra = { 200e9, 0 }; // H800 NVLink per direction
    g.inter = { 50e9, 0 }; // 400 Gb/s CX7 per GPU
    return g;
}

ActivationContext deepSeekContext(MoeDispatcher dispatcher, bool fp8Dispatch)
{
    ActivationContext c;
    c.seqLen = 4096;
    c.microBatch = 1;
    c.expertLoadImbalance = 1.25;
    c.dispatcher = dispatcher;
    c.fp8Dispatch = fp8Dispatch;
    return c;
}

} // namespace

// Without group limits a token's 8 experts of 256 land on 8 (1 - C(224, 8) / C(256, 8)) = 5.28 of 8 nodes.
TEST(DeepEpDispatch, UniformRoutingReachesMostNodes)
{
    const RoutedFanout f = routedFanout(moeShape(256, 8, 0, 0), 8, 8);
    double miss = 1;
    for (int i = 0; i < 8; ++i)
        miss *= (224.0 - i) / (256.0 - i);
    EXPECT_NEAR(f.nodes, 8 * (1 - miss), 1e-9);
    EXPECT_NEAR(f.nodes, simulatedUnitsTouched(256, 8, 1, 1, 8, 40000), 0.03);
    EXPECT_NEAR(f.remoteNodes, f.nodes * 7.0 / 8.0, 1e-12);
    EXPECT_NEAR(f.gpus, simulatedUnitsTouched(256, 8, 1, 1, 64, 40000), 0.03);
    EXPECT_DOUBLE_EQ(f.copies, 8.0);
}

// DeepSeek-V3's node-limited routing (8 groups, one per node, the best 4 by their top-2 scores): at most 4
// nodes, 3.95 on average, 3.46 of them remote (arXiv:2412.19437 sec. 2.1.2); a chosen group was chosen for its
// best experts, so it nearly always gets one (picks uniform inside the chosen groups would reach 3.63).
TEST(DeepEpDispatch, NodeLimitedRoutingCapsTheNodes)
{
    const RoutedFanout limited = routedFanout(moeShape(256, 8, 8, 4), 8, 8);
    EXPECT_LE(limited.nodes, 4.0);
    EXPECT_NEAR(limited.nodes, simulatedUnitsTouched(256, 8, 8, 4, 8, 40000), 0.03);
    EXPECT_NEAR(limited.gpus, simulatedUnitsTouched(256, 8, 8, 4, 64, 40000), 0.03);
    EXPECT_NEAR(limited.remoteNodes, 3.46, 0.02);
    EXPECT_GT(limited.nodes, 3.85);
    const RoutedFanout free = routedFanout(moeShape(256, 8, 0, 0), 8, 8);
    EXPECT_LT(limited.remoteNodes, 0.8 * free.remoteNodes);
}

// Groups smaller than a node (4 per node, the best 6 of 32): checked against the simulated router.
TEST(DeepEpDispatch, GroupsInsideNodesFollowTheSimulatedRouter)
{
    const RoutedFanout f = routedFanout(moeShape(256, 8, 32, 6), 8, 8);
    EXPECT_NEAR(f.nodes, simulatedUnitsTouched(256, 8, 32, 6, 8, 40000), 0.03);
    EXPECT_NEAR(f.gpus, simulatedUnitsTouched(256, 8, 32, 6, 64, 40000), 0.03);
}

// The all-to-all dispatcher sends every (token, expert) copy, 7 of 8 of them over InfiniBand; DeepEP sends
// each token once per remote node (3.46 under node-limited routing) and the fp8 dispatch 1 + 4/128 bytes a
// value. The InfiniBand side is the slower link here, so the pair takes exactly its bytes at 0.86 of 50 GB/s.
TEST(DeepEpDispatch, DeepEpSendsEachTokenOncePerRemoteNode)
{
    const LayerShape shape = moeShape(256, 8, 8, 4);
    const CommGroup ep = eightNodesOfEight();
    const double hidden = 7168;
    const double perCopy = 4096 * hidden * 1.25; // tokens x hidden x imbalance
    const double ib = 50e9 * 0.86;

    const double allToAll = dispatchCombineSeconds(shape, deepSeekContext(MoeDispatcher::AllToAll, false), ep, hidden);
    EXPECT_NEAR(allToAll, 2 * (7.0 / 8.0 * 8 * perCopy * 2.0 / ib), 1e-9);

    const RoutedFanout fan = routedFanout(shape, 8, 8);
    const double deepEp = dispatchCombineSeconds(shape, deepSeekContext(MoeDispatcher::DeepEp, false), ep, hidden);
    EXPECT_NEAR(deepEp, 2 * fan.remoteNodes * perCopy * 2.0 / ib, 1e-9);

    const double fp8 = dispatchCombineSeconds(shape, deepSeekContext(MoeDispatcher::DeepEp, true), ep, hidden);
    EXPECT_NEAR(fp8, fan.remoteNodes * perCopy * (1.0 + 4.0 / 128 + 2.0) / ib, 1e-9);
    EXPECT_LT(fp8, 0.4 * allToAll); // 3.46 x 3.03 of 7 x 2 x 2 byte-copies
}

// Inside one NVLink domain DeepEP's traffic is one copy per distinct other rank a token needs, not one per
// expert: 8 experts of 64 on 8 ranks reach 5.28 ranks, 4.6 of them other than the sender.
TEST(DeepEpDispatch, IntranodeDeepEpDeduplicatesPerRank)
{
    const LayerShape shape = moeShape(64, 8, 0, 0);
    CommGroup ep;
    ep.size = ep.inner = 8;
    ep.intra = { 200e9, 0 };
    const double deepEp = dispatchCombineSeconds(shape, deepSeekContext(MoeDispatcher::DeepEp, false), ep, 7168);
    const double allToAll = dispatchCombineSeconds(shape, deepSeekContext(MoeDispatcher::AllToAll, false), ep, 7168);
    const RoutedFanout fan = routedFanout(shape, 1, 8);
    EXPECT_NEAR(deepEp / allToAll, fan.remoteGpus / (8 * 7.0 / 8.0), 1e-9);
    EXPECT_LT(deepEp, allToAll);
}

// Compute next to DeepEP's kernels runs on the SMs they leave: with 20 of 132 held, compute that fits inside
// the communication is 132/112 slower; compute longer than it pays s for the communication's duration only.
TEST(DeepEpDispatch, HeldSmsSlowTheComputeBesideTheDispatch)
{
    const double share = 20.0 / 132.0;
    EXPECT_NEAR(dispatchSmSeconds(1.0, 5.0, share), 1.0 * 20.0 / 112.0, 1e-12);
    EXPECT_NEAR(dispatchSmSeconds(10.0, 2.0, share), 2.0 * share, 1e-12);
    EXPECT_EQ(dispatchSmSeconds(1.0, 0.0, share), 0.0);
    EXPECT_EQ(dispatchSmSeconds(1.0, 5.0, 0.0), 0.0);

    // In a layer: DeepEP overlapped (DualPipe) costs its SM share on top; not overlapped it does not.
    ModelSpec m = *PresetLibrary::instance().model("deepseek-v3");
    const LayerShape shape = layerShape(m, 10);
    const ComputeRates rates(*PresetLibrary::instance().gpu("h800-sxm"), DType::Fp8, nullptr, EfficiencyDefaults {});
    ActivationContext c = deepSeekContext(MoeDispatcher::DeepEp, true);
    c.fp8 = true;
    const LayerCommGroups groups { {}, {}, eightNodesOfEight() };
    const LayerTimes alone = layerTimes(m, shape, c, rates, groups, EfficiencyDefaults {});
    c.dispatchSmShare = share;
    const LayerTimes notConcurrent = layerTimes(m, shape, c, rates, groups, EfficiencyDefaults {});
    EXPECT_DOUBLE_EQ(notConcurrent.forwardCompute, alone.forwardCompute);
    c.epCommConcurrent = true;
    const LayerTimes concurrent = layerTimes(m, shape, c, rates, groups, EfficiencyDefaults {});
    const double dispatch = dispatchCombineSeconds(shape, c, groups.ep, static_cast<double>(m.hidden));
    EXPECT_NEAR(concurrent.forwardCompute - alone.forwardCompute,
        dispatchSmSeconds(alone.forwardCompute, dispatch, share), 1e-12);
    EXPECT_GT(concurrent.forwardCompute, alone.forwardCompute);
}

// The report offers DeepEP where it would pay: DeepSeek-V3 on 2048 H800 with NCCL's all-to-all (EP 64 over
// 8 nodes, top-8 in 4 groups) gets a note with both times, the faster one DeepEP's; the preset itself, which
// runs DeepEP, and a top-2 model whose tokens reach about two nodes anyway, get none.
TEST(DeepEpDispatch, ReportOffersDeepEpWhereItPays)
{
    const auto* info = PresetLibrary::instance().scenario("deepseek-v3-2048xh800");
    ASSERT_TRUE(info);
    LoadError error;
    auto s = parseScenario(info->json, error);
    ASSERT_TRUE(s) << error.text();
    const auto offer = [](const Report& r) -> std::string {
        for (const auto& n : r.notes) {
            const auto at = n.text.find("DeepEP's dispatcher");
            if (n.field == "parallel.ep" && at != std::string::npos)
                return n.text.substr(at);
        }
        return {};
    };
    const Report preset = evaluate(*s);
    EXPECT_TRUE(offer(preset).empty());
    // The per-step EP time reads in seconds once it passes one ("17.2 s", not "17211.7 ms").
    ASSERT_GT(preset.comm.epSeconds, 1.0);
    const bool seconds = std::any_of(preset.notes.begin(), preset.notes.end(), [](const auto& n) {
        return n.field == "parallel.ep" && n.text.find(" s per step on the busiest rank") != std::string::npos;
    });
    EXPECT_TRUE(seconds);
    s->training.moeTokenDispatcher = MoeDispatcher::AllToAll;
    s->training.deepseekFp8Dispatch = false;
    const std::string text = offer(evaluate(*s));
    ASSERT_FALSE(text.empty());
    double deepEp = 0, allToAll = 0;
    ASSERT_EQ(std::sscanf(text.c_str() + text.find("combine ") + 8, "%lf ms instead of %lf", &deepEp, &allToAll), 2)
        << text;
    EXPECT_LT(deepEp, 0.8 * allToAll);

    const auto* moe = PresetLibrary::instance().scenario("guide-moe1t-1024xh100");
    ASSERT_TRUE(moe);
    auto top2 = parseScenario(moe->json, error);
    ASSERT_TRUE(top2 && top2->model.moe && top2->model.moe->topK == 2);
    EXPECT_TRUE(offer(evaluate(*top2)).empty());
}
