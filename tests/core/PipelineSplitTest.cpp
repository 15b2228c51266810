// SPDX-License-Identifier: Apache-2.0
#include "core/parallel/PipelineSplit.h"
#include "TestScenarios.h"
#include "core/Engine.h"
#include "core/Validation.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/parallel/StageLayout.h"
#include "core/schedule/PipelineSchedule.h"

#include <gtest/gtest.h>

#include <tuple>

#include <nlohmann/json.hpp>

using namespace parallax::core;

namespace {

std::vector<int> counts(const StageLayout& l)
{
    std::vector<int> out;
    for (int s = 0; s < l.stages(); ++s)
        out.push_back(l.layerCount(s));
    return out;
}

ParallelConfig pipeline(int pp, ScheduleKind kind, int vpp = 1)
{
    ParallelConfig p;
    p.pp = pp;
    p.vpp = vpp;
    p.schedule = kind;
    return p;
}

} // namespace

// Megatron-Core get_num_layers_to_build, by hand: the named ranks hold their counts, the others
// share the rest; the account_for_* form counts the embedding / loss as a layer.
TEST(PipelineSplit, LayerCountsFollowMegatron)
{
    struct Case {
        int layers, pp, vpp, first, last;
        bool embedding, loss;
        std::vector<int> expected; // per model stage (chunk * pp + rank when interleaved)
    };
    const std::vector<Case> cases = {
        { 80, 9, 1, 9, 8, false, false, { 9, 9, 9, 9, 9, 9, 9, 9, 8 } },
        { 80, 9, 1, 0, 8, false, false, { 9, 9, 9, 9, 9, 9, 9, 9, 8 } },
        { 32, 4, 1, 6, 0, false, false, { 6, 26 / 3, 26 / 3, 26 / 3 } }, // 26 does not divide by 3: invalid
        { 30, 4, 1, 0, 0, true, true, { 7, 8, 8, 7 } },
        { 31, 4, 1, 0, 0, false, true, { 8, 8, 8, 7 } },
        { 32, 4, 2, 6, 6, false, false, { 3, 5, 5, 3, 3, 5, 5, 3 } },
    };
    for (const Case& c : cases) {
        ParallelConfig p = pipeline(c.pp, c.vpp > 1 ? ScheduleKind::Interleaved1F1B : ScheduleKind::OneFOneB, c.vpp);
        p.firstStageLayers = c.first;
        p.lastStageLayers = c.last;
        p.accountForEmbedding = c.embedding;
        p.accountForLoss = c.loss;
        const ScheduleShape shape { p.schedule, c.pp, 8, c.vpp };
        const std::vector<int> got = unevenStageLayerCounts(c.layers, shape, p);
        if (c.layers == 32 && c.first == 6 && c.last == 0) {
            EXPECT_TRUE(got.empty());
            EXPECT_NE(pipelineSplitProblem(c.layers, p).find("parallel.first_stage_layers"), std::string::npos);
            continue;
        }
        EXPECT_TRUE(pipelineSplitProblem(c.layers, p).empty()) << pipelineSplitProblem(c.layers, p);
        EXPECT_EQ(got, c.expected) << c.layers << " layers pp=" << c.pp;
        EXPECT_EQ(counts(StageLayout::of(c.layers, shape, p)), c.expected);
    }
}

