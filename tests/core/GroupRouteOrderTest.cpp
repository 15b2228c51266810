// SPDX-License-Identifier: Apache-2.0
// groupRoute() walks members listed in rank order from one domain to the next instead of searching
// every domain for each, and skips the sort they do not need: the route of a group must not depend on
// the order its members are listed in, on domains of uneven and zero size and on several fabrics.
#include "RouteExpectations.h"
#include "core/cluster/FabricPath.h"
#include "core/cluster/Topology.h"
#include "core/io/PresetLibrary.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

using namespace parallax::core;
using parallax::core::testing_support::expectSameRoute;

namespace {

Topology unevenTopology()
{
    const GpuSpec h100 = *PresetLibrary::instance().gpu("h100-sxm");
    Topology t;
    const int sizes[] = { 8, 4, 0, 8, 1, 1, 0, 0, 6, 8, 8, 2, 8, 8, 8, 8 };
    for (int i = 0; i < 16; ++i)
        t.domains.push_back({ "d" + std::to_string(i), h100, sizes[i], 0 });
    Fabric leafA, leafB, spine;
    leafA.name = "leafA";
    leafA.nicsPerDomain = 4;
    leafB.name = "leafB";
    leafB.nicGbps = 200;
    spine.name = "spine";
    spine.oversubscription = 2;
    spine.railOptimized = false;
    for (int d = 0; d < 16; ++d) {
        (d < 8 ? leafA : leafB).domains.push_back(d);
        spine.domains.push_back(15 - d);
    }
    t.fabrics = { leafA, leafB, spine };
    return t;
}

} // namespace

TEST(GroupRouteOrder, AscendingAndShuffledMembersRouteAlike)
{
    const Topology t = unevenTopology();
    const int gpus = t.gpuCount();
    ASSERT_EQ(gpus, 78);
    std::mt19937 rng(17);
    int spanning = 0;
    for (int stride = 1; stride <= 24; ++stride) {
        for (int base = 0; base < stride && base < gpus; ++base) {
            std::vector<int> members;
            for (int r = base; r < gpus; r += stride)
                members.push_back(r);
            std::vector<int> shuffled = members;
            std::shuffle(shuffled.begin(), shuffled.end(), rng);
            const GroupRoute ascending = groupRoute(t, members);
            spanning += ascending.spansDomains;
            expectSameRoute(ascending, groupRoute(t, shuffled));
            // Members beyond the cluster are ignored in either order.
            members.push_back(gpus + 3);
            shuffled.insert(shuffled.begin(), gpus + 3);
            expectSameRoute(groupRoute(t, members), groupRoute(t, shuffled));
        }
    }
    EXPECT_GT(spanning, 100);
}
