// SPDX-License-Identifier: Apache-2.0
// The closed-form rank map and the communicator geometry from rank arithmetic against the
// enumeration they replace: every rank's coordinates and group, every group's members and domains,
// and the link geometry and routes of every group, listed rank by rank, on regular, mixed-size,
// leaf/spine and rail topologies.
#include "core/cluster/CommGroups.h"
#include "core/cluster/FabricPath.h"
#include "core/cluster/GroupGeometry.h"
#include "core/cluster/RankMap.h"
#include "core/io/PresetLibrary.h"

#include "tests/core/TestScenarios.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace parallax::core;
using parallax::test::gpuPreset;
using parallax::test::rankConfig;

namespace {
// Domains of the given sizes; `fabrics` lists each fabric's domains (empty: one fabric of all).
Topology topology(const std::vector<int>& sizes, std::vector<std::vector<int>> fabrics = {}, int nicsPerDomain = 0,
    bool railOptimized = true, bool pxn = true)
{
    Topology t;
    for (std::size_t d = 0; d < sizes.size(); ++d)
        t.domains.push_back({ "d" + std::to_string(d), gpuPreset("h100-sxm"), sizes[d], 0 });
    if (fabrics.empty()) {
        fabrics.emplace_back();
        for (std::size_t d = 0; d < sizes.size(); ++d)
            fabrics.back().push_back(static_cast<int>(d));
    }
    double latency = 5e-6;
    for (const auto& ds : fabrics) {
        Fabric f;
        f.name = "f" + std::to_string(t.fabrics.size());
        f.domains = ds;
        f.nicsPerDomain = nicsPerDomain;
        f.railOptimized = railOptimized;
        f.pxn = pxn;
        f.oversubscription = ds.size() == sizes.size() ? 2.0 : 1.0;
        f.latencySeconds = latency;
        latency += 2e-6;
        t.fabrics.push_back(f);
    }
    return t;
}

// Megatron-Core's RankGenerator, rank by rank: coordinate of `rank` on an axis of `size` whose
// stride is the product of the sizes before it in `order`.
struct Enumerated {
    std::vector<std::vector<int>> groups; // members, groups in order of their smallest rank
    std::vector<int> groupOf; // per rank
};
Enumerated enumerate(int world, int stride, int size)
{
    Enumerated e;
    e.groupOf.assign(world, -1);
    for (int r = 0; r < world; ++r) {
        if (e.groupOf[r] >= 0)
            continue;
        std::vector<int> members;
        for (int i = 0; i < size; ++i) {
            members.push_back(r + i * stride);
            e.groupOf[r + i * stride] = static_cast<int>(e.groups.size());
        }
        e.groups.push_back(members);
    }
    return e;
}

struct Case {
    const char* name;
    Topology topology;
    ParallelConfig config;
};

std::vector<Case> cases()
{
    std::vector<Case> out;
    const char* orders[] = { "tp-cp-ep-dp-pp", "tp-cp-ep-pp-dp", "tp-dp-cp-ep-pp" };
    for (const char* order : orders) {
        out.push_back({ "regular 8x8", topology(std::vector<int>(8, 8)), rankConfig(8, 1, 2, 4, 1, order) });
        out.push_back({ "regular 16x8 tp4 cp2", topology(std::vector<int>(16, 8)), rankConfig(4, 2, 4, 4, 2, order) });
        out.push_back(
            { "regular 12x8 tp2 dp12", topology(std::vector<int>(12, 8)), rankConfig(2, 1, 12, 4, 4, order) });
        out.push_back({ "tp6 on 9x4", topology(std::vector<int>(9, 4)), rankConfig(6, 1, 3, 2, 1, order) });
        out.push_back(
            { "NVL72-like 4x72 tp8 dp9 pp4", topology(std::vector<int>(4, 72)), rankConfig(8, 1, 9, 4, 8, order) });
        out.push_back({ "mixed 4+8+4+8", topology({ 4, 8, 4, 8 }), rankConfig(2, 1, 6, 2, 2, order) });
        out.push_back({ "mixed with an empty domain", topology({ 8, 0, 8, 8 }), rankConfig(4, 1, 3, 2, 1, order) });
        out.push_back({ "leaves under a spine",
            topology(std::vector<int>(8, 8), { { 0, 1, 2, 3 }, { 4, 5, 6, 7 }, { 0, 1, 2, 3, 4, 5, 6, 7 } }),
            rankConfig(4, 1, 4, 4, 2, order) });
        out.push_back(
            { "rails: 4 NICs per 8 GPUs", topology(std::vector<int>(8, 8), {}, 4), rankConfig(2, 1, 8, 4, 2, order) });
        out.push_back({ "rails without PXN", topology(std::vector<int>(16, 8), {}, 8, true, false),
            rankConfig(1, 1, 32, 4, 4, order) });
        out.push_back(
            { "fat tree", topology(std::vector<int>(16, 8), {}, 0, false), rankConfig(2, 2, 8, 4, 1, order) });
        out.push_back({ "more GPUs than ranks", topology(std::vector<int>(10, 8)), rankConfig(8, 1, 2, 4, 1, order) });
    }
    return out;
}

void expectSameLink(const LinkLevel& a, const LinkLevel& b, const std::string& what)
{
    EXPECT_EQ(a.bytesPerSecond, b.bytesPerSecond) << what;
    EXPECT_EQ(a.latencySeconds, b.latencySeconds) << what;
}

void expectSameGroup(const CommGroup& a, const CommGroup& b, const std::string& what)
{
    EXPECT_EQ(a.size, b.size) << what;
    EXPECT_EQ(a.inner, b.inner) << what;
    EXPECT_EQ(a.outer, b.outer) << what;
    expectSameLink(a.intra, b.intra, what + " intra");
    expectSameLink(a.inter, b.inter, what + " inter");
}
} // namespace

