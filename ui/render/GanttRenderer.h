// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/render/GanttModel.h"
#include "ui/render/TimeAxis.h"

#include <QPointF>
#include <QRectF>
#include <QString>
#include <memory>
#include <vector>

class QPainter;

namespace parallax::render {

class SvgAnnotations;

// What a view changes between frames; the model and the layout stay.
struct GanttOptions {
    double cursorTime = -1; // animation time; < 0: no cursor, every op drawn in full
    bool hideFuture = false; // ops that start after the cursor: hidden (true) or faint (false)
    OpRef hovered; // outlined
    double foldWidthPx = 3; // ops narrower than this fold into per-pixel-column aggregate bars
    bool showInflight = true; // the in-flight activation column beside the rows
    bool showLegend = true;
};

// Where everything goes inside the area a view or an export gives the chart.
struct GanttLayout {
    struct Row {
        int track = 0;
        int rank = 0;
        QRectF rect; // the plot's x range, the row's bar height
    };
    QRectF area;
    QRectF plot; // the time axis maps the view onto plot.left() .. plot.right()
    QRectF gutter; // in-flight column (x range; rows give y), empty when hidden
    double rowHeight = 0;
    std::vector<Row> rows;
    std::vector<QRectF> headers; // one line per track: label, bubble, makespan, peaks
    QRectF axis; // tick labels under the rows
    QRectF legend;
    int rowAt(double y) const; // index into rows, -1 between or outside rows
};

// Paints simulated pipeline timelines, a row per pipeline rank and a lane per schedule (compare
// mode stacks lanes on one time axis). The same code paints a widget (paintEvent: layout(rect()),
// a TimeAxis the view zooms and pans, paint(...)) and every export.
//
// Ops are colored by micro-batch (hue) and kind (F light, B saturated, W hatched, F&B split
// light-over-saturated); idle time is a grey hatch; waits for a p2p transfer are pale slate with
// an arrow. Level of detail (Tracy): ops narrower than foldWidthPx fold into one bar per rank per
// pixel column whose opacity is the busy fraction and whose shade is the backward share, so a
// frame costs O(visible ops) with no per-op drawing when zoomed out.
class GanttRenderer {
public:
    explicit GanttRenderer(std::shared_ptr<const GanttModel> model);

    const GanttModel& model() const { return *m_model; }
    const std::shared_ptr<const GanttModel>& modelPtr() const { return m_model; }

    GanttLayout layout(const QRectF& area, const GanttOptions& options = {}) const;
    // Full range, the layout's plot as pixel span, the model's time units.
    TimeAxis initialAxis(const GanttLayout& layout) const;
    // Height that gives rows a comfortable pitch (26 px for a few ranks, 8 px for hundreds).
    double preferredHeight(double width, const GanttOptions& options = {}) const;

    void paint(QPainter& painter, const GanttLayout& layout, const TimeAxis& axis, const GanttOptions& options) const;

    // Hit testing: the op under a point (within 2 px when ops are narrow), or an invalid ref.
    OpRef opAt(const GanttLayout& layout, const TimeAxis& axis, QPointF point) const;
    // An op's description, or a rank's in-flight activations when the point is in the gutter.
    QString toolTip(const GanttLayout& layout, const TimeAxis& axis, QPointF point, const GanttOptions& options) const;
    // Pixel rect of an op in the layout (may extend outside the plot).
    QRectF opRect(const GanttLayout& layout, const TimeAxis& axis, OpRef ref) const;

    // For SVG: one <rect class="op"> per op drawn on its own and one <rect class="fold"
    // data-ops="N"> per aggregate bar, so that op elements + the sum of data-ops = ops in view.
    void annotate(
        SvgAnnotations& out, const GanttLayout& layout, const TimeAxis& axis, const GanttOptions& options) const;

private:
    struct FoldScratch; // per-pixel-column accumulators, reused across rows
    template <class Sink>
    void visitRow(const GanttLayout& layout, int rowIndex, const TimeAxis& axis, const GanttOptions& options,
        FoldScratch& scratch, Sink& sink) const;
    double legendHeight(double width, const GanttOptions& options) const;
    void paintLegend(QPainter& painter, const QRectF& rect, const GanttOptions& options) const;
    bool foldsWhenZoomedOut(double plotWidth, const GanttOptions& options) const;
    static double labelColumnWidth();
    void paintHeaders(QPainter& painter, const GanttLayout& layout, const GanttOptions& options) const;
    void paintInflight(QPainter& painter, const GanttLayout& layout, const GanttOptions& options) const;
    void paintAxis(
        QPainter& painter, const GanttLayout& layout, const TimeAxis& axis, const GanttOptions& options) const;
    QString inflightText(int track, double value) const;
    double inflightScale() const; // the largest peak over all tracks

    std::shared_ptr<const GanttModel> m_model;
};

} // namespace parallax::render
