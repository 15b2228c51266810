// SPDX-License-Identifier: Apache-2.0
#include "ui/render/GanttRenderer.h"

#include <QRegion>

#include "core/Units.h"
#include "ui/render/GanttCursorColumn.h"
#include "ui/render/GanttLegend.h"
#include "ui/render/GanttOpPainter.h"
#include "ui/render/RenderStyle.h"
#include "ui/render/SvgAnnotations.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>
#include <QRegion>
#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>

namespace parallax::render {

using core::OpKind;
using core::TimedOp;

namespace {
constexpr double kHeaderHeight = 20;
constexpr double kTrackGap = 10;
constexpr double kAxisHeight = 22;
constexpr double kGutterWidth = 112;
constexpr double kGutterGap = 10;
constexpr double kMaxRowPitch = 32;
double backwardShare(OpKind k)
{
    switch (k) {
    case OpKind::Forward:
        return 0;
    case OpKind::ForwardBackward:
        return 0.5;
    default:
        return 1;
    }
}

double rowGap(double pitch)
{
    return pitch >= 10 ? 2 : (pitch >= 5 ? 1 : 0);
}

} // namespace

int GanttLayout::rowAt(double y) const
{
    // Rows are ordered top to bottom.
    auto it = std::upper_bound(rows.begin(), rows.end(), y, [](double v, const Row& r) { return v < r.rect.top(); });
    if (it == rows.begin())
        return -1;
    --it;
    return y <= it->rect.bottom() ? static_cast<int>(it - rows.begin()) : -1;
}

GanttRenderer::GanttRenderer(std::shared_ptr<const GanttModel> model)
    : m_model(std::move(model))
{
}

double GanttRenderer::preferredHeight(double width, const GanttOptions& options) const
{
    const int rows = m_model->totalRows();
    const double pitch = rows <= 16 ? 26 : rows <= 40 ? 18 : rows <= 100 ? 12 : 8;
    const int tracks = m_model->trackCount();
    return tracks * kHeaderHeight + std::max(0, tracks - 1) * kTrackGap + rows * pitch + kAxisHeight
        + (options.showLegend ? legendHeight(width, options) + 6 : 0) + 4;
}

GanttLayout GanttRenderer::layout(const QRectF& area, const GanttOptions& options) const
{
    GanttLayout l;
    l.area = area;
    const double labelWidth = labelColumnWidth();
    const double gutter = options.showInflight ? kGutterWidth + kGutterGap : 0;
    const double legendH = options.showLegend ? legendHeight(area.width(), options) : 0;
    const int tracks = m_model->trackCount();
    const int rows = std::max(1, m_model->totalRows());
    const double fixed = tracks * kHeaderHeight + std::max(0, tracks - 1) * kTrackGap + kAxisHeight
        + (options.showLegend ? legendH + 6 : 0) + 4;
    const double pitch = std::clamp((area.height() - fixed) / rows, 1.0, kMaxRowPitch);
    const double gap = rowGap(pitch);
    l.rowHeight = pitch - gap;
    const double plotLeft = area.left() + labelWidth;
    const double plotRight = std::max(plotLeft + 10, area.right() - gutter - 4);
    double y = area.top();
    for (int t = 0; t < tracks; ++t) {
        if (t > 0)
            y += kTrackGap;
        l.headers.push_back(QRectF(area.left(), y, area.width(), kHeaderHeight));
        y += kHeaderHeight;
        for (int r = 0; r < m_model->rankCount(t); ++r) {
            l.rows.push_back({ t, r, QRectF(plotLeft, y + gap / 2, plotRight - plotLeft, l.rowHeight) });
            y += pitch;
        }
    }
    const double rowsTop = l.headers.empty() ? area.top() : l.headers.front().bottom();
    l.plot = QRectF(plotLeft, rowsTop, plotRight - plotLeft, std::max(0.0, y - rowsTop));
    if (options.showInflight)
        l.gutter = QRectF(plotRight + kGutterGap, rowsTop, kGutterWidth, l.plot.height());
    l.axis = QRectF(area.left(), y + 2, area.width(), kAxisHeight);
    if (options.showLegend)
        l.legend = QRectF(area.left(), l.axis.bottom() + 6, area.width(), legendH);
    return l;
}

double GanttRenderer::labelColumnWidth()
{
    const QFontMetricsF fm(style::font(style::kSmallText));
    return std::max(
               fm.horizontalAdvance(QStringLiteral("rank 000")), fm.horizontalAdvance(QStringLiteral("time (F = 1)")))
        + 16;
}

bool GanttRenderer::foldsWhenZoomedOut(double plotWidth, const GanttOptions& options) const
{
    return m_model->shortestOp() * plotWidth / m_model->endTime() < options.foldWidthPx;
}

TimeAxis GanttRenderer::initialAxis(const GanttLayout& layout) const
{
    TimeAxis axis(0, m_model->endTime(), layout.plot.left(), layout.plot.width());
    axis.setUnits(m_model->timeUnits());
    return axis;
}

struct GanttRenderer::FoldScratch {
    explicit FoldScratch(double width)
    {
        const auto cols = static_cast<std::size_t>(std::max(1, static_cast<int>(std::ceil(width))));
        busy.assign(cols, 0.f);
        back.assign(cols, 0.f);
        count.assign(cols, 0);
        prefixBusy.assign(cols + 1, 0.0);
        prefixBack.assign(cols + 1, 0.0);
    }
    std::vector<float> busy; // busy pixels of the column covered by folded ops (0..1)
    std::vector<float> back; // ... of which backward (F&B counts half)
    std::vector<int> count; // folded ops starting in the column
    std::vector<double> prefixBusy, prefixBack;
};

template <class Sink>
void GanttRenderer::visitRow(const GanttLayout& layout, int rowIndex, const TimeAxis& axis, const GanttOptions& options,
    FoldScratch& f, Sink& sink) const
{
    const GanttLayout::Row& row = layout.rows[static_cast<std::size_t>(rowIndex)];
    const auto& ops = m_model->ops(row.track);
    const int end = m_model->rankBegin(row.track, row.rank + 1);
    const double left = layout.plot.left();
    const double right = layout.plot.right();
    const int cols = static_cast<int>(f.busy.size());
    const double viewEnd = axis.viewEnd();
    const double pps = axis.pixelsPerSecond();
    const double origin = axis.toPixel(0);
    int minCol = INT_MAX, maxCol = -1;
    for (int i = m_model->firstOpEndingAfter(row.track, row.rank, axis.viewStart()); i < end; ++i) {
        const TimedOp& op = ops[static_cast<std::size_t>(i)];
        if (op.start >= viewEnd)
            break;
        const double x0 = origin + op.start * pps;
        const double x1 = origin + op.end * pps;
        if (x1 - x0 >= options.foldWidthPx) {
            sink.op(row, i, op, std::max(x0, left - 2), std::min(x1, right + 2));
            continue;
        }
        const double a = std::clamp(x0 - left, 0.0, static_cast<double>(cols));
        const double b = std::clamp(x1 - left, 0.0, static_cast<double>(cols));
        const int c0 = std::min(cols - 1, static_cast<int>(a));
        const int c1 = std::max(c0, std::min(cols - 1, static_cast<int>(std::ceil(b)) - 1));
        const double share = backwardShare(op.kind);
        for (int c = c0; c <= c1; ++c) {
            // At least a trace, so a zero-length op still marks its column.
            const double overlap = std::max(std::min(b, c + 1.0) - std::max(a, static_cast<double>(c)), 1e-3);
            f.busy[static_cast<std::size_t>(c)] += static_cast<float>(overlap);
            f.back[static_cast<std::size_t>(c)] += static_cast<float>(overlap * share);
        }
        ++f.count[static_cast<std::size_t>(c0)];
        minCol = std::min(minCol, c0);
        maxCol = std::max(maxCol, c1);
    }
    if (maxCol < 0)
        return;
    // The backward share, averaged over +-3 columns: the steady 1F1B alternation reads as one mixed
    // tone while warm-up (forward only) and cool-down (backward only) stand out.
    for (int c = minCol; c <= maxCol; ++c) {
        f.prefixBusy[static_cast<std::size_t>(c) + 1]
            = f.prefixBusy[static_cast<std::size_t>(c)] + f.busy[static_cast<std::size_t>(c)];
        f.prefixBack[static_cast<std::size_t>(c) + 1]
            = f.prefixBack[static_cast<std::size_t>(c)] + f.back[static_cast<std::size_t>(c)];
    }
    auto kindLevel = [&](int c) {
        const auto lo = static_cast<std::size_t>(std::max(minCol, c - 3));
        const auto hi = static_cast<std::size_t>(std::min(maxCol, c + 3)) + 1;
        const double u = f.prefixBusy[hi] - f.prefixBusy[lo];
        const double share = u > 0 ? (f.prefixBack[hi] - f.prefixBack[lo]) / u : 0;
        return share < 0.15 ? 0 : (share > 0.85 ? 2 : 1);
    };
    // Coarse busy levels: a column with a sliver of idle time still reads as busy.
    auto busyLevel = [&](int c) {
        const float u = f.busy[static_cast<std::size_t>(c)];
        return u >= 0.8f ? 4 : (u >= 0.45f ? 3 : (u >= 0.2f ? 2 : 1));
    };
    const long long cursorCol
        = cursorFoldColumn(options.cursorTime, options.cursorTime >= 0 ? axis.toPixel(options.cursorTime) - left : 0);
    for (int c = minCol; c <= maxCol;) {
        if (f.busy[static_cast<std::size_t>(c)] <= 0) {
            ++c;
            continue;
        }
        const int level = busyLevel(c);
        const int kind = kindLevel(c);
        int ops = 0;
        const int start = c;
        while (c <= maxCol && f.busy[static_cast<std::size_t>(c)] > 0 && busyLevel(c) == level && kindLevel(c) == kind
            && (c == start || c != cursorCol + 1)) {
            ops += f.count[static_cast<std::size_t>(c)];
            ++c;
        }
        sink.fold(row, left + start, left + c, level, kind, ops, start > cursorCol);
    }
    for (int c = minCol; c <= maxCol; ++c) {
        f.busy[static_cast<std::size_t>(c)] = 0;
        f.back[static_cast<std::size_t>(c)] = 0;
        f.count[static_cast<std::size_t>(c)] = 0;
    }
}

namespace {
struct AnnotateSink {
    SvgAnnotations& out;
    const GanttModel& model;
    const TimeAxis& axis;

