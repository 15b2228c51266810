// SPDX-License-Identifier: Apache-2.0
// A cluster of two GPU types: each pipeline stage is held to the HBM of the GPUs that hold it, not to
// the smallest GPU of the cluster (core/cluster/StageHbm.h).
#include "../TestScenarios.h"

#include "core/Engine.h"
#include "core/cluster/RankMap.h"
#include "core/cluster/StageHbm.h"
#include "core/report/ReportJson.h"
#include "core/search/ConfigSearch.h"

#include <gtest/gtest.h>

using namespace parallax::core;
using namespace parallax::test;

namespace {
// Llama 3 70B, tp=8 pp=2 on two nodes: `first` GPUs in node 0 (pipeline stage 0), `second` in node 1.
// The first stage holds 48 of the 80 layers, so it needs more than an H100 has.
Scenario twoNodes(const std::string& first, const std::string& second)
{
    ParallelConfig p = degrees(8, 2, 1);
    p.firstStageLayers = 48;
    Scenario s = makeScenario("llama3-70b", "h100-sxm", 2, 8, p, batch(1, 16, 4096, Recompute::Full));
    s.topology.domains[0].gpu = gpuPreset(first);
    s.topology.domains[1].gpu = gpuPreset(second);
    return s;
}
} // namespace

TEST(MixedHbm, EachStageHasTheHbmOfItsGpus)
{
    const Scenario s = twoNodes("h200", "h100-sxm");
    const RankMap map = RankMap::build(s.parallel, &s.topology);
    const std::vector<double> hbm = pipelineRankHbmBytes(s.topology, map, 2);
    ASSERT_EQ(hbm.size(), 2u);
    EXPECT_EQ(hbm[0], gpuPreset("h200").hbmBytes);
    EXPECT_EQ(hbm[1], gpuPreset("h100-sxm").hbmBytes);

    // One GPU type: every stage has its HBM.
    const Scenario one = twoNodes("h100-sxm", "h100-sxm");
    for (double h : pipelineRankHbmBytes(one.topology, RankMap::build(one.parallel, &one.topology), 2))
        EXPECT_EQ(h, gpuPreset("h100-sxm").hbmBytes);
}

TEST(MixedHbm, TheFullStageOnTheLargerGpusFits)
{
    const Scenario s = twoNodes("h200", "h100-sxm");
    const Report r = evaluate(s);
    ASSERT_TRUE(r.valid) << (r.errors.empty() ? "" : r.errors.front().text);
    ASSERT_EQ(r.stages.size(), 2u);
    // Stage 0 needs more than an H100's 80 GiB, less than an H200's 141 GiB; stage 1 fits in 80 GiB.
    EXPECT_GT(r.stages[0].highBytes, gpuPreset("h100-sxm").hbmBytes);
    EXPECT_LT(r.stages[0].highBytes, gpuPreset("h200").hbmBytes);
    EXPECT_LT(r.stages[1].highBytes, gpuPreset("h100-sxm").hbmBytes);
    EXPECT_TRUE(r.fits);
    EXPECT_EQ(r.memoryVerdict, MemoryVerdict::Fits);
    // The peak is the stage with the least headroom, reported against its own GPUs' HBM.
    const int tight
        = r.stages[0].hbmBytes - r.stages[0].totalBytes() < r.stages[1].hbmBytes - r.stages[1].totalBytes() ? 0 : 1;
    EXPECT_EQ(r.peakMemoryStage, tight);
    EXPECT_EQ(r.hbmBytes, r.stages[static_cast<std::size_t>(tight)].hbmBytes);
    const auto j = reportToJson(s, r);
    EXPECT_EQ(j["memory"]["stages"][0]["hbm_bytes"].get<double>(), gpuPreset("h200").hbmBytes);
    EXPECT_EQ(j["memory"]["stages"][1]["hbm_bytes"].get<double>(), gpuPreset("h100-sxm").hbmBytes);

    // The search's fit check holds each stage to its own GPUs as well.
    EXPECT_TRUE(fitsInMemory(r, false));
}

TEST(MixedHbm, TheFullStageOnTheSmallerGpusDoesNotFit)
{
    const Report r = evaluate(twoNodes("h100-sxm", "h200"));
    ASSERT_TRUE(r.valid);
    EXPECT_FALSE(r.fits);
    EXPECT_EQ(r.memoryVerdict, MemoryVerdict::DoesNotFit);
    EXPECT_EQ(r.peakMemoryStage, 0);
    EXPECT_EQ(r.hbmBytes, gpuPreset("h100-sxm").hbmBytes);
    EXPECT_FALSE(fitsInMemory(r, false));
}