TEST(PipelineSplit, InvalidSplitsNameTheFieldAndTheFix)
{
    ParallelConfig p = pipeline(8, ScheduleKind::ZbV);
    p.lastStageLayers = 9; // 71 layers over the 15 other model stages of ZB-V
    EXPECT_NE(pipelineSplitProblem(80, p).find("parallel.last_stage_layers: the 71 layers left"), std::string::npos);
    EXPECT_NE(pipelineSplitProblem(80, p).find("15 other model stages of zb-v"), std::string::npos);
    p.lastStageLayers = 0;
    p.accountForLoss = true;
    EXPECT_NE(pipelineSplitProblem(80, p).find("parallel.account_for_loss: schedule zb-v"), std::string::npos);
    p = pipeline(1, ScheduleKind::OneFOneB);
    p.firstStageLayers = 9;
    EXPECT_NE(pipelineSplitProblem(80, p).find("needs pp > 1"), std::string::npos);
    p = pipeline(8, ScheduleKind::OneFOneB);
    p.firstStageLayers = 9;
    p.accountForLoss = true;
    EXPECT_NE(pipelineSplitProblem(80, p).find("exclude each other"), std::string::npos);
    p = pipeline(4, ScheduleKind::Interleaved1F1B, 2);
    p.firstStageLayers = 7;
    p.lastStageLayers = 7;
    EXPECT_NE(pipelineSplitProblem(32, p).find("not a multiple of vpp=2"), std::string::npos);
    p = pipeline(8, ScheduleKind::OneFOneB);
    p.accountForEmbedding = true;
    EXPECT_NE(pipelineSplitProblem(80, p).find("parallel.account_for_embedding"), std::string::npos);

    // Through the engine: an error with the field, never a crash.
    Scenario s = parallax::test::presetScenario("llama3-70b-uneven-72xh100");
    s.parallel.firstStageLayers = 10;
    const Report r = evaluate(s);
    ASSERT_FALSE(r.valid);
    EXPECT_EQ(r.errors.front().field, "parallel.first_stage_layers");
}

// By hand for Llama 3 70B (80 layers) on pp=9: the even split is 8 | 9 x7 | 9 + head; the head's
// 2 h V logits GEMM is ~1.2 layers of forward FLOPs, so moving one layer off the last rank onto the
// first (or letting the other ranks share it) drops the heaviest rank from ~10.2 to 9.2 layers.
TEST(PipelineSplit, BalancedSplitTakesALayerOffTheHeadStage)
{
    const ModelSpec m = *PresetLibrary::instance().model("llama3-70b");
    const double head = lmHeadLayerEquivalents(m, 8192);
    EXPECT_GT(head, 1.0);
    EXPECT_LT(head, 1.5);
    const StageSplit split = balancedPipelineSplit(80, 9, 1, ScheduleKind::OneFOneB, head);
    EXPECT_EQ(split.firstStageLayers, 0); // fewer switches: the others share the rest (9 each)
    EXPECT_EQ(split.lastStageLayers, 8);
    // Nothing to gain without a head.
    const StageSplit none = balancedPipelineSplit(80, 8, 1, ScheduleKind::OneFOneB, 0.0);
    EXPECT_EQ(none.firstStageLayers + none.lastStageLayers, 0);
    EXPECT_EQ(balancedPipelineSplit(80, 8, 1, ScheduleKind::ZbV, 0.0).lastStageLayers, 0);
}