    void op(const GanttLayout::Row& row, int index, const TimedOp& o, double x0, double x1)
    {
        const int n = index - model.rankBegin(row.track, row.rank);
        const QString name = QStringLiteral("op r") + QString::number(o.rank) + u' ' + model.opLabel(row.track, o);
        SvgAnnotations::Item item;
        item.rect = QRectF(x0, row.rect.top(), x1 - x0, row.rect.height());
        item.id = QStringLiteral("op-t%1-r%2-n%3").arg(row.track).arg(o.rank).arg(n);
        item.cssClass = QStringLiteral("op");
        item.title = name + QStringLiteral(" (") + model.formatTime(row.track, o.start) + QStringLiteral(" to ")
            + model.formatTime(row.track, o.end) + u')';
        item.data = { { QStringLiteral("track"), QString::number(row.track) },
            { QStringLiteral("rank"), QString::number(o.rank) },
            { QStringLiteral("kind"), QString::fromLatin1(core::toString(o.kind)) },
            { QStringLiteral("microbatch"), QString::number(o.microbatch) },
            { QStringLiteral("chunk"), QString::number(o.chunk) },
            { QStringLiteral("start"), QString::number(o.start, 'g', 12) },
            { QStringLiteral("end"), QString::number(o.end, 'g', 12) } };
        out.add(std::move(item));
    }