// Coordinates, group of each rank, members and domain span of each group: closed form = enumeration.
TEST(RankArithmetic, RankMapMatchesEnumeration)
{
    for (const Case& c : cases()) {
        const RankMap map = RankMap::build(c.config, &c.topology);
        const int world = c.config.worldSize();
        ASSERT_EQ(map.worldSize(), world) << c.name;
        ASSERT_TRUE(map.hasTopology()) << c.name;
        for (int r = 0; r < world; ++r)
            ASSERT_EQ(map.domainOfRank(r), c.topology.domainOf(r)) << c.name << " rank " << r;
        for (int d = 0; d < kDimCount; ++d) {
            const Dim dim = static_cast<Dim>(d);
            if (!map.hasDim(dim))
                continue;
            const std::string what = std::string(c.name) + " " + c.config.order + " " + toString(dim);
            const Enumerated e = enumerate(world, map.groupStride(dim), map.groupSize(dim));
            ASSERT_EQ(map.groupCount(dim), static_cast<int>(e.groups.size())) << what;
            const auto& groups = map.groups(dim);
            int crossing = 0;
            for (std::size_t g = 0; g < e.groups.size(); ++g) {
                ASSERT_EQ(groups[g].ranks, e.groups[g]) << what << " group " << g;
                int lo = c.topology.domainOf(e.groups[g].front()), hi = lo;
                for (int m : e.groups[g]) {
                    lo = std::min(lo, c.topology.domainOf(m));
                    hi = std::max(hi, c.topology.domainOf(m));
                }
                EXPECT_EQ(groups[g].firstDomain, lo) << what;
                EXPECT_EQ(groups[g].lastDomain, hi) << what;
                crossing += lo != hi;
            }
            EXPECT_EQ(map.groupsCrossingDomains(dim), crossing) << what;
            for (int r = 0; r < world; ++r)
                ASSERT_EQ(map.groupOf(dim, r), e.groupOf[r]) << what << " rank " << r;
        }
    }
}

