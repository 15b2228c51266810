// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/RankMap.h"
#include "core/io/PresetLibrary.h"

#include "tests/core/TestScenarios.h"

#include <gtest/gtest.h>

using namespace parallax::core;
using parallax::test::gpuPreset;
using parallax::test::rankConfig;

// Megatron-Core's default order "tp-cp-ep-dp-pp": tp varies fastest, pp slowest.
TEST(RankMap, CoordinatesFollowTheOrder)
{
    const RankMap map = RankMap::build(rankConfig(2, 1, 2, 2), nullptr);
    ASSERT_EQ(map.worldSize(), 8);
    const int expected[8][3] = { // tp, dp, pp
        { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 1, 1, 0 }, { 0, 0, 1 }, { 1, 0, 1 }, { 0, 1, 1 }, { 1, 1, 1 }
    };
    for (int r = 0; r < 8; ++r) {
        EXPECT_EQ(map.coords(r).tp, expected[r][0]) << r;
        EXPECT_EQ(map.coords(r).dp, expected[r][1]) << r;
        EXPECT_EQ(map.coords(r).pp, expected[r][2]) << r;
        EXPECT_EQ(map.rankAt(expected[r][0], 0, expected[r][1], expected[r][2]), r);
    }
    EXPECT_EQ(map.groups(Dim::Tp)[0].ranks, (std::vector<int> { 0, 1 }));
    EXPECT_EQ(map.groups(Dim::Dp)[0].ranks, (std::vector<int> { 0, 2 }));
    EXPECT_EQ(map.groups(Dim::Pp)[0].ranks, (std::vector<int> { 0, 4 }));
    EXPECT_EQ(map.groups(Dim::Tp).size(), 4u);
    EXPECT_EQ(map.groups(Dim::Pp).size(), 4u);
}

TEST(RankMap, OtherOrdersPermuteStrides)
{
    const RankMap map = RankMap::build(rankConfig(2, 1, 2, 2, 1, "tp-cp-ep-pp-dp"), nullptr);
    EXPECT_EQ(map.groups(Dim::Pp)[0].ranks, (std::vector<int> { 0, 2 }));
    EXPECT_EQ(map.groups(Dim::Dp)[0].ranks, (std::vector<int> { 0, 4 }));
}

// Expert view: ep carved out of the tp*cp*dp ranks of a stage; edp = tp*cp*dp / (ep*etp).
TEST(RankMap, ExpertGroups)
{
    const RankMap map = RankMap::build(rankConfig(1, 1, 8, 2, 4), nullptr);
    ASSERT_EQ(map.groups(Dim::Ep).size(), 4u); // 16 ranks / 4
    EXPECT_EQ(map.groups(Dim::Ep)[0].ranks, (std::vector<int> { 0, 1, 2, 3 }));
    EXPECT_EQ(map.groups(Dim::Edp)[0].ranks, (std::vector<int> { 0, 4 }));
    EXPECT_EQ(map.coords(5).ep, 1);
    EXPECT_EQ(map.coords(5).edp, 1);
}

struct CrossingCase {
    const char* name;
    std::vector<int> domainSizes;
    ParallelConfig config;
    int tpCrossing, dpCrossing, ppCrossing;
};

// Crossing detection on regular and mixed topologies, worked out by hand.
TEST(RankMap, GroupsCrossingDomains)
{
    const CrossingCase cases[] = {
        { "tp=8 on 2x8", { 8, 8 }, rankConfig(8, 1, 2, 1), 0, 8, 0 },
        { "tp=8 on 2x4", { 4, 4 }, rankConfig(8, 1, 1, 1), 1, 0, 0 },
        { "tp=4 on 2x4", { 4, 4 }, rankConfig(4, 1, 2, 1), 0, 4, 0 },
        { "tp=2 pp=4 on 4x2", { 2, 2, 2, 2 }, rankConfig(2, 1, 1, 4), 0, 0, 2 },
        // Mixed: a domain of 4 then one of 8. tp=4 groups are {0-3}, {4-7}, {8-11}: none cross.
        { "tp=4 on 4+8", { 4, 8 }, rankConfig(4, 1, 3, 1), 0, 4, 0 },
        // tp=2 with dp=6 on 4+8: dp groups stride 2 over all 12 ranks: both cross.
        { "tp=2 dp=6 on 4+8", { 4, 8 }, rankConfig(2, 1, 6, 1), 0, 2, 0 },
        // tp=6 on 4+8: {0..5} spans both domains, {6..11} does not; dp pairs {r, r+6} cross for r < 4.
        { "tp=6 on 4+8", { 4, 8 }, rankConfig(6, 1, 2, 1), 1, 4, 0 },
    };
    for (const auto& c : cases) {
        Topology topo;
        Fabric f;
        for (std::size_t d = 0; d < c.domainSizes.size(); ++d) {
            topo.domains.push_back({ "d" + std::to_string(d), gpuPreset("h100-sxm"), c.domainSizes[d], 0 });
            f.domains.push_back(static_cast<int>(d));
        }
        topo.fabrics.push_back(f);
        const RankMap map = RankMap::build(c.config, &topo);
        EXPECT_EQ(map.groupsCrossingDomains(Dim::Tp), c.tpCrossing) << c.name;
        EXPECT_EQ(map.groupsCrossingDomains(Dim::Dp), c.dpCrossing) << c.name;
        EXPECT_EQ(map.groupsCrossingDomains(Dim::Pp), c.ppCrossing) << c.name;
    }
}

