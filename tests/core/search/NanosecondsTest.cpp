// SPDX-License-Identifier: Apache-2.0
// The search's tie resolution (core/search/ClosedFormPass.h nanoseconds()) rounds as std::llround
// does, without the library call: a different rounding would reorder ties and change the answer.
#include "core/search/ClosedFormPass.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

using parallax::core::searchdetail::nanoseconds;

TEST(Nanoseconds, RoundsAsLlroundOnHalvesAndTheirNeighbours)
{
    for (long long n : { 0LL, 1LL, 2LL, 7LL, 123456789LL, 4503599627370495LL }) {
        for (double sign : { 1.0, -1.0 }) {
            const double half = sign * (static_cast<double>(n) + 0.5);
            for (double x : { half, std::nextafter(half, 0.0), std::nextafter(half, 1e300 * sign),
                     sign * static_cast<double>(n), std::nextafter(sign * static_cast<double>(n), 0.0) }) {
                EXPECT_EQ(nanoseconds(x / 1e9), std::llround((x / 1e9) * 1e9)) << x;
            }
        }
    }
    // 0.49999999999999994 is where the x + 0.5 shortcut rounds up and llround does not.
    EXPECT_EQ(nanoseconds(0.49999999999999994 / 1e9), std::llround((0.49999999999999994 / 1e9) * 1e9));
}

TEST(Nanoseconds, RoundsAsLlroundOnStepTimes)
{
    std::mt19937_64 rng(17);
    std::uniform_real_distribution<double> logSeconds(-9.0, 6.0);
    for (int i = 0; i < 200000; ++i) {
        const double s = std::pow(10.0, logSeconds(rng));
        ASSERT_EQ(nanoseconds(s), std::llround(s * 1e9)) << s;
        ASSERT_EQ(nanoseconds(-s), std::llround(-s * 1e9)) << s;
    }
    EXPECT_EQ(nanoseconds(1e12), std::llround(1e12 * 1e9)); // beyond long long's fast range: the library
    EXPECT_EQ(
        nanoseconds(std::numeric_limits<double>::infinity()), std::llround(std::numeric_limits<double>::infinity()));
}
