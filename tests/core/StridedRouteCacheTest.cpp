// SPDX-License-Identifier: Apache-2.0
// The per-thread cache of strided routes on alike domains (core/cluster/GroupGeometry.h): a cached
// result equals the one computed without the cache, bit for bit, for every group pattern, and a
// result of one topology is never served for another.
#include "RouteExpectations.h"
#include "core/cluster/GroupGeometry.h"
#include "core/cluster/TopologySummary.h"
#include "core/io/PresetLibrary.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

using namespace parallax::core;
using parallax::core::testing_support::expectSameGroup;
using parallax::core::testing_support::expectSameRoute;

namespace {
// `domains` alike domains of 8 H100, one rail-optimised fabric of `nicGbps` NICs, 4 per domain
// (two GPUs per rail), so that routes depend on the members' positions inside their domains.
Topology alike(int domains, double nicGbps)
{
    Topology t = Topology::regular(*PresetLibrary::instance().gpu("h100-sxm"), domains, 8, nicGbps, 4);
    for (Fabric& f : t.fabrics) {
        f.railOptimized = true;
        f.pxn = false;
        f.oversubscription = 2.0;
    }
    return t;
}

DomainShape uncached(DomainShape shape)
{
    shape.routeCacheId = 0;
    return shape;
}

} // namespace

TEST(StridedRouteCache, EqualTopologiesShareAnIdAndMixedOnesGetNone)
{
    const Topology t = alike(4, 400);
    const Topology copy = t; // another object, equal content
    const DomainShape a = DomainShape::of(t);
    ASSERT_TRUE(a.alike);
    EXPECT_NE(a.routeCacheId, 0u);
    EXPECT_EQ(DomainShape::of(t).routeCacheId, a.routeCacheId);
    EXPECT_EQ(DomainShape::of(copy).routeCacheId, a.routeCacheId);
    const TopologySummary s = TopologySummary::of(copy);
    ASSERT_TRUE(s.shape.alike);
    EXPECT_EQ(s.shape.routeCacheId, a.routeCacheId);

    Topology mixed = t;
    mixed.domains.back().gpuCount = 4;
    EXPECT_EQ(DomainShape::of(mixed).routeCacheId, 0u);
    EXPECT_EQ(TopologySummary::of(mixed).shape.routeCacheId, 0u);
}

// Every property a route reads gives its own id when it differs: the domain count, the NVLink
// bandwidth, and each of a fabric's link fields. (Removing any of them from the id's content makes
// its case here fail.)
TEST(StridedRouteCache, TopologiesDifferingInAnyLinkGetTheirOwnIds)
{
    const Topology t = alike(4, 400);
    const std::uint64_t id = DomainShape::of(t).routeCacheId;
    std::vector<std::pair<const char*, Topology>> variants;
    variants.emplace_back("domains", alike(5, 400));
    auto variant = [&](const char* name, auto edit) {
        Topology v = t;
        edit(v);
        variants.emplace_back(name, v);
    };
    variant("nvlink", [](Topology& v) {
        for (NvlinkDomain& d : v.domains)
            d.nvlinkBytesPerSecond = 0.5 * d.gpu.nvlinkBytesPerSecond;
    });
    variant("nicGbps", [](Topology& v) { v.fabrics[0].nicGbps = 200; });
    variant("nicsPerDomain", [](Topology& v) { v.fabrics[0].nicsPerDomain = 8; });
    variant("latencySeconds", [](Topology& v) { v.fabrics[0].latencySeconds *= 2; });
    variant("oversubscription", [](Topology& v) { v.fabrics[0].oversubscription = 4; });
    variant("railOptimized", [](Topology& v) { v.fabrics[0].railOptimized = false; });
    variant("pxn", [](Topology& v) { v.fabrics[0].pxn = true; });
    variant("a second fabric", [](Topology& v) { v.fabrics.push_back(v.fabrics[0]); });
    for (const auto& [name, v] : variants) {
        SCOPED_TRACE(name);
        const DomainShape shape = DomainShape::of(v);
        ASSERT_TRUE(shape.alike);
        EXPECT_NE(shape.routeCacheId, 0u);
        EXPECT_NE(shape.routeCacheId, id);
    }
}