// A V schedule runs the first and the last model stage on rank 0 (DualPipe: on ranks 0 and pp-1), so the
// head and the MTP module sit beside the embedding. DeepSeek-V3 (61 layers, DualPipe over pp=16): the even
// split gives stages 0 and 15 three layers each, so ranks 0 and 15 hold 6 layers + the head and MTP (~3.6
// layers) against the middle ranks' 8. Last 1 leaves 60 = 15 x 4 for the other stages: 4 + 1 + 3.6 = 8.6 at
// most (first 3 / last 2 ties at 8.6 with two switches set).
TEST(PipelineSplit, VScheduleSplitBalancesTheHeadBesideTheEmbedding)
{
    const ModelSpec m = *PresetLibrary::instance().model("deepseek-v3");
    const double head = lmHeadLayerEquivalents(m, 4096);
    EXPECT_GT(head, 3.0); // the head (~1.2 layers) and one MTP depth (a layer, a projection, a head pass)
    EXPECT_LT(head, 4.2);
    const StageSplit split = balancedPipelineSplit(m.layers, 16, 1, ScheduleKind::DualPipe, head);
    EXPECT_EQ(split.firstStageLayers, 0);
    EXPECT_EQ(split.lastStageLayers, 1);
    ParallelConfig p = pipeline(16, ScheduleKind::DualPipe);
    p.lastStageLayers = 1;
    ASSERT_TRUE(pipelineSplitProblem(m.layers, p).empty()) << pipelineSplitProblem(m.layers, p);
    const ScheduleShape shape { ScheduleKind::DualPipe, 16, 16, 1 };
    std::vector<int> expected(16, 4);
    expected.back() = 1;
    EXPECT_EQ(unevenStageLayerCounts(m.layers, shape, p), expected);
    // Through the engine: the DualPipe preset with this split runs a smaller bubble than the even split.
    Scenario s = parallax::test::presetScenario("deepseek-v3-2048xh800");
    EXPECT_EQ(s.parallel.lastStageLayers, 1); // the preset takes this split
    s.parallel.lastStageLayers = 0;
    const Report even = evaluate(s);
    s.parallel.lastStageLayers = 1;
    const Report balanced = evaluate(s);
    ASSERT_TRUE(balanced.valid) << (balanced.errors.empty() ? "" : balanced.errors.front().text);
    EXPECT_LT(balanced.bubbleFraction, even.bubbleFraction);
    EXPECT_LT(balanced.stepTimeSeconds, even.stepTimeSeconds);
    // The EP note gives the busiest rank's all-to-all time: a middle rank's 8 MoE layers under both splits
    // (not the peak-memory rank's, which the split moves from a middle rank to rank 0).
    const auto epNote = [](const Report& r) {
        for (const Message& m : r.notes)
            if (m.text.find("EP groups span") != std::string::npos)
                return m.text.substr(0, m.text.find("busiest rank"));
        return std::string();
    };
    ASSERT_FALSE(epNote(even).empty());
    EXPECT_NE(even.peakMemoryStage, balanced.peakMemoryStage);
    EXPECT_EQ(epNote(balanced), epNote(even));
}

// The done-when: the uneven preset (first 9, last 8 with the head) shows a smaller simulated
// bubble than the even split, and memory follows the layers (the last rank holds one layer fewer).
// balancedPipelineSplit computes each candidate's rank counts in closed form: against the split's own layer
// counts (unevenStageLayerCounts, the engine's path), for every first/last pair of several pipelines.
TEST(PipelineSplit, BalancedSplitIsTheBestValidFirstLastSplit)
{
    // The busiest rank's layers, the head counted on the last rank.
    const auto worstRank = [](int layers, int pp, int vpp, ScheduleKind kind, const ParallelConfig& p, double head) {
        const ScheduleShape shape { kind, pp, pp, vpp };
        const StageLayout layout = StageLayout::of(layers, shape, p);
        double worst = 0;
        for (int r = 0; r < pp; ++r) {
            double rank = r == pp - 1 ? head : 0.0;
            for (int c = 0; c < vpp; ++c)
                rank += layout.layerCount(modelStageOf(shape, r, c));
            worst = std::max(worst, rank);
        }
        return worst;
    };
    int compared = 0;
    for (const auto& [layers, pp, vpp] : { std::tuple(80, 9, 1), std::tuple(126, 8, 1), std::tuple(96, 8, 2),
             std::tuple(61, 4, 1), std::tuple(32, 2, 1), std::tuple(48, 6, 4) }) {
        const ScheduleKind kind = vpp > 1 ? ScheduleKind::Interleaved1F1B : ScheduleKind::OneFOneB;
        const double head = 1.37;
        double bestWorst = 1e30;
        for (int first = 0; first <= layers; ++first) {
            for (int last = 0; first + last <= layers; ++last) {
                ParallelConfig p = pipeline(pp, kind, vpp);
                p.firstStageLayers = first;
                p.lastStageLayers = last;
                if ((first == 0 && last == 0) || !pipelineSplitProblem(layers, p).empty())
                    continue;
                bestWorst = std::min(bestWorst, worstRank(layers, pp, vpp, kind, p, head));
            }
        }
        const StageSplit split = balancedPipelineSplit(layers, pp, vpp, kind, head);
        if (split.firstStageLayers == 0 && split.lastStageLayers == 0)
            continue; // the even split is as good: nothing better exists
        ParallelConfig p = pipeline(pp, kind, vpp);
        p.firstStageLayers = split.firstStageLayers;
        p.lastStageLayers = split.lastStageLayers;
        ASSERT_EQ(pipelineSplitProblem(layers, p), "") << layers << " layers, pp " << pp;
        EXPECT_NEAR(worstRank(layers, pp, vpp, kind, p, head), bestWorst, 1e-9)
            << layers << " layers, pp " << pp << ", vpp " << vpp;
        ++compared;
    }
    EXPECT_GE(compared, 4); // most of these pipelines have a better uneven split
}

