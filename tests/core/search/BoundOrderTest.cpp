// SPDX-License-Identifier: Apache-2.0
// The branch and bound takes its candidates from a heap instead of a sorted window
// (core/search/ClosedFormPass.h): the order it hands out and the window's contents must be those of
// a full sort, or the search would simulate other configurations and could miss the optimum.
#include "core/search/ClosedFormPass.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

using namespace parallax::core;
using namespace parallax::core::searchdetail;

namespace {
// Random points with many equal bounds, so that ties go to `uneven` and the key.
std::vector<BoundedPoint> randomPoints(int n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> bound(0, 40), small(1, 8);
    std::vector<BoundedPoint> out;
    for (int i = 0; i < n; ++i) {
        BoundedPoint b;
        b.boundNs = bound(rng);
        b.uneven = small(rng) > 6;
        b.point.tp = small(rng);
        b.point.pp = small(rng);
        b.point.dp = small(rng);
        b.point.microBatch = small(rng);
        b.point.zero = small(rng) % 4;
        out.push_back(b);
    }
    // A total order needs distinct points: drop repeats.
    std::sort(out.begin(), out.end(), boundedBefore);
    out.erase(
        std::unique(out.begin(), out.end(),
            [](const BoundedPoint& a, const BoundedPoint& b) { return !boundedBefore(a, b) && !boundedBefore(b, a); }),
        out.end());
    std::shuffle(out.begin(), out.end(), rng);
    return out;
}

std::vector<BoundedPoint> handedOut(BoundOrder& order)
{
    std::vector<BoundedPoint> out;
    for (; !order.empty(); order.pop())
        out.push_back(order.front());
    return out;
}

bool sameOrder(const std::vector<BoundedPoint>& a, const std::vector<BoundedPoint>& b)
{
    return a.size() == b.size()
        && std::equal(a.begin(), a.end(), b.begin(), [](const BoundedPoint& x, const BoundedPoint& y) {
               return x.boundNs == y.boundNs && x.uneven == y.uneven && x.point.key() == y.point.key();
           });
}
} // namespace

TEST(BoundOrder, HandsOutTheSortedOrder)
{
    const std::vector<BoundedPoint> points = randomPoints(3000, 3);
    std::vector<BoundedPoint> sorted = points;
    std::sort(sorted.begin(), sorted.end(), boundedBefore);
    bool more = false;
    BoundOrder order(points, points.size() + 5, more);
    EXPECT_FALSE(more);
    ASSERT_TRUE(order.last());
    EXPECT_EQ(order.last()->point.key(), sorted.back().point.key());
    EXPECT_TRUE(sameOrder(handedOut(order), sorted));
}

TEST(BoundOrder, AFullWindowKeepsTheFirstOnes)
{
    const std::vector<BoundedPoint> points = randomPoints(3000, 5);
    std::vector<BoundedPoint> sorted = points;
    std::sort(sorted.begin(), sorted.end(), boundedBefore);
    const std::size_t capacity = 700;
    bool more = false;
    BoundOrder order(points, capacity, more);
    EXPECT_TRUE(more);
    ASSERT_TRUE(order.last());
    EXPECT_EQ(order.last()->point.key(), sorted[capacity - 1].point.key());
    sorted.resize(capacity);
    EXPECT_TRUE(sameOrder(handedOut(order), sorted));
    bool none = false;
    BoundOrder empty({}, capacity, none);
    EXPECT_TRUE(empty.empty());
    EXPECT_FALSE(empty.last());
    EXPECT_FALSE(none);
}

// Two workers' buffers, each over capacity, merged: the first `capacity` of all offered.
TEST(WindowBuffer, KeepsTheFirstCapacityOfWhatItWasOffered)
{
    const std::vector<BoundedPoint> points = randomPoints(4000, 11);
    const std::size_t capacity = 500;
    WindowBuffer a, b;
    bool full = false;
    for (std::size_t i = 0; i < points.size(); ++i)
        full = !(i % 2 ? a : b).offer(points[i], capacity) || full;
    EXPECT_TRUE(full);
    std::vector<BoundedPoint> merged = a.take();
    const std::vector<BoundedPoint> other = b.take();
    EXPECT_EQ(merged.size(), capacity);
    merged.insert(merged.end(), other.begin(), other.end());
    bool more = false;
    BoundOrder order(merged, capacity, more);
    EXPECT_TRUE(more);
    std::vector<BoundedPoint> sorted = points;
    std::sort(sorted.begin(), sorted.end(), boundedBefore);
    sorted.resize(capacity);
    EXPECT_TRUE(sameOrder(handedOut(order), sorted));
    EXPECT_TRUE(a.take().empty()); // taken: empty afterwards
}
