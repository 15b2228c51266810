// SPDX-License-Identifier: Apache-2.0
#include "core/costs/GroupLimitedRouting.h"

#include <gtest/gtest.h>

#include <cmath>

using parallax::core::groupLimitedUnitsTouched;

namespace {

// Units touched by k picks uniform over all the experts: units (1 - C(experts - unit, k) / C(experts, k)).
double uniformTouched(int experts, int k, int units)
{
    const int unit = experts / units;
    double miss = 1;
    for (int i = 0; i < k; ++i)
        miss *= static_cast<double>(experts - unit - i) / (experts - i);
    return units * (1 - miss);
}

} // namespace

// With one expert kept per group (top_k = group_topk) the groups' scores are their best experts, so the
// token's top_k are the global top_k: exactly uniform picks, a closed form the simulation must meet.
TEST(GroupLimitedRouting, OneExpertPerChosenGroupIsTheGlobalTopK)
{
    EXPECT_NEAR(groupLimitedUnitsTouched(256, 4, 8, 4, 8), uniformTouched(256, 4, 8), 0.02);
    EXPECT_NEAR(groupLimitedUnitsTouched(256, 4, 8, 4, 64), uniformTouched(256, 4, 64), 0.02);
}

// DeepSeek-V3 (256 experts, top 8 of the best 4 of 8 groups by their top-2 scores, a group per node): a chosen
// group was chosen for its best experts, so nearly every one receives a pick; never more than 4 nodes.
TEST(GroupLimitedRouting, DeepSeekV3ReachesNearlyAllItsChosenNodes)
{
    const double nodes = groupLimitedUnitsTouched(256, 8, 8, 4, 8);
    EXPECT_LE(nodes, 4.0);
    EXPECT_GT(nodes, 3.85);
    EXPECT_GT(groupLimitedUnitsTouched(256, 8, 8, 4, 64), groupLimitedUnitsTouched(256, 8, 8, 4, 32));
}

// The same arguments give the same figure (seeded, then cached); arguments outside the rule's domain give 0.
TEST(GroupLimitedRouting, DeterministicAndBoundedToItsDomain)
{
    EXPECT_EQ(groupLimitedUnitsTouched(160, 6, 8, 3, 16), groupLimitedUnitsTouched(160, 6, 8, 3, 16));
    EXPECT_EQ(groupLimitedUnitsTouched(256, 8, 1, 1, 8), 0.0);
    EXPECT_EQ(groupLimitedUnitsTouched(256, 8, 8, 8, 8), 0.0);
    EXPECT_EQ(groupLimitedUnitsTouched(250, 8, 8, 4, 8), 0.0);
    EXPECT_EQ(groupLimitedUnitsTouched(256, 0, 8, 4, 8), 0.0);
    EXPECT_LE(groupLimitedUnitsTouched(16, 8, 4, 2, 1000), 8.0);
}
