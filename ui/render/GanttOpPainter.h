// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/render/GanttRenderer.h"

#include <QColor>
#include <QFontMetricsF>

class QPainter;

namespace parallax::render {

// Draws the ops GanttRenderer's level-of-detail pass hands it: an op wide enough is a block in
// its micro-batch's hue and its kind's lightness or pattern, labelled when the label fits; ops too
// narrow fold into aggregate bars. Ops after the animation cursor are faded toward white (or
// skipped when hidden); the op the cursor is inside is split at it.
class GanttOpPainter {
public:
    GanttOpPainter(
        QPainter& painter, const GanttModel& model, const GanttOptions& options, const TimeAxis& axis, bool labels);

    void op(const GanttLayout::Row& row, int index, const core::TimedOp& op, double x0, double x1);
    // Columns [x0, x1) of ops narrower than the fold width: `level` 1..4 busy, `kind` 0 forward,
    // 1 mixed, 2 backward; `future` after the cursor.
    void fold(const GanttLayout::Row& row, double x0, double x1, int level, int kind, int ops, bool future);

    static QColor faded(const QColor& c); // a color after the animation cursor

private:
    void block(const core::TimedOp& op, const QRectF& r, bool future);
    void commTail(const core::TimedOp& op, const QRectF& r, bool future);
    void label(const GanttLayout::Row& row, const core::TimedOp& op, const QRectF& r, bool future);

    QPainter& m_painter;
    const GanttModel& m_model;
    const GanttOptions& m_options;
    const TimeAxis& m_axis;
    QFontMetricsF m_fm;
    double m_cursorX;
    bool m_labels;
};

} // namespace parallax::render
