// SPDX-License-Identifier: Apache-2.0
#include "ui/render/ReportPictures.h"

#include "ui/render/RenderStyle.h"
#include "ui/render/SvgAnnotations.h"

#include <QPainter>
#include <cmath>

namespace parallax::render {

namespace {
constexpr double kMargin = 16;

// Title block on top, then the chart in the rest, both inside a margin.
struct Composition {
    std::optional<TitleBlock> title;
    double width = 0;
    double titleHeight = 0;
    QRectF chartRect(double chartHeight) const
    {
        return QRectF(kMargin, kMargin + titleHeight + (title ? 10 : 0), width - 2 * kMargin, chartHeight);
    }
    double totalHeight(double chartHeight) const { return chartRect(chartHeight).bottom() + kMargin; }
    void paintTitle(QPainter& p, double chartHeight) const
    {
        p.fillRect(QRectF(0, 0, width, std::ceil(totalHeight(chartHeight))), style::background());
        if (title)
            title->paint(p, QRectF(kMargin, kMargin, width - 2 * kMargin, titleHeight));
    }
};

Composition compose(const std::optional<TitleBlock>& title, double width)
{
    Composition c;
    c.title = title;
    c.width = width;
    c.titleHeight = title ? title->height(width - 2 * kMargin) : 0;
    return c;
}

QString pictureTitle(const std::optional<TitleBlock>& title, const QString& fallback)
{
    if (!title)
        return fallback;
    return title->chart.isEmpty() ? title->title : title->title + QStringLiteral(": ") + title->chart;
}
} // namespace

QString scheduleName(core::ScheduleKind kind, int v)
{
    switch (kind) {
    case core::ScheduleKind::GPipe:
        return QStringLiteral("GPipe");
    case core::ScheduleKind::OneFOneB:
        return QStringLiteral("1F1B");
    case core::ScheduleKind::Interleaved1F1B:
        return QStringLiteral("interleaved 1F1B (v=%1)").arg(v);
    case core::ScheduleKind::ZbH1:
        return QStringLiteral("ZB-H1");
    case core::ScheduleKind::ZbH2:
        return QStringLiteral("ZB-H2");
    case core::ScheduleKind::ZbV:
        return QStringLiteral("ZB-V");
    case core::ScheduleKind::DualPipe:
        return QStringLiteral("DualPipe");
    case core::ScheduleKind::DualPipeV:
        return QStringLiteral("DualPipeV");
    }
    return QString::fromLatin1(core::toString(kind));
}

GanttTrack ganttTrack(const core::Scenario& scenario, const core::Report& report, const QString& label)
{
    GanttTrack t;
    core::ScheduleShape shape { scenario.parallel.schedule, scenario.parallel.pp, report.microbatches,
        scenario.parallel.vpp };
    if (shape.ranks == 1) { // the engine runs a single stage as 1F1B
        shape.kind = core::ScheduleKind::OneFOneB;
        shape.virtualStages = 1;
    }
    t.label = label.isEmpty() ? scheduleName(shape.kind, shape.virtualStages) : label;
    t.result = report.schedule;
    if (core::checkShape(shape).empty())
        t.shape = shape;
    t.inflightUnit = GanttTrack::InflightUnit::Bytes;
    t.timeUnits = TimeAxis::Units::Seconds;
    if (report.valid)
        t.peakMemoryBytes = report.peakMemoryBytes;
    return t;
}

GanttTrack ganttTrack(const core::SimulationResult& result, const core::ScheduleShape& shape, const QString& label)
{
    GanttTrack t;
    t.label = label.isEmpty() ? scheduleName(shape.kind, shape.virtualStages) : label;
    t.result = result;
    if (core::checkShape(shape).empty())
        t.shape = shape;
    t.inflightUnit = GanttTrack::InflightUnit::Chunks;
    t.timeUnits = TimeAxis::Units::Unitless;
    return t;
}

Picture ganttPicture(std::shared_ptr<const GanttModel> model, const std::optional<TitleBlock>& title, double width,
    const GanttOptions& options, std::optional<GanttTimeRange> timeRange)
{
    auto renderer = std::make_shared<const GanttRenderer>(std::move(model));
    const Composition c = compose(title, width);
    const double chartHeight = renderer->preferredHeight(width - 2 * kMargin, options);
    Picture pic;
    pic.size = QSizeF(width, std::ceil(c.totalHeight(chartHeight)));
    pic.title = pictureTitle(title, QStringLiteral("Pipeline schedule"));
    pic.description = QStringLiteral("Parallax pipeline schedule: %1 ops").arg(renderer->model().opCount());
    auto axisOf = [renderer, timeRange](const GanttLayout& l) {
        TimeAxis axis = renderer->initialAxis(l);
        if (timeRange && timeRange->end > timeRange->start)
            axis.setView(timeRange->start, timeRange->end);
        return axis;
    };
    pic.paint = [renderer, c, chartHeight, options, axisOf](QPainter& p) {
        c.paintTitle(p, chartHeight);
        const GanttLayout l = renderer->layout(c.chartRect(chartHeight), options);
        renderer->paint(p, l, axisOf(l), options);
    };
    pic.annotate = [renderer, c, chartHeight, options, axisOf](SvgAnnotations& out) {
        const GanttLayout l = renderer->layout(c.chartRect(chartHeight), options);
        renderer->annotate(out, l, axisOf(l), options);
    };
    return pic;
}

Picture rankMapPicture(std::shared_ptr<const RankMapRenderer> renderer, const std::optional<TitleBlock>& title,
    const RankMapRenderer::Options& options, double width)
{
    const Composition c = compose(title, width);
    const double chartHeight = renderer->preferredHeight(width - 2 * kMargin, options);
    Picture pic;
    pic.size = QSizeF(width, std::ceil(c.totalHeight(chartHeight)));
    pic.title = pictureTitle(title, QStringLiteral("Rank map"));
    pic.description = QStringLiteral("Parallax rank map: %1 GPUs").arg(renderer->gpuCount());
    pic.paint = [renderer, c, chartHeight, options](QPainter& p) {
        c.paintTitle(p, chartHeight);
        renderer->paint(p, renderer->layout(c.chartRect(chartHeight), options), options);
    };
    pic.annotate = [renderer, c, chartHeight, options](SvgAnnotations& out) {
        renderer->annotate(out, renderer->layout(c.chartRect(chartHeight), options), options);
    };
    return pic;
}

Picture memoryPicture(
    std::shared_ptr<const MemoryChartRenderer> renderer, const std::optional<TitleBlock>& title, double width)
{
    const Composition c = compose(title, width);
    const double chartHeight = renderer->preferredHeight(width - 2 * kMargin);
    Picture pic;
    pic.size = QSizeF(width, std::ceil(c.totalHeight(chartHeight)));
    pic.title = pictureTitle(title, QStringLiteral("Memory per GPU"));
    pic.description = QStringLiteral("Parallax memory per pipeline stage");
    pic.paint = [renderer, c, chartHeight](QPainter& p) {
        c.paintTitle(p, chartHeight);
        renderer->paint(p, renderer->layout(c.chartRect(chartHeight)));
    };
    pic.annotate = [renderer, c, chartHeight](
                       SvgAnnotations& out) { renderer->annotate(out, renderer->layout(c.chartRect(chartHeight))); };
    return pic;
}

} // namespace parallax::render
