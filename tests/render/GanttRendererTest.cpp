// SPDX-License-Identifier: Apache-2.0
#include "RenderTestSupport.h"

#include "ui/render/Exporter.h"
#include "ui/render/GanttRenderer.h"
#include "ui/render/RenderStyle.h"
#include "ui/render/SvgAnnotations.h"

#include <QColor>
#include <QImage>
#include <QPainter>
#include <cmath>
#include <gtest/gtest.h>

using namespace parallax;
using core::ScheduleKind;
using render::GanttOptions;
using render::GanttRenderer;

namespace {

int countOps(const render::SvgAnnotations& a, int* folded)
{
    int ops = 0;
    *folded = 0;
    for (const auto& item : a.items()) {
        if (item.cssClass == QStringLiteral("op"))
            ++ops;
        if (item.cssClass == QStringLiteral("fold"))
            for (const auto& [k, v] : item.data)
                if (k == QStringLiteral("ops"))
                    *folded += v.toInt();
    }
    return ops;
}

} // namespace

TEST(GanttRenderer, LayoutGivesEveryRankARowInsideTheArea)
{
    const GanttRenderer renderer(render::test::uniformModel(ScheduleKind::OneFOneB, 4, 8));
    const QRectF area(10, 20, 900, 300);
    const auto l = renderer.layout(area);
    ASSERT_EQ(l.rows.size(), 4u);
    for (std::size_t i = 0; i < l.rows.size(); ++i) {
        EXPECT_EQ(l.rows[i].rank, static_cast<int>(i));
        EXPECT_TRUE(area.contains(l.rows[i].rect)) << i;
        if (i > 0) {
            EXPECT_GE(l.rows[i].rect.top(), l.rows[i - 1].rect.bottom());
        }
        EXPECT_EQ(l.rowAt(l.rows[i].rect.center().y()), static_cast<int>(i));
    }
    EXPECT_TRUE(area.contains(l.legend));
    EXPECT_GT(l.plot.width(), 500);
    EXPECT_EQ(l.rowAt(area.top() - 5), -1);
}

TEST(GanttRenderer, HitTestFindsTheOpUnderThePoint)
{
    const GanttRenderer renderer(render::test::uniformModel(ScheduleKind::OneFOneB, 4, 8));
    const auto l = renderer.layout(QRectF(0, 0, 1000, 300));
    const auto axis = renderer.initialAxis(l);
    const auto& ops = renderer.model().ops(0);
    for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
        const QRectF r = renderer.opRect(l, axis, { 0, i });
        const render::OpRef hit = renderer.opAt(l, axis, r.center());
        ASSERT_TRUE(hit.valid()) << i;
        EXPECT_EQ(hit.op, i);
    }
    // In a bubble: no op, but the tooltip says so.
    const auto& row = l.rows[3];
    const QPointF early(axis.toPixel(0.5), row.rect.center().y()); // rank 3 idles until t = 3
    EXPECT_FALSE(renderer.opAt(l, axis, early).valid());
    EXPECT_TRUE(renderer.toolTip(l, axis, early, {}).contains(QStringLiteral("bubble")));
    EXPECT_TRUE(
        renderer.toolTip(l, axis, renderer.opRect(l, axis, { 0, 0 }).center(), {}).contains(QStringLiteral("rank 0")));
    // The in-flight column.
    GanttOptions o;
    o.cursorTime = 4.5;
    EXPECT_TRUE(renderer.toolTip(l, axis, QPointF(l.gutter.center().x(), l.rows[0].rect.center().y()), o)
                    .contains(QStringLiteral("activations in flight")));
}

