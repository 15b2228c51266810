// SPDX-License-Identifier: Apache-2.0
#include "core/search/ClosedFormScorer.h"
#include "core/Engine.h"
#include "core/calibration/Calibration.h"
#include "core/search/SearchSpace.h"

#include "../TestScenarios.h"

#include <gtest/gtest.h>

#include <random>

using namespace parallax::core;
using parallax::test::batch;
using parallax::test::degrees;
using parallax::test::makeScenario;

namespace {

struct Case {
    const char* model;
    const char* gpu;
    int nodes;
    int gpusPerNode;
    int globalBatch;
    int seq;
    bool calibrated = false;
};

// A probe calibration: measured GEMM throughput and intra-domain bus bandwidth replace the datasheet.
Calibration probeCalibration()
{
    Calibration c;
    Calibration::GemmPoint g;
    g.m = g.n = g.k = 8192;
    g.flopsPerSecond = 600e12;
    c.gemm.push_back(g);
    Calibration::CollectivePoint a;
    a.kind = CollectiveKind::AllReduce;
    a.ranks = 8;
    a.bytes = 64e6;
    a.busBytesPerSecond = 225e9;
    c.collectives.push_back(a);
    c.hbmBytesPerSecond = 3.0e12;
    return c;
}

// The specialised closed-form path must reproduce evaluate(simulateSchedule=false) for every kind of
// configuration the search enumerates: sampled at random over each scenario's space.
class ClosedFormScorerTest : public ::testing::TestWithParam<Case> { };

TEST_P(ClosedFormScorerTest, MatchesEngineClosedForm)
{
    const Case c = GetParam();
    const Scenario base = makeScenario(
        c.model, c.gpu, c.nodes, c.gpusPerNode, degrees(1, 1, c.nodes * c.gpusPerNode), batch(1, c.globalBatch, c.seq));
    const SearchSpace space(base);
    const Calibration calibration = probeCalibration();
    const Calibration* cal = c.calibrated ? &calibration : nullptr;
    ClosedFormScorer scorer(base, cal);
    std::mt19937 rng(42);
    std::vector<ClosedFormScore> scores;
    int checked = 0;
    for (int trial = 0; trial < 400 && !space.layouts().empty(); ++trial) {
        const Layout& l = space.layouts()[rng() % space.layouts().size()];
        const auto eps = space.expertDegrees(l);
        const int ep = eps[rng() % eps.size()];
        const auto mbs = space.microBatches(l);
        if (mbs.empty())
            continue;
        const int mb = mbs[rng() % mbs.size()];
        const int m = c.globalBatch / (mb * l.dp);
        const auto schedules = space.schedules(l.pp, m);
        const ScheduleChoice s = schedules[rng() % schedules.size()];
        const Recompute rc = SearchSpace::kRecomputeModes[rng() % 3];
        const std::vector<int> zeros = space.zeroStages(l, ep);
        const LayoutComm comm = scorer.layoutComm(l, ep);
        scorer.score(l, ep, comm, mb, s, rc, zeros, scores);
        for (std::size_t i = 0; i < zeros.size(); ++i) {
            const SearchPoint p = pointAt(l, ep, s, mb, rc, zeros[i]);
            const Scenario sc = applyPoint(base, p);
            EvaluateOptions o;
            o.calibration = cal;
            o.simulateSchedule = false;
            o.keepTimeline = false;
            const Report r = evaluate(sc, o);
            ASSERT_TRUE(r.valid) << describe(p) << ": " << (r.errors.empty() ? "" : r.errors.front().text);
            EXPECT_NEAR(scores[i].stepSeconds, r.stepTimeSeconds, 1e-9 * r.stepTimeSeconds) << describe(p);
            EXPECT_NEAR(scores[i].peakBytes, r.peakMemoryBytes, 1e-9 * r.peakMemoryBytes) << describe(p);
            EXPECT_EQ(scores[i].peakStage, r.peakMemoryStage) << describe(p);
            // The search keeps to layouts whose predicted peak is under HBM (ConfigSearch fitsInMemory).
            EXPECT_EQ(scores[i].fits, r.peakMemoryBytes <= r.hbmBytes) << describe(p);
            EXPECT_EQ(comm.tpCrossesDomain, r.groupsCrossingDomains[static_cast<int>(Dim::Tp)] > 0) << describe(p);
            ++checked;
        }
    }
    EXPECT_GT(checked, 100);
}

INSTANTIATE_TEST_SUITE_P(Scenarios, ClosedFormScorerTest,
    ::testing::Values(Case { "llama3-70b", "h100-sxm", 8, 8, 64, 4096 },
        Case { "moe-1t", "h100-sxm", 16, 8, 256, 4096 }, Case { "gpt3-175b", "a100-sxm-80gb", 8, 4, 96, 2048 },
        Case { "deepseek-v3", "h800-sxm", 8, 8, 128, 4096 }, Case { "mixtral-8x7b", "h100-sxm", 2, 8, 32, 4096 },
        Case { "llama3-70b", "h100-sxm", 4, 8, 64, 4096, true },
        Case { "moe-1t", "h100-sxm", 16, 8, 256, 4096, true }));

} // namespace
