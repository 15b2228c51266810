// SPDX-License-Identifier: Apache-2.0
#include "ui/render/GanttCursorColumn.h"

#include <climits>
#include <gtest/gtest.h>
#include <limits>

using parallax::render::cursorFoldColumn;
using parallax::render::kColumnBeyondEveryRow;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
} // namespace

// Every paint without a cursor (the GUI at rest, `export --gantt`) asks for the column after the
// cursor's; it computed INT_MAX + 1 (issue 16, defect 7), undefined behaviour that UBSan stops on.
TEST(GanttCursorColumn, NoCursorGivesAColumnBeyondEveryRowWhoseSuccessorDoesNotOverflow)
{
    for (const double time : { -1.0, -1e300, -kInf, kNan }) {
        const auto column = cursorFoldColumn(time, 0);
        EXPECT_EQ(column, kColumnBeyondEveryRow) << time;
        EXPECT_GT(column + 1, static_cast<long long>(INT_MAX)) << time;
    }
}

TEST(GanttCursorColumn, CursorFarRightOfTheRowIsClampedNotCastOutOfRange)
{
    for (const double pixel : { 3e9, 1e15, 1e300, kInf }) {
        const auto column = cursorFoldColumn(5.0, pixel);
        EXPECT_GE(column, 3'000'000'000LL) << pixel;
        EXPECT_LE(column, kColumnBeyondEveryRow) << pixel;
        EXPECT_GT(column + 1, column) << pixel;
    }
}

TEST(GanttCursorColumn, CursorInsideTheRowIsItsPixelColumn)
{
    EXPECT_EQ(cursorFoldColumn(0.0, 0.0), 0);
    EXPECT_EQ(cursorFoldColumn(2.5, 17.9), 17);
    EXPECT_EQ(cursorFoldColumn(2.5, -0.5), -1);
}

TEST(GanttCursorColumn, CursorLeftOfTheRowOrNotANumberIsBeforeEveryColumn)
{
    EXPECT_EQ(cursorFoldColumn(1.0, -1e300), -1);
    EXPECT_EQ(cursorFoldColumn(1.0, -kInf), -1);
    EXPECT_EQ(cursorFoldColumn(1.0, kNan), -1);
}
