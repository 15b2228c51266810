// SPDX-License-Identifier: Apache-2.0
// The two screens the branch-and-bound search trusts, checked against the full engine on random
// configurations of larger spaces than ExhaustiveOptimumTest can simulate: the step-time lower
// bounds (ClosedFormScore::stepLowerBoundSeconds, anySplitLowerBoundSeconds) never exceed the
// simulated step, and the weights + grads + optimizer bound (the only memory screen) never exceeds
// the simulated peak. The closed-form peak does exceed it at times (interleaved schedules), which is
// why it screens nothing.
#include "core/Engine.h"
#include "core/parallel/PipelineSplit.h"
#include "core/search/ClosedFormPass.h"
#include "core/search/ClosedFormScorer.h"
#include "core/search/ConfigSearch.h"
#include "core/search/SearchSpace.h"

#include "SearchTestSupport.h"

#include <gtest/gtest.h>

#include <iostream>
#include <random>
#include <string>
#include <vector>

using namespace parallax::core;
using namespace parallax::core::searchdetail;
using parallax::test::searchScenario;
using parallax::test::smallMoe;

namespace {

struct Draw {
    Layout layout;
    int ep;
    int microBatch;
    ScheduleChoice schedule;
    Recompute recompute;
};

// Every (layout, ep, micro-batch, schedule, recompute) of the space.
std::vector<Draw> everyDraw(const Scenario& base, const SearchSpace& space)
{
    std::vector<Draw> out;
    for (const Layout& l : space.layouts()) {
        for (int ep : space.expertDegrees(l)) {
            for (int mb : space.microBatches(l)) {
                const int m = static_cast<int>(base.training.globalBatch / (static_cast<long long>(mb) * l.dp));
                for (const ScheduleChoice& s : space.schedules(l.pp, m)) {
                    for (Recompute r : SearchSpace::kRecomputeModes) {
                        if (space.offersRecompute(r))
                            out.push_back({ l, ep, mb, s, r });
                    }
                }
            }
        }
    }
    return out;
}

// Returns how many points were checked with DP > 1 under ZeRO-2 (its sync on the simulated timeline,
// one reduce-scatter per micro-batch).
int checkRandomPoints(const Scenario& base, int samples, unsigned seed, bool dualPipeOnly = false)
{
    const SearchSpace space(base);
    std::vector<Draw> draws = everyDraw(base, space);
    if (dualPipeOnly)
        std::erase_if(draws, [](const Draw& d) {
            return d.schedule.kind != ScheduleKind::DualPipe && d.schedule.kind != ScheduleKind::DualPipeV;
        });
    EXPECT_GT(draws.size(), 100u) << base.name;
    if (draws.empty())
        return 0;
    ClosedFormScorer scorer(base, nullptr);
    ClosedFormScorer fromPrograms(base, nullptr);
    fromPrograms.setInflightFromPrograms(true);
    std::vector<ClosedFormScore> programScores;
    EvaluateOptions simulate;
    simulate.keepTimeline = false;
    const double headLayers = lmHeadLayerEquivalents(base.model, base.seqLen());
    std::mt19937 rng(seed);
    std::uniform_int_distribution<std::size_t> pick(0, draws.size() - 1);
    std::vector<ClosedFormScore> scores;
    int checked = 0, pipelined = 0, tight = 0, closedFormPeakAbove = 0, dpZeroTwo = 0, programTighter = 0;
    int unevenChecked = 0, unevenDualPipe = 0;
    for (int k = 0; k < samples; ++k) {
        const Draw& d = draws[pick(rng)];
        const std::vector<int> zeros = space.zeroStages(d.layout, d.ep);
        scorer.score(
            d.layout, d.ep, scorer.layoutComm(d.layout, d.ep), d.microBatch, d.schedule, d.recompute, zeros, scores);
        fromPrograms.score(d.layout, d.ep, fromPrograms.layoutComm(d.layout, d.ep), d.microBatch, d.schedule,
            d.recompute, zeros, programScores);
        for (std::size_t zi = 0; zi < zeros.size(); ++zi) {
            SearchPoint p = pointAt(d.layout, d.ep, d.schedule, d.microBatch, d.recompute, zeros[zi]);
            const Report r = evaluate(applyPoint(base, p), simulate);
            if (!r.valid)
                continue;
            ++checked;
            pipelined += p.pp > 1;
            dpZeroTwo += p.dp > 1 && p.zero == 2;
            const ClosedFormScore& sc = scores[zi];
            EXPECT_LE(nanoseconds(sc.stepLowerBoundSeconds), nanoseconds(r.stepTimeSeconds))
                << base.name << ": " << describe(p);
            // The memory screen: the weights + grads + optimizer bound never exceeds the simulated peak.
            EXPECT_LE(scorer.stateBoundBytes(d.layout, d.ep, scorer.layoutComm(d.layout, d.ep), d.schedule, zeros[zi]),
                r.peakMemoryBytes * (1 + 1e-12))
                << base.name << ": " << describe(p);
            EXPECT_LE(sc.peakLowerBoundBytes, r.peakMemoryBytes * (1 + 1e-12)) << base.name << ": " << describe(p);
            // The forwards before each rank's first backward, from the schedule's programs.
            const ClosedFormScore& ps = programScores[zi];
            EXPECT_LE(ps.peakLowerBoundBytes, r.peakMemoryBytes * (1 + 1e-12)) << base.name << ": " << describe(p);
            EXPECT_GE(ps.peakLowerBoundBytes, sc.peakLowerBoundBytes) << base.name << ": " << describe(p);
            EXPECT_EQ(ps.stepLowerBoundSeconds, sc.stepLowerBoundSeconds) << base.name << ": " << describe(p);
            programTighter += ps.peakLowerBoundBytes > 1.01 * sc.peakLowerBoundBytes;
            closedFormPeakAbove += sc.peakBytes > r.peakMemoryBytes * (1 + 1e-9);
            // The bound is worth something: within 30% of the simulated step for schedules it models.
            tight += sc.stepLowerBoundSeconds >= 0.7 * r.stepTimeSeconds;
            const StageSplit split = balancedPipelineSplit(base.model.layers, p.pp, p.vpp, p.schedule, headLayers);
            if (p.pp > 1 && (split.firstStageLayers > 0 || split.lastStageLayers > 0)) {
                p.firstStageLayers = split.firstStageLayers;
                p.lastStageLayers = split.lastStageLayers;
                const Report u = evaluate(applyPoint(base, p), simulate);
                if (u.valid) {
                    EXPECT_LE(nanoseconds(sc.anySplitLowerBoundSeconds), nanoseconds(u.stepTimeSeconds))
                        << base.name << ": " << describe(p);
                    // Scored with its own split: the bound the closed-form pass orders DualPipe's uneven
                    // variants by (their bound over every split is 0) and the simulation loop screens by.
                    scorer.setStageSplit(split.firstStageLayers, split.lastStageLayers);
                    std::vector<ClosedFormScore> own;
                    scorer.score(d.layout, d.ep, scorer.layoutComm(d.layout, d.ep), d.microBatch, d.schedule,
                        d.recompute, { zeros[zi] }, own);
                    scorer.setStageSplit(0, 0);
                    EXPECT_LE(nanoseconds(own.front().stepLowerBoundSeconds), nanoseconds(u.stepTimeSeconds))
                        << base.name << ": " << describe(p);
                    EXPECT_LE(own.front().peakLowerBoundBytes, u.peakMemoryBytes * (1 + 1e-12))
                        << base.name << ": " << describe(p);
                    unevenChecked += 1;
                    unevenDualPipe += p.schedule == ScheduleKind::DualPipe || p.schedule == ScheduleKind::DualPipeV;
                }
            }
        }
    }
    EXPECT_GT(checked, samples) << base.name;
    EXPECT_GT(pipelined, samples / 2) << base.name;
    EXPECT_GT(tight, checked / 2) << base.name;
    EXPECT_GT(programTighter, 0) << base.name;
    std::cout << base.name << ": " << checked << " checked, closed-form peak above the simulated one in "
              << closedFormPeakAbove << ", DP > 1 with ZeRO-2 in " << dpZeroTwo
              << ", the programs' peak bound tighter in " << programTighter << ", " << unevenChecked
              << " uneven splits (" << unevenDualPipe << " DualPipe)\n";
    return dpZeroTwo;
}

TEST(SearchBound, HoldsOnRandomDenseConfigurations)
{
    // GPT-3 175B on 1024 A100: 96 layers, pipelines up to 98 model stages (the validator's limit).
    Scenario s = searchScenario("gpt3-175b", 128, 8, 1536, 2048, "a100-sxm-80gb");
    ASSERT_TRUE(s.parallel.dpOverlap); // --overlap-grad-reduce: reductions hide in the cooldown
    int dpZeroTwo = checkRandomPoints(s, 60, 17);
    // Llama 3 405B on 128 H100: 126 layers, so PP=32 v=4 (128 stages, two of them without layers).
    dpZeroTwo += checkRandomPoints(searchScenario("llama3-405b", 16, 8, 1024, 4096), 60, 18);
    EXPECT_GT(dpZeroTwo, 10);
}

TEST(SearchBound, HoldsWithoutDpOverlap)
{
    // The gradients reduce after each rank's last op: ranks that end early hide them in the cooldown.
    Scenario s = searchScenario("megatron-gpt-39b", 8, 8, 256, 2048);
    s.parallel.dpOverlap = false;
    EXPECT_GT(checkRandomPoints(s, 60, 21), 5);
}

TEST(SearchBound, HoldsOnRandomMoeConfigurations)
{
    Scenario moe = searchScenario("megatron-gpt-1.7b", 4, 8, 64, 4096);
    moe.model = smallMoe();
    moe.modelPreset.clear();
    checkRandomPoints(moe, 60, 19);
}

// DualPipe and DualPipeV, whose bound over every split is 0: with a head worth more than a layer (a large
// vocabulary) their balanced split is uneven, and its own bound orders them in the search's window.
TEST(SearchBound, HoldsForDualPipeSplits)
{
    Scenario moe = searchScenario("megatron-gpt-1.7b", 4, 8, 64, 4096);
    moe.model = smallMoe();
    moe.model.vocab = 256000;
    moe.model.layers = 16;
    moe.modelPreset.clear();
    checkRandomPoints(moe, 60, 31, true);
}

// Dense and MoE layers alternating (Llama 4 Maverick's placement): stages hold either kind in uneven counts.
TEST(SearchBound, HoldsWithInterleavedMoeLayers)
{
    Scenario moe = searchScenario("megatron-gpt-1.7b", 4, 8, 64, 4096);
    moe.model = smallMoe();
    moe.model.moe->firstDenseLayers = 0;
    moe.model.moe->layerStep = 2;
    moe.model.layers = 15;
    moe.modelPreset.clear();
    checkRandomPoints(moe, 60, 23);
}

// Sliding windows on all but every other layer at 16K tokens: attention per layer kind averaged, and CP's K/V
// all-gather exposed.
TEST(SearchBound, HoldsWithWindowedAttention)
{
    Scenario s = searchScenario("megatron-gpt-1.7b", 4, 8, 64, 16384);
    s.model.slidingWindow = 1024;
    s.model.slidingWindowPattern = 2;
    s.modelPreset.clear();
    checkRandomPoints(s, 60, 29);
}

TEST(SearchBound, HoldsWithBlockingSends)
{
    Scenario s = searchScenario("megatron-gpt-39b", 8, 8, 256, 2048);
    s.parallel.p2pOverlap = false;
    checkRandomPoints(s, 60, 20);
}

} // namespace
