// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

class QChart;
class QPalette;

namespace parallax::ui {

// Qt Charts follow the application palette (light or dark): background, plot area, axes, grid and
// legend text, so that a chart reads the same as the custom-painted views around it.
void styleChart(QChart* chart, const QPalette& palette);

// Whole numbers people count (tokens, requests), rounded, with thousands separators: "364,913".
QString groupedCount(double n);

} // namespace parallax::ui