// Each group's link geometry and route from rank arithmetic (a handful of domains standing for all
// when they are alike) = commGroupFor() and groupRoute() of its full member list; the counts of groups
// crossing fabrics and rails = routing every group.
TEST(RankArithmetic, GeometryMatchesFullMemberLists)
{
    for (const Case& c : cases()) {
        const RankMap map = RankMap::build(c.config, &c.topology);
        const DomainShape shape = DomainShape::of(c.topology);
        for (int d = 0; d < kDimCount; ++d) {
            const Dim dim = static_cast<Dim>(d);
            if (!map.hasDim(dim))
                continue;
            const std::string what = std::string(c.name) + " " + c.config.order + " " + toString(dim);
            GroupCrossings expected;
            for (const ParallelGroup& g : map.groups(dim)) {
                const int base = g.ranks.front();
                const CommGroup full = commGroupFor(g.ranks, c.topology, map);
                expectSameGroup(stridedCommGroup(c.topology, shape, base, map.groupStride(dim), map.groupSize(dim)),
                    full, what + " group " + std::to_string(g.index));
                const bool chain = dim == Dim::Pp;
                const GroupRoute route = chain ? chainRoute(c.topology, g.ranks) : groupRoute(c.topology, g.ranks);
                const GroupRoute strided
                    = stridedGroupRoute(c.topology, shape, base, map.groupStride(dim), map.groupSize(dim), chain);
                expectSameLink(strided.link, route.link, what + " route");
                EXPECT_EQ(strided.crossesRail, route.crossesRail) << what;
                EXPECT_EQ(strided.crossesFabric, route.crossesFabric) << what;
                if (g.crossesDomain) {
                    expected.fabrics += route.crossesFabric;
                    expected.rails += route.crossesRail;
                }
            }
            const GroupCrossings counted = groupCrossings(c.topology, shape, map, dim);
            EXPECT_EQ(counted.fabrics, expected.fabrics) << what;
            EXPECT_EQ(counted.rails, expected.rails) << what;
            // Asked again, from the per-thread cache of alike topologies: the same counts.
            const GroupCrossings again = groupCrossings(c.topology, shape, map, dim);
            EXPECT_EQ(again.fabrics, expected.fabrics) << what << " (cached)";
            EXPECT_EQ(again.rails, expected.rails) << what << " (cached)";
        }
    }
}

// The engine's communicators (the more spread of a dimension's first and last group; dp x cp for
// gradients) from rank arithmetic = the same groups listed rank by rank.
TEST(RankArithmetic, EngineCommunicatorsMatchListedGroups)
{
    for (const Case& c : cases()) {
        const RankMap map = RankMap::build(c.config, &c.topology);
        bool calibrated = false;
        const EngineCommGroups comm = buildCommGroups(c.config, c.topology, map, nullptr, calibrated);
        auto listed = [&](Dim d) {
            const auto& groups = map.groups(d);
            if (groups.empty())
                return CommGroup {};
            const ParallelGroup& front = groups.front();
            const ParallelGroup& back = groups.back();
            const ParallelGroup& g
                = back.lastDomain - back.firstDomain > front.lastDomain - front.firstDomain ? back : front;
            return commGroupFor(g.ranks, c.topology, map);
        };
        const std::string what = std::string(c.name) + " " + c.config.order;
        expectSameGroup(comm.tp, listed(Dim::Tp), what + " tp");
        expectSameGroup(comm.cp, listed(Dim::Cp), what + " cp");
        expectSameGroup(comm.ep, listed(Dim::Ep), what + " ep");
        expectSameGroup(comm.edp, listed(Dim::Edp), what + " edp");
        std::vector<int> dpcp;
        for (int cp = 0; cp < c.config.cp; ++cp) {
            for (int dp = 0; dp < c.config.dp; ++dp)
                dpcp.push_back(map.rankAt(0, cp, dp, 0));
        }
        expectSameGroup(comm.dp, commGroupFor(dpcp, c.topology, map), what + " dp x cp");
    }
}
