// SPDX-License-Identifier: Apache-2.0
// Field-by-field, bit-exact comparisons of communicator geometry and routes, for tests that check
// a faster path against the one it replaces.
#pragma once

#include "core/cluster/FabricPath.h"
#include "core/costs/CostModel.h"

#include <gtest/gtest.h>

namespace parallax::core::testing_support {

inline void expectSameRoute(const GroupRoute& a, const GroupRoute& b)
{
    EXPECT_EQ(a.spansDomains, b.spansDomains);
    EXPECT_EQ(a.crossesFabric, b.crossesFabric);
    EXPECT_EQ(a.crossesRail, b.crossesRail);
    EXPECT_EQ(a.link.bytesPerSecond, b.link.bytesPerSecond);
    EXPECT_EQ(a.link.latencySeconds, b.link.latencySeconds);
}

inline void expectSameGroup(const CommGroup& a, const CommGroup& b)
{
    EXPECT_EQ(a.size, b.size);
    EXPECT_EQ(a.inner, b.inner);
    EXPECT_EQ(a.outer, b.outer);
    EXPECT_EQ(a.intra.bytesPerSecond, b.intra.bytesPerSecond);
    EXPECT_EQ(a.intra.latencySeconds, b.intra.latencySeconds);
    EXPECT_EQ(a.inter.bytesPerSecond, b.inter.bytesPerSecond);
    EXPECT_EQ(a.inter.latencySeconds, b.inter.latencySeconds);
}

} // namespace parallax::core::testing_support
