// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace parallax::render {

// Column of a row that no pixel reaches: what cursorFoldColumn gives with no cursor.
inline constexpr long long kColumnBeyondEveryRow = 1'000'000'000'000'000LL;

// The pixel column, counted from a row's left edge, that the animation cursor sits in, for the
// zoomed-out fold: a fold bar never runs on past the column after it, and bars that start right of
// it are drawn as the future. `cursorPixel` is the cursor's x minus the row's left edge. No cursor
// (cursorTime < 0) or one far right of the row gives kColumnBeyondEveryRow, one left of the row (or
// not a number) -1. 64 bits and clamped, so that `column + 1` cannot overflow (it did in int:
// INT_MAX + 1 on every paint without a cursor).
long long cursorFoldColumn(double cursorTime, double cursorPixel);

} // namespace parallax::render