    void fold(const GanttLayout::Row& row, double x0, double x1, int, int, int ops, bool)
    {
        if (ops <= 0)
            return; // only the tail of ops counted in an earlier bar
        SvgAnnotations::Item item;
        item.rect = QRectF(x0, row.rect.top(), x1 - x0, row.rect.height());
        item.cssClass = QStringLiteral("fold");
        item.title
            = QStringLiteral("rank %1: %2 ops narrower than a few pixels, folded (%3 to %4)")
                  .arg(row.rank)
                  .arg(ops)
                  .arg(model.formatTime(row.track, axis.toTime(x0)), model.formatTime(row.track, axis.toTime(x1)));
        item.data = { { QStringLiteral("track"), QString::number(row.track) },
            { QStringLiteral("rank"), QString::number(row.rank) }, { QStringLiteral("ops"), QString::number(ops) } };
        out.add(std::move(item));
    }
};
} // namespace

void GanttRenderer::paint(
    QPainter& p, const GanttLayout& layout, const TimeAxis& axis, const GanttOptions& options) const
{
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setRenderHint(QPainter::TextAntialiasing, true);
    p.fillRect(layout.area, style::background());
    const QFont labelFont = style::font(style::kSmallText);
    p.setFont(labelFont);
    const QFontMetricsF fm(labelFont);
    const double left = layout.plot.left();
    const double right = layout.plot.right();

    // Playing with future ops hidden, nothing of the rows is drawn right of the cursor: not the idle
    // hatch, not a p2p wait, not the label of an op in progress. Headers and the axis stay whole.
    const double cursorX = options.cursorTime >= 0 ? axis.toPixel(options.cursorTime) : right;
    const bool clipFuture = options.cursorTime >= 0 && options.hideFuture && cursorX < right;
    auto clipRowsToCursor = [&] {
        p.save();
        if (clipFuture) {
            QRegion keep(layout.area.toAlignedRect());
            for (const auto& row : layout.rows)
                keep -= QRectF(std::max(left, cursorX), row.rect.top() - 1, right + 2 - std::max(left, cursorX),
                    row.rect.height() + 2)
                            .toAlignedRect();
            p.setClipRegion(keep, Qt::IntersectClip);
        }
    };

    // 1. Row labels and idle time: every instant of [0, makespan] a rank is not busy is a bubble;
    //    the ops cover the busy part below.
    clipRowsToCursor();
    const int labelEvery
        = std::max(1, static_cast<int>(std::ceil((fm.height() + 1) / (layout.rowHeight + rowGap(layout.rowHeight)))));
    for (const auto& row : layout.rows) {
        const double makespan = m_model->track(row.track).result.makespan;
        const double x0 = std::max(left, axis.toPixel(0));
        const double x1 = std::min(right, axis.toPixel(makespan));
        const bool hasOps = !m_model->ops(row.track).empty();
        if (x1 > x0 && hasOps)
            style::fillHatched(
                p, QRectF(x0, row.rect.top(), x1 - x0, row.rect.height()), style::bubbleFill(), style::bubbleHatch());
        const int last = m_model->rankCount(row.track) - 1;
        if (row.rank == last || (row.rank % labelEvery == 0 && row.rank <= last - labelEvery)) {
            p.setPen(style::mutedText());
            const QRectF lr(layout.area.left(), row.rect.center().y() - fm.height() / 2, left - layout.area.left() - 6,
                fm.height());
            p.drawText(lr, Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("rank ") + QString::number(row.rank));
        }
    }

    // A track without ops (the engine used closed forms, or kept no timeline) says so.
    for (int t = 0; t < m_model->trackCount(); ++t) {
        if (!m_model->ops(t).empty())
            continue;
        QRectF rows;
        for (const auto& row : layout.rows)
            if (row.track == t)
                rows = rows.isNull() ? row.rect : rows.united(row.rect);
        p.setPen(style::mutedText());
        p.drawText(rows, Qt::AlignCenter | Qt::TextWordWrap,
            QStringLiteral("No timeline to draw: the schedule was not simulated op by op (too many ops); "
                           "bubble and in-flight figures come from the closed forms."));
    }

    p.restore();

    // 2. Grid lines at the ticks, under the ops.
    const auto ticks = axis.ticks(90);
    p.setPen(QPen(style::gridLine(), 1));
    for (const auto& t : ticks) {
        const double x = std::round(t.x) + 0.5;
        if (x >= left && x <= right)
            p.drawLine(QPointF(x, layout.plot.top()), QPointF(x, layout.plot.bottom()));
    }

    // 3. p2p waits, then the ops (folded where narrow).
    clipRowsToCursor();
    for (const auto& row : layout.rows) {
        for (const TimeInterval& w : m_model->p2pWaits(row.track, row.rank)) {
            if (w.end <= axis.viewStart() || w.start >= axis.viewEnd())
                continue;
            const double x0 = std::max(left, axis.toPixel(w.start));
            const double x1 = std::min(right, axis.toPixel(w.end));
            if (x1 - x0 < 0.5)
                continue;
            const bool future = options.cursorTime >= 0 && w.start >= options.cursorTime;
            if (future && options.hideFuture)
                continue;
            const QRectF r(x0, row.rect.top(), x1 - x0, row.rect.height());
            p.fillRect(r, future ? GanttOpPainter::faded(style::p2pFill()) : style::p2pFill());
            if (r.width() >= 10 && r.height() >= 6) {
                // An arrow: the activation is on its way.
                const double y = std::round(r.center().y()) + 0.5;
                const double head = std::min(4.0, r.height() / 3);
                p.save();
                p.setRenderHint(QPainter::Antialiasing, true);
                const QColor c = future ? GanttOpPainter::faded(style::p2pLine()) : style::p2pLine();
                p.setPen(QPen(c, 1));
                p.drawLine(QPointF(r.left() + 2, y), QPointF(r.right() - 2, y));
                QPainterPath arrow;
                arrow.moveTo(r.right() - 1, y);
                arrow.lineTo(r.right() - 1 - head * 1.4, y - head);
                arrow.lineTo(r.right() - 1 - head * 1.4, y + head);
                arrow.closeSubpath();
                p.fillPath(arrow, c);
                p.restore();
            }
        }
    }
    FoldScratch scratch(layout.plot.width());
    GanttOpPainter sink(p, *m_model, options, axis, layout.rowHeight >= 11);
    for (int i = 0; i < static_cast<int>(layout.rows.size()); ++i)
        visitRow(layout, i, axis, options, scratch, sink);
    p.restore();

    // 4. Hover outline.
    if (options.hovered.valid() && options.hovered.track < m_model->trackCount()
        && options.hovered.op < static_cast<int>(m_model->ops(options.hovered.track).size())) {
        QRectF r = opRect(layout, axis, options.hovered).intersected(layout.plot.adjusted(-2, 0, 2, 0));
        if (!r.isEmpty()) {
            if (r.width() < 3)
                r.adjust(-1.5, 0, 1.5, 0);
            p.setPen(QPen(style::highlight(), 2));
            p.setBrush(Qt::NoBrush);
            p.drawRect(r.adjusted(-1, -1, 1, 1));
        }
    }

    paintHeaders(p, layout, options);
    if (options.showInflight)
        paintInflight(p, layout, options);
    paintAxis(p, layout, axis, options);

    // 5. The animation cursor over everything else.
    if (options.cursorTime >= 0) {
        const double x = axis.toPixel(options.cursorTime);
        if (x >= left - 0.5 && x <= right + 0.5) {
            p.setPen(QPen(style::cursor(), 2));
            p.drawLine(QPointF(x, layout.plot.top() - 2), QPointF(x, layout.axis.top()));
        }
    }
    if (options.showLegend)
        paintLegend(p, layout.legend, options);
    p.restore();
}

QRectF GanttRenderer::opRect(const GanttLayout& layout, const TimeAxis& axis, OpRef ref) const
{
    const TimedOp& o = m_model->op(ref);
    for (const auto& row : layout.rows) {
        if (row.track == ref.track && row.rank == o.rank) {
            const double x0 = axis.toPixel(o.start), x1 = axis.toPixel(o.end);
            return QRectF(x0, row.rect.top(), x1 - x0, row.rect.height());
        }
    }
    return {};
}

OpRef GanttRenderer::opAt(const GanttLayout& layout, const TimeAxis& axis, QPointF point) const
{
    if (point.x() < layout.plot.left() - 2 || point.x() > layout.plot.right() + 2)
        return {};
    const int ri = layout.rowAt(point.y());
    if (ri < 0)
        return {};
    const auto& row = layout.rows[static_cast<std::size_t>(ri)];
    const double pps = axis.pixelsPerSecond();
    if (pps <= 0)
        return {};
    const double t = axis.toTime(point.x());
    const double tolerance = 2 / pps;
    const auto& ops = m_model->ops(row.track);
    const int end = m_model->rankBegin(row.track, row.rank + 1);
    OpRef best;
    double bestDistance = tolerance;
    for (int i = m_model->firstOpEndingAfter(row.track, row.rank, t - tolerance); i < end; ++i) {
        const TimedOp& o = ops[static_cast<std::size_t>(i)];
        if (o.start > t + tolerance)
            break;
        const double d = t < o.start ? o.start - t : (t > o.end ? t - o.end : 0);
        if (d <= bestDistance) {
            best = { row.track, i };
            bestDistance = d;
            if (d == 0)
                break;
        }
    }
    return best;
}

QString GanttRenderer::toolTip(
    const GanttLayout& layout, const TimeAxis& axis, QPointF point, const GanttOptions& options) const
{
    // Times to the resolution of the zoom: one pixel's worth of time.
    if (const OpRef ref = opAt(layout, axis, point); ref.valid())
        return m_model->opDescription(ref, axis.pixelsPerSecond() > 0 ? 1 / axis.pixelsPerSecond() : 0);
    const int ri = layout.rowAt(point.y());
    if (ri < 0)
        return {};
    const auto& row = layout.rows[static_cast<std::size_t>(ri)];
    if (!layout.gutter.isEmpty() && point.x() >= layout.gutter.left() && point.x() <= layout.gutter.right()) {
        QString text = QStringLiteral("rank %1: activations in flight").arg(row.rank);
        if (options.cursorTime >= 0)
            text += QStringLiteral("\nat ") + m_model->formatTime(row.track, options.cursorTime) + QStringLiteral(": ")
                + inflightText(row.track, m_model->inflightAt(row.track, row.rank, options.cursorTime));
        text += QStringLiteral("\npeak: ") + inflightText(row.track, m_model->inflightPeak(row.track, row.rank));
        return text;
    }
    if (point.x() >= layout.plot.left() && point.x() <= layout.plot.right()) {
        const double t = axis.toTime(point.x());
        if (t >= 0 && t <= m_model->track(row.track).result.makespan) {
            for (const TimeInterval& w : m_model->p2pWaits(row.track, row.rank)) {
                if (t >= w.start && t <= w.end)
                    return QStringLiteral("rank %1: waiting %2 for an input from another rank (p2p)")
                        .arg(row.rank)
                        .arg(m_model->formatTime(row.track, w.end - w.start));
            }
            return QStringLiteral("rank %1: idle (pipeline bubble)").arg(row.rank);
        }
    }
    return {};
}

void GanttRenderer::annotate(
    SvgAnnotations& out, const GanttLayout& layout, const TimeAxis& axis, const GanttOptions& options) const
{
    FoldScratch scratch(layout.plot.width());
    GanttOptions all = options;
    all.cursorTime = -1; // annotations list every op in view
    AnnotateSink sink { out, *m_model, axis };
    for (int i = 0; i < static_cast<int>(layout.rows.size()); ++i)
        visitRow(layout, i, axis, all, scratch, sink);
}

double GanttRenderer::inflightScale() const
{
    double peak = 0;
    for (int t = 0; t < m_model->trackCount(); ++t)
        peak = std::max(peak, m_model->inflightPeakOfTrack(t));
    return peak > 0 ? peak : 1;
}

QString GanttRenderer::inflightText(int track, double value) const
{
    if (m_model->track(track).inflightUnit == GanttTrack::InflightUnit::Bytes)
        return QString::number(value / core::kGiB, 'f', value / core::kGiB >= 100 ? 0 : 1) + QStringLiteral(" GiB");
    return QString::number(value, 'f', std::abs(value - std::round(value)) < 1e-9 ? 0 : 1);
}

void GanttRenderer::paintHeaders(QPainter& p, const GanttLayout& layout, const GanttOptions& options) const
{
    const QFont bold = style::font(style::kText, true);
    const QFont normal = style::font(style::kText);
    const QFontMetricsF fb(bold), fn(normal);
    for (int t = 0; t < static_cast<int>(layout.headers.size()); ++t) {
        const GanttTrack& track = m_model->track(t);
        const QRectF h = layout.headers[static_cast<std::size_t>(t)];
        const QRectF text(layout.plot.left(), h.top(), layout.plot.right() - layout.plot.left(), h.height() - 3);
        QString label = track.label.isEmpty() ? QStringLiteral("schedule") : track.label;
        const bool bytes = track.inflightUnit == GanttTrack::InflightUnit::Bytes;
        QString stats = QStringLiteral("bubble ") + style::percent(track.result.bubbleFraction)
            + QStringLiteral("  ·  makespan ") + m_model->formatTime(t, track.result.makespan);
        const int peakRank = m_model->inflightPeakRank(t);
        int peakChunks = 0;
        for (int c : track.result.peakInflightChunks)
            peakChunks = std::max(peakChunks, c);
        stats += QStringLiteral("  ·  peak in flight ") + QString::number(peakChunks)
            + (peakChunks == 1 ? QStringLiteral(" chunk") : QStringLiteral(" chunks"));
        if (bytes)
            stats += QStringLiteral(" (") + style::gib(m_model->inflightPeakOfTrack(t)) + QStringLiteral(", rank ")
                + QString::number(peakRank) + u')';
        if (track.peakMemoryBytes >= 0)
            stats += QStringLiteral("  ·  peak memory ") + style::gib(track.peakMemoryBytes);
        p.setFont(bold);
        p.setPen(style::text());
        const double lw = std::min(fb.horizontalAdvance(label) + 14, text.width() * 0.45);
        p.drawText(QRectF(text.left(), text.top(), lw, text.height()), Qt::AlignLeft | Qt::AlignBottom,
            fb.elidedText(label, Qt::ElideRight, lw - 4));
        p.setFont(normal);
        p.setPen(style::mutedText());
        p.drawText(QRectF(text.left() + lw, text.top(), text.width() - lw, text.height()),
            Qt::AlignLeft | Qt::AlignBottom, fn.elidedText(stats, Qt::ElideRight, text.width() - lw));
        if (options.showInflight && !layout.gutter.isEmpty()) {
            const QString caption
                = (options.cursorTime >= 0 ? QStringLiteral("in flight") : QStringLiteral("peak in flight"));
            p.setFont(style::font(style::kSmallText));
            p.drawText(QRectF(layout.gutter.left(), h.top(), layout.gutter.width(), h.height() - 3),
                Qt::AlignLeft | Qt::AlignBottom, caption);
        }
    }
}

void GanttRenderer::paintInflight(QPainter& p, const GanttLayout& layout, const GanttOptions& options) const
{
    const QFont f = style::font(style::kSmallText);
    const QFontMetricsF fm(f);
    p.setFont(f);
    const double scale = inflightScale();
    const double textWidth = fm.horizontalAdvance(QStringLiteral("000.0 GiB"));
    const double barWidth = std::max(10.0, layout.gutter.width() - textWidth - 6);
    const bool showText = layout.rowHeight + rowGap(layout.rowHeight) >= fm.height() - 1;
    for (const auto& row : layout.rows) {
        const double peak = m_model->inflightPeak(row.track, row.rank);
        const double value
            = options.cursorTime >= 0 ? m_model->inflightAt(row.track, row.rank, options.cursorTime) : peak;
        const double barH = std::max(1.0, std::min(row.rect.height(), std::round(row.rect.height() * 0.6)));
        const QRectF track(layout.gutter.left(), row.rect.center().y() - barH / 2, barWidth, barH);
        p.fillRect(track, style::trackFill());
        p.fillRect(QRectF(track.left(), track.top(), barWidth * value / scale, barH), style::foldedBackward());
        if (options.cursorTime >= 0 && peak > 0) {
            // The rank's peak, so the bar's rise and fall reads against it.
            const double x = std::round(track.left() + barWidth * peak / scale) - 0.5;
            p.setPen(QPen(style::cursor(), 1));
            p.drawLine(QPointF(x, row.rect.top()), QPointF(x, row.rect.bottom()));
        }
        if (showText) {
            p.setPen(style::mutedText());
            p.drawText(QRectF(track.right() + 4, row.rect.center().y() - fm.height() / 2, textWidth + 2, fm.height()),
                Qt::AlignLeft | Qt::AlignVCenter, inflightText(row.track, value));
        }
    }
}

void GanttRenderer::paintAxis(
    QPainter& p, const GanttLayout& layout, const TimeAxis& axis, const GanttOptions& options) const
{
    const QFont f = style::font(style::kSmallText);
    const QFontMetricsF fm(f);
    p.setFont(f);
    const double left = layout.plot.left(), right = layout.plot.right();
    const double y = layout.axis.top();
    p.setPen(QPen(style::frame(), 1));
    p.drawLine(QPointF(left, y + 0.5), QPointF(right, y + 0.5));
    const auto ticks = axis.ticks(90);
    for (const auto& t : ticks) {
        if (t.x < left - 0.5 || t.x > right + 0.5)
            continue;
        const double x = std::round(t.x) + 0.5;
        p.setPen(QPen(style::frame(), 1));
        p.drawLine(QPointF(x, y), QPointF(x, y + 4));
        const double w = fm.horizontalAdvance(t.label) + 2;
        // Keep the first and last labels inside the area rather than clipped at its edge.
        const double lx = std::clamp(x - w / 2, layout.area.left() + 2, layout.area.right() - w - 2);
        p.setPen(style::mutedText());
        p.drawText(QRectF(lx, y + 5, w, fm.height()), Qt::AlignCenter, t.label);
    }
    p.setPen(style::mutedText());
    const QString caption
        = axis.units() == TimeAxis::Units::Unitless ? QStringLiteral("time (F = 1)") : QStringLiteral("time");
    // In the label column, right-aligned short of the first tick label.
    double captionRight = left - 8;
    if (!ticks.empty() && ticks.front().x >= left - 0.5)
        captionRight = std::min(captionRight, ticks.front().x - fm.horizontalAdvance(ticks.front().label) / 2 - 8);
    if (captionRight - layout.area.left() >= fm.horizontalAdvance(caption))
        p.drawText(QRectF(layout.area.left(), y + 5, captionRight - layout.area.left(), fm.height()),
            Qt::AlignRight | Qt::AlignVCenter, caption);
    if (options.cursorTime >= 0) {
        const double x = axis.toPixel(options.cursorTime);
        if (x >= left && x <= right) {
            const QString text = m_model->formatTime(0, options.cursorTime);
            const double w = fm.horizontalAdvance(text) + 8;
            const QRectF box(
                std::clamp(x - w / 2, layout.area.left(), layout.area.right() - w), y + 3, w, fm.height() + 2);
            p.fillRect(box, style::cursor());
            p.setPen(Qt::white);
            p.drawText(box, Qt::AlignCenter, text);
        }
    }
}

double GanttRenderer::legendHeight(double width, const GanttOptions& options) const
{
    const double plotWidth = width - labelColumnWidth() - (options.showInflight ? kGutterWidth + kGutterGap : 0) - 4;
    return GanttLegend::height(*m_model, options, foldsWhenZoomedOut(plotWidth, options), width - labelColumnWidth());
}

void GanttRenderer::paintLegend(QPainter& p, const QRectF& rect, const GanttOptions& options) const
{
    const double plotWidth
        = rect.width() - labelColumnWidth() - (options.showInflight ? kGutterWidth + kGutterGap : 0) - 4;
    GanttLegend::paint(
        p, *m_model, options, foldsWhenZoomedOut(plotWidth, options), rect.adjusted(labelColumnWidth(), 0, 0, 0));
}

} // namespace parallax::render
