// SPDX-License-Identifier: Apache-2.0
#include "core/probe/ProbeStats.h"

#include <gtest/gtest.h>

using namespace parallax::probe;

TEST(ProbeStats, PercentilesInterpolateLikeNumpy)
{
    // numpy.percentile([10, 1, 9, 2, 8, 3, 7, 4, 6, 5], [10, 50, 90]) == [1.9, 5.5, 9.1]
    const Summary s = summarize({ 10, 1, 9, 2, 8, 3, 7, 4, 6, 5 });
    EXPECT_DOUBLE_EQ(s.median, 5.5);
    EXPECT_DOUBLE_EQ(s.p10, 1.9);
    EXPECT_DOUBLE_EQ(s.p90, 9.1);
    EXPECT_EQ(s.count, 10);
}

TEST(ProbeStats, SmallSamples)
{
    const Summary one = summarize({ 3.5 });
    EXPECT_DOUBLE_EQ(one.median, 3.5);
    EXPECT_DOUBLE_EQ(one.p10, 3.5);
    EXPECT_DOUBLE_EQ(one.p90, 3.5);
    const Summary none = summarize({});
    EXPECT_EQ(none.count, 0);
    EXPECT_DOUBLE_EQ(none.median, 0);
    EXPECT_DOUBLE_EQ(summarize({ 1, 2, 3 }).median, 2);
}

TEST(ProbeStats, RatesFromSecondsDropsEmptyIntervals)
{
    const std::vector<double> rates = ratesFromSeconds(100, { 0.5, 0, -1, 2 });
    ASSERT_EQ(rates.size(), 2u);
    EXPECT_DOUBLE_EQ(rates[0], 200);
    EXPECT_DOUBLE_EQ(rates[1], 50);
}