// Zoomed out, 100k ops fold into aggregate bars; every op is accounted for either as its own
// element or inside a bar's data-ops; zoomed in, the ops in view are all individual.
TEST(GanttRenderer, NarrowOpsFoldAndEveryOpIsAccountedFor)
{
    const auto model = render::test::uniformModel(ScheduleKind::OneFOneB, 32, 1600); // 102,400 ops
    const GanttRenderer renderer(model);
    const auto l = renderer.layout(QRectF(0, 0, 1600, 900));
    auto axis = renderer.initialAxis(l);
    render::SvgAnnotations out;
    renderer.annotate(out, l, axis, {});
    int folded = 0;
    const int individual = countOps(out, &folded);
    EXPECT_EQ(static_cast<std::size_t>(individual + folded), model->opCount());
    EXPECT_GT(folded, 100000 - 1000);
    EXPECT_LT(out.items().size(), 20000u); // aggregate bars, not one element per op

    axis.setView(1000, 1010); // about 3 ops per rank
    render::SvgAnnotations in;
    renderer.annotate(in, l, axis, {});
    const int visible = countOps(in, &folded);
    EXPECT_EQ(folded, 0);
    EXPECT_GT(visible, 32 * 2);
    EXPECT_LT(visible, 32 * 8);
}

// The animation cursor: ops that start after it are faint (or hidden), so a frame at t = 0 has
// far less color than the full picture.
TEST(GanttRenderer, CursorFadesOrHidesFutureOps)
{
    const GanttRenderer renderer(render::test::uniformModel(ScheduleKind::OneFOneB, 4, 8));
    auto render = [&](double cursor, bool hide) {
        QImage image(1000, 320, QImage::Format_RGB32);
        image.fill(Qt::white);
        QPainter p(&image);
        GanttOptions o;
        o.cursorTime = cursor;
        o.hideFuture = hide;
        o.showLegend = false;
        const auto l = renderer.layout(QRectF(0, 0, 1000, 320), o);
        renderer.paint(p, l, renderer.initialAxis(l), o);
        p.end();
        return image;
    };
    // Saturated pixels: ops drawn in full color (faded ones are mixed with white).
    auto colored = [](const QImage& image) {
        int n = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                n += QColor(image.pixel(x, y)).hsvSaturation() > 100;
        return n;
    };
    const QImage fullImage = render(-1, false);
    const int full = colored(fullImage);
    const int early = colored(render(0.5, false));
    const int hidden = colored(render(0.5, true));
    EXPECT_LT(early, full / 10);
    EXPECT_LE(hidden, early);
    EXPECT_GT(render::test::distinctColors(render(0.5, false)), render::test::distinctColors(render(0.5, true)));
    render(12, false).save(render::test::outputPath(QStringLiteral("gantt-cursor.png")));
}

// A report without a timeline (closed forms) and a model without tracks paint without ops and
// without crashing; hit tests find nothing.
TEST(GanttRenderer, EmptyTimelinesPaintANote)
{
    core::SimulationResult closedForm;
    closedForm.makespan = 10;
    closedForm.bubbleFractionPerRank.assign(4, 0.1);
    closedForm.peakInflightChunks.assign(4, 4);
    std::vector<render::GanttTrack> tracks { render::ganttTrack(closedForm, { ScheduleKind::OneFOneB, 4, 8, 1 }) };
    for (auto model : { std::make_shared<const render::GanttModel>(std::move(tracks)),
             std::make_shared<const render::GanttModel>(std::vector<render::GanttTrack> {}) }) {
        const GanttRenderer renderer(model);
        QImage image(800, 300, QImage::Format_RGB32);
        QPainter p(&image);
        const auto l = renderer.layout(QRectF(0, 0, 800, 300));
        const auto axis = renderer.initialAxis(l);
        renderer.paint(p, l, axis, {});
        p.end();
        EXPECT_FALSE(renderer.opAt(l, axis, QPointF(400, 100)).valid());
    }
}

