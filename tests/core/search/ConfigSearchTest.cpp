// SPDX-License-Identifier: Apache-2.0
#include "core/search/ConfigSearch.h"
#include "core/Engine.h"
#include "core/search/SearchSpace.h"

#include "SearchTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace parallax::core;
using parallax::test::searchScenario;

namespace {

Report simulated(const Scenario& base, const SearchPoint& p)
{
    EvaluateOptions o;
    o.keepTimeline = false;
    return evaluate(applyPoint(base, p), o);
}

// One GPU: a single layout. By hand: recompute only adds work and the model fits without it;
// ZeRO has nothing to shard over. Micro-batches do the same FLOPs but larger ones fill the GPU's
// waves better (core/costs/CostModel.cpp), so the winner is the fastest micro-batch that fits, checked
// here by evaluating every one the search space offers.
TEST(ConfigSearch, SingleGpuOptimumByHand)
{
    const Scenario s = searchScenario("megatron-gpt-1.7b", 1, 1, 4, 2048);
    const SearchResult r = searchConfigurations(s);
    ASSERT_FALSE(r.candidates.empty());
    const SearchPoint& w = r.candidates.front().point;
    EXPECT_EQ(w.tp, 1);
    EXPECT_EQ(w.pp, 1);
    EXPECT_EQ(w.dp, 1);
    EXPECT_EQ(w.zero, 0);
    EXPECT_EQ(w.recompute, Recompute::None) << describe(w);
    const double best = simulated(s, w).stepTimeSeconds;
    for (int mb : { 1, 2, 4 }) {
        SearchPoint p = w;
        p.microBatch = mb;
        const Report rep = simulated(s, p);
        if (rep.fits) {
            EXPECT_GE(rep.stepTimeSeconds, best * (1 - 1e-9)) << "micro-batch " << mb;
        }
    }
}

// Two GPUs on NVLink and a model that fits one GPU: data parallelism does the same compute as one
// GPU on half the batch with its gradient sync hidden behind the backward, while TP=2 adds
// all-reduces to every layer and PP=2 adds a bubble. By hand: DP=2, no recompute.
TEST(ConfigSearch, TwoGpuOptimumByHand)
{
    const Scenario s = searchScenario("megatron-gpt-1.7b", 1, 2, 16, 2048);
    const SearchResult r = searchConfigurations(s);
    ASSERT_FALSE(r.candidates.empty());
    const SearchPoint& w = r.candidates.front().point;
    EXPECT_EQ(w.dp, 2) << describe(w);
    EXPECT_EQ(w.tp, 1);
    EXPECT_EQ(w.pp, 1);
    EXPECT_EQ(w.cp, 1);
    EXPECT_EQ(w.recompute, Recompute::None);
}

// On a space small enough to simulate every configuration, the search's winner is the simulated
// optimum even when only a handful of closed-form leaders are re-ranked.
TEST(ConfigSearch, ShortlistHoldsTheSimulatedOptimum)
{
    const Scenario s = searchScenario("megatron-gpt-1.7b", 2, 2, 16, 2048);
    const SearchSpace space(s);
    double bestStep = 0, bestPeak = 0;
    std::optional<SearchPoint> best;
    long long count = 0;
    for (const Layout& l : space.layouts()) {
        for (int ep : space.expertDegrees(l)) {
            for (int mb : space.microBatches(l)) {
                const int m = s.training.globalBatch / (mb * l.dp);
                for (const ScheduleChoice& sc : space.schedules(l.pp, m)) {
                    for (Recompute rc : SearchSpace::kRecomputeModes) {
                        if (!space.offersRecompute(rc))
                            continue;
                        for (int z : space.zeroStages(l, ep)) {
                            for (const CpCommChoice& cpComm : space.cpCommChoices(l)) {
                                SearchPoint p = pointAt(l, ep, sc, mb, rc, z);
                                p.cpComm = cpComm.type;
                                p.cpA2aSize = cpComm.a2aSize;
                                const Report rep = simulated(s, p);
                                ASSERT_TRUE(rep.valid) << describe(p);
                                ++count;
                                if (!rep.fits)
                                    continue;
                                const long long a = std::llround(rep.stepTimeSeconds * 1e9),
                                                b = std::llround(bestStep * 1e9);
                                if (!best || a < b || (a == b && rep.peakMemoryBytes < bestPeak)) {
                                    best = p;
                                    bestStep = rep.stepTimeSeconds;
                                    bestPeak = rep.peakMemoryBytes;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    ASSERT_TRUE(best);
    SearchOptions o;
    o.explain = false;
    const SearchResult r = searchConfigurations(s, o);
    EXPECT_EQ(r.stats.enumerated, count);
    ASSERT_FALSE(r.candidates.empty());
    EXPECT_NEAR(r.candidates.front().report.stepTimeSeconds, bestStep, 1e-9 * bestStep)
        << describe(r.candidates.front().point) << " vs " << describe(*best);
}

struct FitCase {
    const char* model;
    int nodes;
    int gpusPerNode;
    int globalBatch;
    int seqLen;
    double hbmGib; // 0: the GPU's own
};

class NeverRecommendsWhatDoesNotFit : public ::testing::TestWithParam<FitCase> { };

// Property: every candidate, re-evaluated on its own, is valid, fits its GPUs' HBM, and the list
// is ordered by step time.
TEST_P(NeverRecommendsWhatDoesNotFit, EveryCandidateFits)
{
    const FitCase c = GetParam();
    Scenario s = searchScenario(c.model, c.nodes, c.gpusPerNode, c.globalBatch, c.seqLen);
    if (c.hbmGib > 0) {
        for (auto& d : s.topology.domains)
            d.gpu.hbmBytes = c.hbmGib * 1024.0 * 1024.0 * 1024.0;
    }
    SearchOptions o;
    o.topK = 20;
    o.explain = false;
    const SearchResult r = searchConfigurations(s, o);
    double previous = 0;
    for (const Candidate& cand : r.candidates) {
        const Report rep = simulated(s, cand.point);
        EXPECT_TRUE(rep.valid) << describe(cand.point);
        EXPECT_TRUE(rep.fits) << describe(cand.point);
        // Every candidate's predicted peak is under HBM; tight ones (the range straddles HBM) are flagged.
        EXPECT_NE(rep.memoryVerdict, MemoryVerdict::DoesNotFit) << describe(cand.point);
        EXPECT_LE(rep.peakMemoryBytes, rep.hbmBytes) << describe(cand.point);
        EXPECT_NEAR(rep.stepTimeSeconds, cand.report.stepTimeSeconds, 1e-12 * rep.stepTimeSeconds);
        EXPECT_GE(cand.report.stepTimeSeconds, previous - 1e-9);
        previous = cand.report.stepTimeSeconds;
    }
    EXPECT_EQ(r.stats.enumerated, r.stats.scored + r.stats.prunedByMemoryBound);
}

INSTANTIATE_TEST_SUITE_P(Scenarios, NeverRecommendsWhatDoesNotFit,
    ::testing::Values(FitCase { "llama3-70b", 8, 8, 256, 4096, 0 }, FitCase { "llama3-70b", 8, 8, 256, 4096, 40 },
        FitCase { "llama3-8b", 1, 8, 64, 8192, 24 }, FitCase { "mixtral-8x7b", 2, 8, 64, 4096, 0 },
        FitCase { "llama3-405b", 16, 8, 256, 4096, 0 }, FitCase { "gpt3-175b", 8, 8, 128, 2048, 0 },
        FitCase { "llama3-70b", 1, 8, 64, 4096, 0 }));

TEST(ConfigSearch, NothingFitsGivesNoCandidateButALeanest)
{
    const Scenario s = searchScenario("llama3-405b", 1, 8, 32, 4096);
    const SearchResult r = searchConfigurations(s);
    EXPECT_TRUE(r.candidates.empty());
    ASSERT_TRUE(r.leanest);
    EXPECT_GT(r.leanestPeakBytes, r.hbmBytes);
    EXPECT_FALSE(r.rejected.empty());
}

TEST(ConfigSearch, ResultDoesNotDependOnThreads)
{
    const Scenario s = searchScenario("mixtral-8x7b", 2, 8, 64, 4096);
    SearchOptions one;
    one.threads = 1;
    SearchOptions two;
    two.threads = 2;
    const SearchResult a = searchConfigurations(s, one);
    const SearchResult b = searchConfigurations(s, two);
    ASSERT_EQ(a.candidates.size(), b.candidates.size());
    for (std::size_t i = 0; i < a.candidates.size(); ++i)
        EXPECT_EQ(a.candidates[i].point, b.candidates[i].point);
    ASSERT_EQ(a.rejected.size(), b.rejected.size());
    for (std::size_t i = 0; i < a.rejected.size(); ++i) {
        EXPECT_EQ(a.rejected[i].family, b.rejected[i].family);
        EXPECT_EQ(a.rejected[i].reason.text, b.rejected[i].reason.text);
    }
}

TEST(ConfigSearch, CancelledBeforeStartReturnsAtOnce)
{
    const Scenario s = searchScenario("llama3-70b", 8, 8, 256, 4096);
    std::atomic<bool> cancel { true };
    SearchOptions o;
    o.cancel = &cancel;
    const SearchResult r = searchConfigurations(s, o);
    EXPECT_TRUE(r.cancelled);
    EXPECT_TRUE(r.candidates.empty());
}

TEST(ConfigSearch, ProgressRisesToOne)
{
    const Scenario s = searchScenario("llama3-70b", 8, 8, 256, 4096);
    std::vector<double> seen;
    SearchOptions o;
    o.progress = [&](const SearchProgress& p) { seen.push_back(p.fraction); };
    const SearchResult r = searchConfigurations(s, o);
    ASSERT_FALSE(seen.empty());
    for (std::size_t i = 1; i < seen.size(); ++i)
        EXPECT_GE(seen[i], seen[i - 1]);
    EXPECT_DOUBLE_EQ(seen.back(), 1.0);
    EXPECT_FALSE(r.cancelled);
}

TEST(ConfigSearch, CancelFromAnotherThreadStops)
{
    const Scenario s = searchScenario("moe-1t", 128, 8, 1024, 4096);
    std::atomic<bool> cancel { false };
    SearchOptions o;
    o.cancel = &cancel;
    o.progress = [&](const SearchProgress& p) {
        if (p.fraction > 0.1)
            cancel = true;
    };
    const SearchResult r = searchConfigurations(s, o);
    EXPECT_TRUE(r.cancelled);
}

TEST(ConfigSearch, EveryEnumeratedConfigurationIsValid)
{
    const Scenario s = searchScenario("deepseek-v3", 4, 8, 64, 4096, "h800-sxm");
    const SearchSpace space(s);
    int checked = 0;
    for (std::size_t i = 0; i < space.layouts().size(); i += 3) {
        const Layout& l = space.layouts()[i];
        for (int ep : space.expertDegrees(l)) {
            const auto mbs = space.microBatches(l);
            if (mbs.empty())
                continue;
            const int mb = mbs.back();
            for (const ScheduleChoice& sc : space.schedules(l.pp, s.training.globalBatch / (mb * l.dp))) {
                const SearchPoint p = pointAt(l, ep, sc, mb, Recompute::Full, 1);
                EvaluateOptions eo;
                eo.simulateSchedule = false;
                const Report rep = evaluate(applyPoint(s, p), eo);
                EXPECT_TRUE(rep.valid) << describe(p) << ": " << (rep.errors.empty() ? "" : rep.errors.front().text);
                ++checked;
            }
        }
    }
    EXPECT_GT(checked, 50);
}

} // namespace

// The MoE token dispatcher is a dimension of the search where there are tokens to dispatch: NCCL's all-to-all
// and DeepEP for a MoE layout with ep > 1, nothing to choose at ep = 1 or for a dense model, and the scenario's
// own dispatcher only with SearchLimits::includeDeepEp off.
TEST(ConfigSearch, DispatcherIsADimensionOfMoeLayouts)
{
    Scenario moe = searchScenario("megatron-gpt-1.7b", 4, 8, 64, 4096);
    moe.model = parallax::test::smallMoe();
    moe.modelPreset.clear();
    const SearchSpace space(moe, SearchLimits {});
    EXPECT_EQ(space.dispatchers(1), std::vector<MoeDispatcher> { MoeDispatcher::AllToAll });
    EXPECT_EQ(space.dispatchers(16), (std::vector<MoeDispatcher> { MoeDispatcher::AllToAll, MoeDispatcher::DeepEp }));
    SearchLimits without;
    without.includeDeepEp = false;
    EXPECT_EQ(SearchSpace(moe, without).dispatchers(16), std::vector<MoeDispatcher> { MoeDispatcher::AllToAll });
    const Scenario dense = searchScenario("megatron-gpt-1.7b", 4, 8, 64, 4096);
    EXPECT_EQ(
        SearchSpace(dense, SearchLimits {}).dispatchers(16), std::vector<MoeDispatcher> { MoeDispatcher::AllToAll });

    // The search over both dispatchers is never worse than over NCCL's alone, says which one dispatches and
    // why the other loses; without DeepEP no candidate uses it.
    SearchOptions options;
    options.threads = 1;
    options.topK = 3;
    const SearchResult both = searchConfigurations(moe, options);
    options.limits = without;
    const SearchResult nccl = searchConfigurations(moe, options);
    ASSERT_FALSE(both.candidates.empty());
    ASSERT_FALSE(nccl.candidates.empty());
    EXPECT_GT(both.stats.enumerated, nccl.stats.enumerated);
    EXPECT_LE(
        both.candidates.front().report.stepTimeSeconds, nccl.candidates.front().report.stepTimeSeconds * 1.000001);
    for (const Candidate& c : nccl.candidates)
        EXPECT_NE(c.point.dispatcher, MoeDispatcher::DeepEp) << describe(c.point);
    // The winner (EP=8 here) has its dispatcher in its scenario, its description and its reasons, with what the
    // other one would cost.
    const Candidate& w = both.candidates.front();
    ASSERT_GT(w.point.ep, 1) << describe(w.point);
    EXPECT_EQ(applyPoint(moe, w.point).training.moeTokenDispatcher, w.point.dispatcher);
    EXPECT_EQ(describe(w.point).find("DeepEP") != std::string::npos, w.point.dispatcher == MoeDispatcher::DeepEp);
    bool said = false;
    for (const Reason& r : w.reasons)
        said = said || r.text.find("dispatches the tokens; with") != std::string::npos;
    EXPECT_TRUE(said);
    bool otherFamily = false;
    for (const RejectedFamily& f : both.rejected)
        otherFamily = otherFamily || f.family.find("dispatcher=") != std::string::npos;
    EXPECT_TRUE(otherFamily);
    // A dense model has no dispatcher family.
    for (const RejectedFamily& f : searchConfigurations(dense, options).rejected)
        EXPECT_EQ(f.family.find("dispatcher="), std::string::npos) << f.family;
}
