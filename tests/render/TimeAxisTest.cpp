// SPDX-License-Identifier: Apache-2.0
#include "ui/render/TimeAxis.h"

#include <gtest/gtest.h>

#include <cmath>

using parallax::render::TimeAxis;

TEST(TimeAxis, MapsTimeToPixelsBothWays)
{
    TimeAxis a(0, 10, 100, 1000); // 10 s over 1000 px starting at x = 100
    EXPECT_DOUBLE_EQ(a.toPixel(0), 100);
    EXPECT_DOUBLE_EQ(a.toPixel(10), 1100);
    EXPECT_DOUBLE_EQ(a.toPixel(2.5), 350);
    EXPECT_DOUBLE_EQ(a.toTime(350), 2.5);
    EXPECT_DOUBLE_EQ(a.pixelsPerSecond(), 100);
    EXPECT_TRUE(a.isFullyZoomedOut());
}

TEST(TimeAxis, ZoomKeepsTheTimeUnderTheAnchor)
{
    TimeAxis a(0, 10, 0, 1000);
    const double anchorX = 730;
    const double before = a.toTime(anchorX);
    a.zoomAt(anchorX, 4);
    EXPECT_NEAR(a.span(), 2.5, 1e-12);
    EXPECT_NEAR(a.toTime(anchorX), before, 1e-12);
    a.zoomAt(anchorX, 0.5);
    EXPECT_NEAR(a.span(), 5, 1e-12);
    EXPECT_NEAR(a.toTime(anchorX), before, 1e-12);
}

TEST(TimeAxis, ZoomIsClampedToMinimumSpanAndFullRange)
{
    TimeAxis a(0, 10, 0, 1000);
    a.setMinSpan(1e-3);
    a.zoomAt(500, 1e9);
    EXPECT_NEAR(a.span(), 1e-3, 1e-15);
    EXPECT_NEAR(a.toTime(500), 5, 1e-9);
    a.zoomAt(500, 1e-9);
    EXPECT_DOUBLE_EQ(a.viewStart(), 0);
    EXPECT_DOUBLE_EQ(a.viewEnd(), 10);
    // Zooming out near an edge shifts the view back inside the full range.
    a.setView(9, 10);
    a.zoomAt(0, 0.5); // anchored at 9 s the view would be [9, 11]: it shifts to [8, 10]
    EXPECT_DOUBLE_EQ(a.viewEnd(), 10);
    EXPECT_NEAR(a.viewStart(), 8, 1e-12);
}

TEST(TimeAxis, PanStaysInsideTheFullRange)
{
    TimeAxis a(0, 10, 0, 1000);
    a.setView(2, 4);
    a.panPixels(100); // content moves right: earlier times come into view
    EXPECT_NEAR(a.viewStart(), 1.8, 1e-12);
    a.panTime(-100);
    EXPECT_DOUBLE_EQ(a.viewStart(), 0);
    EXPECT_NEAR(a.span(), 2, 1e-12);
    a.panTime(100);
    EXPECT_DOUBLE_EQ(a.viewEnd(), 10);
    EXPECT_NEAR(a.span(), 2, 1e-12);
}

TEST(TimeAxis, NiceStepsAreOneTwoFiveTimesAPowerOfTen)
{
    struct Case {
        double raw, nice;
    };
    for (const Case& c : { Case { 0.7, 1 }, Case { 1, 1 }, Case { 1.01, 2 }, Case { 2, 2 }, Case { 3, 5 },
             Case { 7, 10 }, Case { 0.0023, 0.005 }, Case { 2e-3, 2e-3 }, Case { 140, 200 }, Case { 4.2e-7, 5e-7 } }) {
        EXPECT_NEAR(TimeAxis::niceStep(c.raw), c.nice, c.nice * 1e-12) << "raw " << c.raw;
    }
}

TEST(TimeAxis, TicksAreSpacedAndLabelledWithAUnitFromTheStep)
{
    TimeAxis a(0, 2.82, 0, 1350);
    const auto ticks = a.ticks(90);
    ASSERT_GE(ticks.size(), 3u);
    for (std::size_t i = 1; i < ticks.size(); ++i)
        EXPECT_GE(ticks[i].x - ticks[i - 1].x, 90 - 1e-9);
    EXPECT_EQ(ticks.front().label, QStringLiteral("0.0 s"));
    EXPECT_EQ(ticks[1].label, QStringLiteral("0.2 s"));

    struct Case {
        double step, t;
        const char* label;
    };
    for (const Case& c : { Case { 1, 3, "3 s" }, Case { 0.5, 1.5, "1.5 s" }, Case { 0.05, 3.05, "3050 ms" },
             Case { 2e-3, 0.004, "4 ms" }, Case { 2e-5, 1.02e-3, "1020 µs" }, Case { 1e-4, 3e-4, "0.3 ms" },
             Case { 5e-6, 1.5e-5, "15 µs" }, Case { 5e-8, 1.5e-7, "150 ns" } }) {
        EXPECT_EQ(a.formatTick(c.t, c.step), QString::fromUtf8(c.label)) << "step " << c.step << " t " << c.t;
    }
    TimeAxis u(0, 33, 0, 1000);
    u.setUnits(TimeAxis::Units::Unitless);
    EXPECT_EQ(u.formatTick(10, 5), QStringLiteral("10"));
    EXPECT_EQ(u.formatTick(2.5, 0.5), QStringLiteral("2.5"));
}

TEST(TimeAxis, ZoomedInTicksFollowTheView)
{
    TimeAxis a(0, 60, 0, 1200);
    a.setView(30.0001, 30.0003); // 200 µs over 1200 px
    const auto ticks = a.ticks(80);
    ASSERT_GE(ticks.size(), 2u);
    for (const auto& t : ticks) {
        EXPECT_GE(t.time, a.viewStart() - 1e-12);
        EXPECT_LE(t.time, a.viewEnd() + 1e-12);
    }
    // 30 s in, 20 µs apart: the first label is absolute, the others count from it.
    EXPECT_EQ(ticks[0].label, QStringLiteral("30.00010 s"));
    EXPECT_EQ(ticks[1].label, QString::fromUtf8("+20 µs"));
}

TEST(TimeAxis, InterpolationRunsFromOneViewToTheOther)
{
    TimeAxis from(0, 10, 0, 1000);
    TimeAxis to = from;
    to.setView(4, 6);
    EXPECT_DOUBLE_EQ(TimeAxis::interpolate(from, to, 0).viewStart(), 0);
    EXPECT_DOUBLE_EQ(TimeAxis::interpolate(from, to, 1).viewStart(), 4);
    const TimeAxis mid = TimeAxis::interpolate(from, to, 0.5);
    EXPECT_NEAR(mid.viewStart(), 2, 1e-12);
    EXPECT_NEAR(mid.viewEnd(), 8, 1e-12);
}

TEST(TimeAxis, DegenerateRangesStayUsable)
{
    TimeAxis a(5, 5, 0, 0); // empty range, zero width
    EXPECT_GT(a.span(), 0);
    EXPECT_TRUE(std::isfinite(a.toPixel(5)));
    a.zoomAt(0, std::nan(""));
    EXPECT_TRUE(std::isfinite(a.viewStart()));
}