// Playing with future ops hidden (issue 14, defect 3): nothing of a row is painted right of the
// cursor, neither the idle hatch nor a p2p wait nor an op's label; the compared schedules' title
// lines stay whole.
TEST(GanttRenderer, PlaybackPaintsNothingOfTheRowsAfterTheCursor)
{
    std::vector<render::GanttTrack> tracks;
    tracks.push_back(render::ganttTrack(render::test::uniformRun(ScheduleKind::OneFOneB, 4, 8),
        core::ScheduleShape { ScheduleKind::OneFOneB, 4, 8, 1 }, QStringLiteral("1F1B with a long title line")));
    tracks.push_back(render::ganttTrack(render::test::uniformRun(ScheduleKind::GPipe, 4, 8),
        core::ScheduleShape { ScheduleKind::GPipe, 4, 8, 1 }, QStringLiteral("GPipe with a long title line")));
    const GanttRenderer renderer(std::make_shared<const render::GanttModel>(std::move(tracks)));
    GanttOptions o;
    o.showLegend = false;
    o.showInflight = false;
    o.hideFuture = true;
    const QRectF area(0, 0, 1000, 420);
    const auto l = renderer.layout(area, o);
    const auto axis = renderer.initialAxis(l);
    auto render = [&](double cursor) {
        QImage image(1000, 420, QImage::Format_RGB32);
        image.fill(Qt::white);
        QPainter p(&image);
        GanttOptions frame = o;
        frame.cursorTime = cursor;
        renderer.paint(p, l, axis, frame);
        p.end();
        return image;
    };
    const double cursor = 6;
    const QImage frame = render(cursor);
    frame.save(render::test::outputPath(QStringLiteral("gantt-playback.png")));
    const int cursorX = static_cast<int>(std::ceil(axis.toPixel(cursor))) + 3; // past the 2 px cursor line
    const QRgb background = frame.pixel(static_cast<int>(area.right()) - 1, static_cast<int>(area.top()) + 1);
    int painted = 0;
    for (const auto& row : l.rows)
        for (int y = static_cast<int>(row.rect.top()) + 1; y < static_cast<int>(row.rect.bottom()); ++y)
            for (int x = cursorX; x < static_cast<int>(l.plot.right()); ++x) {
                // Grid lines at the ticks are allowed: they are drawn over the full height.
                const QColor c(frame.pixel(x, y));
                painted += frame.pixel(x, y) != background && c != render::style::gridLine();
            }
    EXPECT_EQ(painted, 0) << "pixels of rows painted after the cursor";
    // Left of the cursor the rows are drawn (ops and idle hatch).
    int before = 0;
    for (const auto& row : l.rows)
        for (int x = static_cast<int>(l.plot.left()) + 1; x < cursorX - 6; ++x)
            before += frame.pixel(x, static_cast<int>(row.rect.center().y())) != background;
    EXPECT_GT(before, 100);
    // The title lines of both lanes are painted in full, on both sides of the cursor.
    const QImage full = render(-1);
    for (const QRectF& h : l.headers) {
        for (int y = static_cast<int>(h.top()); y < static_cast<int>(h.bottom()); ++y)
            for (int x = cursorX; x < static_cast<int>(l.plot.right()); ++x)
                ASSERT_EQ(frame.pixel(x, y), full.pixel(x, y)) << "header cut at x=" << x;
    }
}

// Tooltips resolve the zoom (defect 10): at a 1 ms view an op's times carry microseconds.
TEST(GanttRenderer, ToolTipTimesFollowTheZoom)
{
    core::SimulationResult run = render::test::uniformRun(ScheduleKind::OneFOneB, 2, 4);
    for (auto& op : run.ops) { // units -> seconds: forward 1.2345 ms, twelve seconds into a step
        op.start = 12 + op.start * 1.2345e-3;
        op.end = 12 + op.end * 1.2345e-3;
    }
    run.makespan = 12 + run.makespan * 1.2345e-3;
    render::GanttTrack track = render::ganttTrack(run, core::ScheduleShape { ScheduleKind::OneFOneB, 2, 4, 1 });
    track.timeUnits = render::TimeAxis::Units::Seconds;
    std::vector<render::GanttTrack> tracks { track };
    const GanttRenderer renderer(std::make_shared<const render::GanttModel>(std::move(tracks)));
    const auto l = renderer.layout(QRectF(0, 0, 1000, 300));
    auto axis = renderer.initialAxis(l);
    const auto& first = renderer.model().ops(0).front();
    axis.setView(first.start, first.start + 1e-3);
    const QString zoomed = renderer.toolTip(l, axis, renderer.opRect(l, axis, { 0, 0 }).center(), {});
    EXPECT_TRUE(zoomed.contains(QStringLiteral("12.00")) && zoomed.contains(QStringLiteral("duration 1.23")))
        << zoomed.toStdString();
    EXPECT_FALSE(zoomed.contains(QStringLiteral("start 12.00 s"))) << zoomed.toStdString(); // not 10 ms resolution
}
