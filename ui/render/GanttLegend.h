// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/render/GanttRenderer.h"

#include <QRectF>

class QPainter;

namespace parallax::render {

// The Gantt's key: the op kinds present, the micro-batch hues, bubbles, p2p waits, folded ops,
// chunk and direction notation; a flow of swatches that wraps at the given width.
class GanttLegend {
public:
    static double height(const GanttModel& model, const GanttOptions& options, bool folds, double width);
    static void paint(
        QPainter& painter, const GanttModel& model, const GanttOptions& options, bool folds, const QRectF& rect);
};

} // namespace parallax::render