TEST(PipelineSplit, UnevenPresetHasSmallerBubbleThanEvenSplit)
{
    const Scenario uneven = parallax::test::presetScenario("llama3-70b-uneven-72xh100");
    ASSERT_EQ(uneven.parallel.firstStageLayers, 9);
    ASSERT_EQ(uneven.parallel.lastStageLayers, 8);
    Scenario even = uneven;
    even.parallel.firstStageLayers = even.parallel.lastStageLayers = 0;
    const Report ru = evaluate(uneven);
    const Report re = evaluate(even);
    ASSERT_TRUE(ru.valid) << (ru.errors.empty() ? "" : ru.errors.front().text);
    ASSERT_TRUE(re.valid);
    EXPECT_LT(ru.bubbleFraction, re.bubbleFraction);
    EXPECT_LT(ru.stepTimeSeconds, re.stepTimeSeconds);
    // Per-stage durations follow the layers: the last rank's ops shrink by one layer's worth.
    ASSERT_EQ(ru.stages.size(), 9u);
    EXPECT_EQ(ru.stages.back().layers, 8);
    EXPECT_EQ(re.stages.back().layers, 9);
    EXPECT_EQ(ru.stages.front().layers, 9);
    EXPECT_EQ(re.stages.front().layers, 8);
    EXPECT_LT(ru.stages.back().weightsBytes, re.stages.back().weightsBytes);
    EXPECT_GT(ru.stages.front().weightsBytes, re.stages.front().weightsBytes);
}

TEST(PipelineSplit, ScenarioKeysRoundTrip)
{
    Scenario s = parallax::test::presetScenario("llama3-70b-uneven-72xh100");
    s.parallel.firstStageLayers = 0;
    s.parallel.lastStageLayers = 0;
    s.parallel.accountForEmbedding = true;
    s.parallel.accountForLoss = true;
    LoadError error;
    const auto back = parseScenario(scenarioToJson(s).dump(), error);
    ASSERT_TRUE(back) << error.message;
    EXPECT_TRUE(back->parallel.accountForEmbedding);
    EXPECT_TRUE(back->parallel.accountForLoss);
    const auto uneven
        = parseScenario(scenarioToJson(parallax::test::presetScenario("llama3-70b-uneven-72xh100")).dump(), error);
    ASSERT_TRUE(uneven);
    EXPECT_EQ(uneven->parallel.firstStageLayers, 9);
    EXPECT_EQ(uneven->parallel.lastStageLayers, 8);
}

// The even split's counts, against the rule written out with a count per stage: the middle stages take
// the remainder first, then the last, then the first.
TEST(PipelineSplit, EvenSplitTakesTheRemainderOnTheMiddleStagesFirst)
{
    for (int stages = 1; stages <= 20; ++stages) {
        for (int layers = 0; layers <= 100; ++layers) {
            std::vector<int> count(stages, layers / stages);
            int extra = layers % stages;
            for (int s = 1; s + 1 < stages && extra > 0; ++s, --extra)
                ++count[s];
            if (extra > 0 && stages > 1) {
                ++count[stages - 1];
                --extra;
            }
            if (extra > 0)
                ++count[0];
            ASSERT_EQ(counts(StageLayout(layers, stages)), count) << layers << " layers over " << stages;
            StageLayout reused(3, 1);
            reused.assign(layers, ScheduleShape { ScheduleKind::OneFOneB, stages, stages, 1 },
                pipeline(stages, ScheduleKind::OneFOneB));
            ASSERT_EQ(counts(reused), count) << layers << " layers over " << stages << " (assign)";
        }
    }
}
