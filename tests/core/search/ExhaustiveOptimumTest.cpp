// SPDX-License-Identifier: Apache-2.0
// The branch-and-bound search against brute force: on spaces small enough to simulate every
// configuration with the full engine, the search's winner is exactly the exhaustive optimum, and
// the bounds it prunes with hold for every configuration.
#include "core/Engine.h"
#include "core/parallel/PipelineSplit.h"
#include "core/search/ClosedFormPass.h"
#include "core/search/ClosedFormScorer.h"
#include "core/search/ConfigSearch.h"
#include "core/search/SearchSpace.h"

#include "SearchTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

using namespace parallax::core;
using namespace parallax::core::searchdetail;
using parallax::test::searchScenario;
using parallax::test::smallMoe;

namespace {

struct SpaceCase {
    const char* name;
    Scenario scenario;
    SearchLimits limits;
};

SearchLimits limits(int maxMicroBatch, int maxVirtualStages, bool gpipe, bool zeroBubble)
{
    SearchLimits l;
    l.maxMicroBatch = maxMicroBatch;
    l.maxVirtualStages = maxVirtualStages;
    l.includeGPipe = gpipe;
    l.includeZeroBubble = zeroBubble;
    return l;
}

std::vector<SpaceCase> spaces()
{
    std::vector<SpaceCase> out;
    // Dense, memory-bound: 18B needs 288 GB of states, so 80 GB GPUs must shard (ZeRO, TP or PP).
    out.push_back(
        { "dense 18B on 8 H100", searchScenario("megatron-gpt-18b", 4, 2, 32, 2048), limits(2, 2, false, false) });
    // Several schedules: GPipe, 1F1B, interleaved v=2..4, ZB-H1, ZB-H2, ZB-V.
    out.push_back(
        { "schedules 39B on 16 H100", searchScenario("megatron-gpt-39b", 8, 2, 32, 2048), limits(1, 4, true, true) });
    // MoE with expert parallelism and the DualPipe family.
    Scenario moe = searchScenario("megatron-gpt-1.7b", 2, 4, 16, 4096);
    moe.model = smallMoe();
    moe.modelPreset.clear();
    out.push_back({ "MoE 64 experts on 8 H100", moe, limits(1, 2, false, true) });
    return out;
}

struct Evaluated {
    SearchPoint point;
    Report report;
    ClosedFormScore score; // of the point's even split
};

// Every configuration of the space (and each pipeline with its LM-head-balancing split), each
// evaluated with the full engine.
std::vector<Evaluated> everyConfiguration(const Scenario& base, const SearchLimits& lim)
{
    const SearchSpace space(base, lim);
    ClosedFormScorer scorer(base, nullptr);
    EvaluateOptions simulate;
    simulate.keepTimeline = false;
    const double headLayers = lmHeadLayerEquivalents(base.model, base.seqLen());
    std::vector<Evaluated> out;
    std::vector<ClosedFormScore> scores;
    for (const Layout& l : space.layouts()) {
        for (int ep : space.expertDegrees(l)) {
            const LayoutComm comm = scorer.layoutComm(l, ep);
            const std::vector<int> zeros = space.zeroStages(l, ep);
            for (const auto& [dispatcher, cpComm] : space.variants(l, ep)) {
                scorer.setDispatcher(dispatcher);
                scorer.setCpComm(cpComm);
                for (int mb : space.microBatches(l)) {
                    const int m = static_cast<int>(base.training.globalBatch / (static_cast<long long>(mb) * l.dp));
                    for (const ScheduleChoice& s : space.schedules(l.pp, m)) {
                        for (Recompute r : SearchSpace::kRecomputeModes) {
                            if (!space.offersRecompute(r))
                                continue;
                            scorer.score(l, ep, comm, mb, s, r, zeros, scores);
                            for (std::size_t zi = 0; zi < zeros.size(); ++zi) {
                                SearchPoint p = pointAt(l, ep, s, mb, r, zeros[zi]);
                                p.dispatcher = dispatcher;
                                p.cpComm = cpComm.type;
                                p.cpA2aSize = cpComm.a2aSize;
                                out.push_back({ p, evaluate(applyPoint(base, p), simulate), scores[zi] });
                                const StageSplit split
                                    = balancedPipelineSplit(base.model.layers, p.pp, p.vpp, p.schedule, headLayers);
                                if (l.pp > 1 && (split.firstStageLayers > 0 || split.lastStageLayers > 0)) {
                                    p.firstStageLayers = split.firstStageLayers;
                                    p.lastStageLayers = split.lastStageLayers;
                                    out.push_back({ p, evaluate(applyPoint(base, p), simulate), scores[zi] });
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    return out;
}

class ExhaustiveOptimum : public ::testing::TestWithParam<int> { };

// The bounds the search prunes with, checked on every configuration: the step-time bounds never
// exceed the simulated step, and the closed-form peak (which decides what is not simulated) never
// exceeds the simulated peak.
TEST_P(ExhaustiveOptimum, BoundsHoldForEveryConfiguration)
{
    const SpaceCase c = spaces()[GetParam()];
    const std::vector<Evaluated> all = everyConfiguration(c.scenario, c.limits);
    ASSERT_GT(all.size(), 50u) << c.name;
    int fitting = 0, closedFormOut = 0;
    for (const Evaluated& e : all) {
        if (!e.report.valid)
            continue;
        const bool even = e.point.firstStageLayers == 0 && e.point.lastStageLayers == 0;
        const double bound = even ? e.score.stepLowerBoundSeconds : e.score.anySplitLowerBoundSeconds;
        EXPECT_LE(nanoseconds(bound), nanoseconds(e.report.stepTimeSeconds)) << c.name << ": " << describe(e.point);
        if (even) {
            EXPECT_LE(e.score.peakBytes, e.report.peakMemoryBytes * (1 + 1e-12)) << c.name << ": " << describe(e.point);
            closedFormOut += !e.score.fits;
        }
        fitting += fitsInMemory(e.report, false);
    }
    // The spaces exercise both the memory screen and the ranking.
    EXPECT_GT(fitting, 10) << c.name;
    EXPECT_GT(closedFormOut, 0) << c.name;
}

TEST_P(ExhaustiveOptimum, SearchReturnsTheExhaustiveOptimum)
{
    const SpaceCase c = spaces()[GetParam()];
    const std::vector<Evaluated> all = everyConfiguration(c.scenario, c.limits);
    std::vector<Ranked> ranked;
    for (const Evaluated& e : all) {
        if (fitsInMemory(e.report, false))
            ranked.push_back({ e.report.stepTimeSeconds, e.report.peakMemoryBytes, e.point });
    }
    std::sort(ranked.begin(), ranked.end(), better);
    ASSERT_GE(ranked.size(), 5u) << c.name;
    const Ranked* best = &ranked.front();
    for (int threads : { 1, 2 }) {
        SearchOptions o;
        o.limits = c.limits;
        o.threads = threads;
        o.explain = false;
        const SearchResult r = searchConfigurations(c.scenario, o);
        ASSERT_FALSE(r.candidates.empty()) << c.name;
        const Candidate& w = r.candidates.front();
        EXPECT_EQ(describe(w.point), describe(best->point)) << c.name << ", " << threads << " threads";
        EXPECT_TRUE(w.point == best->point) << c.name;
        EXPECT_EQ(w.report.stepTimeSeconds, best->step) << c.name;
        // Branch and bound: fewer simulations than the space has configurations.
        EXPECT_LT(r.stats.boundedSimulations, static_cast<long long>(all.size())) << c.name;
        // Asked for five exact ranks, it simulates until the five best are known.
        o.exactRanks = 5;
        const SearchResult five = searchConfigurations(c.scenario, o);
        ASSERT_GE(five.candidates.size(), 5u) << c.name;
        for (std::size_t k = 0; k < 5; ++k)
            EXPECT_EQ(describe(five.candidates[k].point), describe(ranked[k].point)) << c.name << ", rank " << k;
        EXPECT_GE(five.stats.boundedSimulations, r.stats.boundedSimulations) << c.name;
        if (threads == 1)
            std::cout << c.name << ": " << all.size() << " configurations, " << r.stats.fitting
                      << " fit on the closed form, " << r.stats.boundedSimulations << " simulated by the search\n";
    }
}

// The scenario's own configuration is simulated first; where it fits, its step time caps the window of
// configurations the branch and bound may simulate (none with a larger lower bound can be faster). The cap
// leaves the optimum as it was and only shrinks the window.
TEST_P(ExhaustiveOptimum, AFittingBaselineCapsTheWindowAndKeepsTheOptimum)
{
    const SpaceCase c = spaces()[GetParam()];
    const std::vector<Evaluated> all = everyConfiguration(c.scenario, c.limits);
    std::vector<Ranked> ranked;
    const Evaluated* misfit = nullptr;
    for (const Evaluated& e : all) {
        const bool even = e.point.firstStageLayers == 0 && e.point.lastStageLayers == 0;
        if (fitsInMemory(e.report, false))
            ranked.push_back({ e.report.stepTimeSeconds, e.report.peakMemoryBytes, e.point });
        else if (e.report.valid && even && !misfit)
            misfit = &e;
    }
    std::sort(ranked.begin(), ranked.end(), better);
    ASSERT_GE(ranked.size(), 5u) << c.name;
    ASSERT_NE(misfit, nullptr) << c.name;
    SearchOptions o;
    o.limits = c.limits;
    o.threads = 1;
    o.explain = false;
    // Baselines: one that does not fit (no cap) and the fifth fastest that fits (a cap above the optimum).
    const SearchResult uncapped = searchConfigurations(applyPoint(c.scenario, misfit->point), o);
    const SearchResult capped = searchConfigurations(applyPoint(c.scenario, ranked[4].point), o);
    for (const SearchResult* r : { &uncapped, &capped }) {
        ASSERT_FALSE(r->candidates.empty()) << c.name;
        EXPECT_EQ(describe(r->candidates.front().point), describe(ranked.front().point)) << c.name;
    }
    EXPECT_LT(capped.stats.windowConfigurations, uncapped.stats.windowConfigurations) << c.name;
    EXPECT_GT(capped.stats.windowConfigurations, 0) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    SmallSpaces, ExhaustiveOptimum, ::testing::Values(0, 1, 2), [](const ::testing::TestParamInfo<int>& info) {
        return std::string(info.param == 0 ? "Dense" : info.param == 1 ? "Schedules" : "Moe");
    });

} // namespace