// More distinct clusters than the id table holds, asked in turn twice: every answer equals the
// uncached one, whether the cluster's id survived or it got a new one.
TEST(StridedRouteCache, ManyClustersInTurnStayCorrect)
{
    std::vector<Topology> clusters;
    for (int k = 0; k < 12; ++k)
        clusters.push_back(alike(8, 100.0 + 25.0 * k));
    for (int round = 0; round < 2; ++round) {
        for (const Topology& t : clusters) {
            const DomainShape shape = DomainShape::of(t);
            expectSameGroup(stridedCommGroup(t, shape, 3, 8, 8), stridedCommGroup(t, uncached(shape), 3, 8, 8));
            expectSameRoute(
                stridedGroupRoute(t, shape, 1, 3, 16, false), stridedGroupRoute(t, uncached(shape), 1, 3, 16, false));
        }
    }
}

// Every base, stride and size that fits in 16 domains of 8, asked twice (the second time from the
// cache), against the same shape with the cache off.
TEST(StridedRouteCache, CachedResultsEqualUncachedOnes)
{
    const Topology t = alike(16, 400);
    const DomainShape shape = DomainShape::of(t);
    ASSERT_TRUE(shape.alike);
    const int world = t.gpuCount();
    int checked = 0;
    for (int stride : { 1, 2, 3, 4, 8, 12, 16, 32 }) {
        for (int size = 1; size * stride <= world; size *= 2) {
            for (int base = 0; base + (size - 1) * stride < world; base += 5) {
                for (int pass = 0; pass < 2; ++pass) {
                    SCOPED_TRACE(testing::Message() << "base " << base << " stride " << stride << " size " << size);
                    expectSameGroup(stridedCommGroup(t, shape, base, stride, size),
                        stridedCommGroup(t, uncached(shape), base, stride, size));
                    for (bool chain : { false, true })
                        expectSameRoute(stridedGroupRoute(t, shape, base, stride, size, chain),
                            stridedGroupRoute(t, uncached(shape), base, stride, size, chain));
                }
                ++checked;
            }
        }
    }
    EXPECT_GT(checked, 100);
}

// Two topologies alike in everything but their NICs, asked in turn for the same pattern: each gets
// its own links. A cache keyed by the pattern alone would hand the first one's to the second.
TEST(StridedRouteCache, NeverServesAnotherTopologysResult)
{
    const Topology slow = alike(8, 200);
    const Topology fast = alike(8, 400);
    const DomainShape slowShape = DomainShape::of(slow);
    const DomainShape fastShape = DomainShape::of(fast);
    for (int round = 0; round < 2; ++round) {
        const CommGroup a = stridedCommGroup(slow, slowShape, 0, 8, 8);
        const CommGroup b = stridedCommGroup(fast, fastShape, 0, 8, 8);
        EXPECT_DOUBLE_EQ(b.inter.bytesPerSecond, 2 * a.inter.bytesPerSecond);
        const GroupRoute ra = stridedGroupRoute(slow, slowShape, 3, 8, 8, false);
        const GroupRoute rb = stridedGroupRoute(fast, fastShape, 3, 8, 8, false);
        EXPECT_DOUBLE_EQ(rb.link.bytesPerSecond, 2 * ra.link.bytesPerSecond);
    }
}

// A group shifted by whole domains has its unshifted route: the cache may serve it.
TEST(StridedRouteCache, ShiftingByWholeDomainsKeepsTheRoute)
{
    const Topology t = alike(16, 400);
    const DomainShape off = uncached(DomainShape::of(t));
    for (int base : { 1, 6 }) {
        for (int shift : { 8, 24, 64 }) {
            expectSameGroup(stridedCommGroup(t, off, base + shift, 4, 8), stridedCommGroup(t, off, base, 4, 8));
            expectSameRoute(
                stridedGroupRoute(t, off, base + shift, 3, 8, false), stridedGroupRoute(t, off, base, 3, 8, false));
            expectSameRoute(
                stridedGroupRoute(t, off, base + shift, 9, 4, true), stridedGroupRoute(t, off, base, 9, 4, true));
        }
    }
}
