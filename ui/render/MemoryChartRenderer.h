// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/inference/InferenceReport.h"
#include "core/report/Report.h"

#include <QColor>
#include <QFontMetricsF>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <vector>

class QPainter;

namespace parallax::render {

class SvgAnnotations;

// Stacked bars of per-GPU memory against the HBM capacity line; a bar over capacity says by how
// many GiB. A training step has one bar per pipeline stage (weights, grads, optimizer states,
// activations, other); a serving design one bar, its fullest GPU (weights, workspace, CUDA graphs,
// runtime buffers, the KV cache pool, the reserve). Custom-painted so that the screen and the
// exports share one code path.
class MemoryChartRenderer {
public:
    enum class Kind { Training, Serving };
    enum Component { Weights, Grads, Optimizer, Activations, Other, ComponentCount };
    // The serving bar's segments, in stacking order (as the Memory tab's serving chart stacks them).
    enum ServingComponent { ServingWeights, Workspace, CudaGraphs, Runtime, KvCache, Reserve, ServingComponentCount };

    struct Bar {
        QString label; // "0" (the x axis says "pipeline stage")
        std::vector<double> bytes; // one per component of the chart's kind
        double hbmBytes = 0; // the capacity of this bar's GPUs; 0: the chart's (a mixed cluster's stages differ)
        double total() const;
    };

    // The label above a bar over the HBM: the longest of "+11.8 GiB over", "+11.8 GiB", "+11.8" whose
    // width in `fm` fits the bar's slot (so that neighbours' labels never overlap), else the shortest.
    static QString overCapacityLabel(double excessBytes, double slot, const QFontMetricsF& fm);

    struct Layout {
        QRectF area;
        QRectF plot; // bars and grid
        QRectF legend;
        double yMaxBytes = 1;
        std::vector<QRectF> bars; // full stacked extent of each bar
        double toY(double bytes) const { return plot.bottom() - plot.height() * bytes / yMaxBytes; }
    };

    struct Hit {
        int bar = -1;
        int component = -1; // -1: the bar's total (above its segments, or a thin segment)
        bool valid() const { return bar >= 0; }
    };

    MemoryChartRenderer(std::vector<Bar> bars, double hbmBytes, Kind kind = Kind::Training);
    // A training report's stages, or a serving report's fullest GPU (report.inference).
    static MemoryChartRenderer fromReport(const core::Report& report);
    static MemoryChartRenderer fromServing(const core::ServingMemory& memory);
    static QString componentName(Kind kind, int component);

    Kind kind() const { return m_kind; }
    int componentCount() const
    {
        return m_kind == Kind::Serving ? static_cast<int>(ServingComponentCount) : static_cast<int>(ComponentCount);
    }
    QString componentName(int component) const { return componentName(m_kind, component); }
    QColor componentColor(int component) const { return componentColor(m_kind, component); }
    static QColor componentColor(Kind kind, int component);

    const std::vector<Bar>& bars() const { return m_bars; }
    double hbmBytes() const { return m_hbmBytes; }
    double hbmBytes(int bar) const; // the bar's own capacity, else the chart's
    bool oneCapacity() const; // every bar has the chart's capacity

    Layout layout(const QRectF& area) const;
    double preferredHeight(double width) const;
    void paint(QPainter& painter, const Layout& layout) const { paint(painter, layout, Hit { -1, -1 }); }
    void paint(QPainter& painter, const Layout& layout, Hit hovered) const;
    Hit hitTest(const Layout& layout, QPointF point) const;
    QString toolTip(const Layout& layout, QPointF point) const;
    // One <rect class="memory"> per bar segment, titled with its bytes.
    void annotate(SvgAnnotations& out, const Layout& layout) const;

private:
    double legendHeight(double width) const;
    bool anyOver() const; // some bar exceeds its capacity
    QRectF segmentRect(const Layout& layout, int bar, int component) const;

    double bytesOf(int bar, int component) const;

    std::vector<Bar> m_bars;
    double m_hbmBytes = 0;
    Kind m_kind = Kind::Training;
};

} // namespace parallax::render