TEST(RankMap, MixedTopologyRankToDomain)
{
    Topology topo;
    topo.domains.push_back({ "small", gpuPreset("h100-sxm"), 4, 0 });
    topo.domains.push_back({ "big", gpuPreset("h100-sxm"), 8, 0 });
    EXPECT_EQ(topo.gpuCount(), 12);
    EXPECT_EQ(topo.locate(3).domain, 0);
    EXPECT_EQ(topo.locate(4).domain, 1);
    EXPECT_EQ(topo.locate(4).indexInDomain, 0);
    EXPECT_EQ(topo.locate(11).indexInDomain, 7);
    EXPECT_EQ(topo.locate(12).domain, -1);
}

// What build() reads of the domains: the GPU count and a common domain size, only when every domain
// has it (an NVLink override does not matter to the rank map; an empty domain does).
TEST(RankMap, DomainCountsReadTheSizesOnly)
{
    Topology t = Topology::regular(gpuPreset("h100-sxm"), 4, 8, 400);
    RankMap::DomainCounts c = RankMap::DomainCounts::of(t);
    EXPECT_EQ(c.gpus, 32);
    EXPECT_EQ(c.uniformSize, 8);
    t.domains[1].nvlinkBytesPerSecond = 1e11;
    EXPECT_EQ(RankMap::DomainCounts::of(t).uniformSize, 8);
    t.domains[2].gpuCount = 4;
    c = RankMap::DomainCounts::of(t);
    EXPECT_EQ(c.gpus, 28);
    EXPECT_EQ(c.uniformSize, 0);
    t.domains[2].gpuCount = -3; // counted as empty, as Topology::gpuCount() does
    c = RankMap::DomainCounts::of(t);
    EXPECT_EQ(c.gpus, 24);
    EXPECT_EQ(c.uniformSize, 0);
    EXPECT_EQ(RankMap::DomainCounts::of(Topology {}).uniformSize, 0);
}

// Handing build() the counts changes nothing: every rank's domain is the same as when build() reads
// them itself, on alike and on mixed domains.
TEST(RankMap, BuildWithCountsMatchesBuild)
{
    Topology mixed;
    mixed.domains.push_back({ "small", gpuPreset("h100-sxm"), 4, 0 });
    mixed.domains.push_back({ "big", gpuPreset("h100-sxm"), 8, 0 });
    mixed.domains.push_back({ "big2", gpuPreset("h100-sxm"), 8, 0 });
    mixed.domains.push_back({ "small2", gpuPreset("h100-sxm"), 4, 0 });
    for (const Topology& t : { Topology::regular(gpuPreset("h100-sxm"), 3, 8, 400), mixed }) {
        const ParallelConfig p = rankConfig(4, 1, 3, 2);
        const RankMap a = RankMap::build(p, &t);
        const RankMap b = RankMap::build(p, &t, RankMap::DomainCounts::of(t));
        ASSERT_TRUE(a.hasTopology());
        ASSERT_TRUE(b.hasTopology());
        for (int r = 0; r < p.worldSize(); ++r)
            EXPECT_EQ(a.domainOfRank(r), b.domainOfRank(r)) << "rank " << r;
        for (int d = 0; d < kDimCount; ++d)
            EXPECT_EQ(a.groupsCrossingDomains(static_cast<Dim>(d)), b.groupsCrossingDomains(static_cast<Dim>(d)));
    }
    // Too few GPUs for the world: no topology, whichever way the counts come.
    const Topology small = Topology::regular(gpuPreset("h100-sxm"), 1, 8, 400);
    EXPECT_FALSE(RankMap::build(rankConfig(4, 1, 4, 1), &small, RankMap::DomainCounts::of(small)).hasTopology());
}
