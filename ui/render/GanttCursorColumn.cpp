// SPDX-License-Identifier: Apache-2.0
#include "ui/render/GanttCursorColumn.h"

#include <algorithm>
#include <cmath>

namespace parallax::render {

long long cursorFoldColumn(double cursorTime, double cursorPixel)
{
    if (!(cursorTime >= 0))
        return kColumnBeyondEveryRow;
    const double column = std::floor(cursorPixel);
    if (!(column >= -1))
        return -1;
    return static_cast<long long>(std::min(column, static_cast<double>(kColumnBeyondEveryRow)));
}

} // namespace parallax::render
