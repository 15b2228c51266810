// SPDX-License-Identifier: Apache-2.0
#include "ui/render/GanttOpPainter.h"

#include "ui/render/RenderStyle.h"

#include <QPainter>
#include <cmath>

namespace parallax::render {

using core::OpKind;
using core::TimedOp;

namespace {
constexpr double kFadeToWhite = 0.8; // ops after the animation cursor

// Fill of a kind's block (the top half for F&B).
QColor opFill(const TimedOp& op)
{
    switch (op.kind) {
    case OpKind::Forward:
    case OpKind::ForwardBackward:
        return style::microbatchTint(op.microbatch);
    case OpKind::BackwardWeight:
        return style::background();
    default:
        return style::microbatchBase(op.microbatch);
    }
}
} // namespace

GanttOpPainter::GanttOpPainter(
    QPainter& painter, const GanttModel& model, const GanttOptions& options, const TimeAxis& axis, bool labels)
    : m_painter(painter)
    , m_model(model)
    , m_options(options)
    , m_axis(axis)
    , m_fm(style::font(style::kSmallText))
    , m_cursorX(axis.toPixel(options.cursorTime))
    , m_labels(labels)
{
}

QColor GanttOpPainter::faded(const QColor& c)
{
    return style::blend(c, style::background(), kFadeToWhite);
}

void GanttOpPainter::block(const TimedOp& op, const QRectF& r, bool future)
{
    auto fill = [&](const QRectF& rect, QColor c) { m_painter.fillRect(rect, future ? faded(c) : c); };
    switch (op.kind) {
    case OpKind::Forward:
        fill(r, style::microbatchTint(op.microbatch));
        break;
    case OpKind::Backward:
    case OpKind::BackwardInput:
        fill(r, style::microbatchBase(op.microbatch));
        break;
    case OpKind::BackwardWeight: {
        const QColor base = style::microbatchBase(op.microbatch);
        style::fillHatched(
            m_painter, r, future ? faded(style::background()) : style::background(), future ? faded(base) : base, 5);
        if (r.width() >= 4) {
            m_painter.setPen(QPen(future ? faded(base) : base, 1));
            m_painter.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
        }
        break;
    }
    case OpKind::ForwardBackward: {
        const double h = std::round(r.height() / 2);
        fill(QRectF(r.left(), r.top(), r.width(), h), style::microbatchTint(op.microbatch));
        fill(QRectF(r.left(), r.top() + h, r.width(), r.height() - h), style::microbatchBase(op.microbatch2));
        break;
    }
    }
}

void GanttOpPainter::op(const GanttLayout::Row& row, int /*index*/, const TimedOp& o, double x0, double x1)
{
    const double w = x1 - x0;
    QRectF r(x0, row.rect.top(), w, row.rect.height());
    if (w >= 5)
        r.setRight(r.right() - 1); // a seam between neighbours
    const bool hasCursor = m_options.cursorTime >= 0;
    const bool future = hasCursor && o.start >= m_options.cursorTime;
    if (future && m_options.hideFuture)
        return;
    if (hasCursor && !future && o.end > m_options.cursorTime && m_cursorX < r.right()) {
        block(o, QRectF(r.left(), r.top(), m_cursorX - r.left(), r.height()), false);
        if (!m_options.hideFuture)
            block(o, QRectF(m_cursorX, r.top(), r.right() - m_cursorX, r.height()), true);
    } else {
        block(o, r, future);
    }
    commTail(o, r, future);
    if (m_labels && r.width() >= 14)
        label(row, o, r, future);
}

// Exposed TP/CP/EP communication inside the op (the engine counts it in the op's duration): dark
// diagonal stripes over the block's tail, as wide as the communication's share of the op.
void GanttOpPainter::commTail(const TimedOp& o, const QRectF& r, bool future)
{
    const double duration = o.end - o.start;
    if (o.commSeconds <= 0 || duration <= 0)
        return;
    const double w = r.width() * std::min(1.0, o.commSeconds / duration);
    if (w < 2)
        return;
    const QRectF tail(r.right() - w, r.top(), w, r.height());
    m_painter.save();
    m_painter.setClipRect(tail);
    m_painter.setPen(QPen(QColor(0, 0, 0, future ? 40 : 110), 1));
    for (double x = tail.left() - tail.height(); x < tail.right(); x += 4)
        m_painter.drawLine(QPointF(x, tail.bottom()), QPointF(x + tail.height(), tail.top()));
    m_painter.restore();
}

void GanttOpPainter::label(const GanttLayout::Row& row, const TimedOp& o, const QRectF& r, bool future)
{
    // Center the label on the visible part of the block.
    const QRectF visible = r.intersected(QRectF(m_axis.pixelLeft(), r.top(), m_axis.pixelWidth(), r.height()));
    if (o.kind == OpKind::ForwardBackward && r.height() >= 22) {
        const double h = std::round(r.height() / 2);
        const QString top
            = m_model.opLabel(row.track, TimedOp { o.rank, OpKind::Forward, o.microbatch, o.chunk, o.direction });
        const QString bottom
            = m_model.opLabel(row.track, TimedOp { o.rank, OpKind::Backward, o.microbatch2, o.chunk2, o.direction2 });
        const double tw = std::max(m_fm.horizontalAdvance(top), m_fm.horizontalAdvance(bottom));
        if (tw + 4 > visible.width())
            return;
        QColor c1 = style::textOn(style::microbatchTint(o.microbatch));
        QColor c2 = style::textOn(style::microbatchBase(o.microbatch2));
        m_painter.setPen(future ? faded(c1) : c1);
        m_painter.drawText(QRectF(visible.left(), r.top(), visible.width(), h), Qt::AlignCenter, top);
        m_painter.setPen(future ? faded(c2) : c2);
        m_painter.drawText(
            QRectF(visible.left(), r.top() + h, visible.width(), r.height() - h), Qt::AlignCenter, bottom);
        return;
    }
    const QString text = m_model.opLabel(row.track, o);
    if (m_fm.horizontalAdvance(text) + 4 > visible.width())
        return;
    QColor c = o.kind == OpKind::BackwardWeight ? style::text() : style::textOn(opFill(o));
    if (o.kind == OpKind::ForwardBackward)
        c = style::text();
    if (o.kind == OpKind::BackwardWeight || o.kind == OpKind::ForwardBackward) {
        // A backing so the text reads over hatch or a two-tone block.
        const double tw = m_fm.horizontalAdvance(text) + 4;
        const QRectF back(visible.center().x() - tw / 2, visible.center().y() - m_fm.height() / 2, tw, m_fm.height());
        m_painter.fillRect(back, future ? faded(style::background()) : style::backing(225));
    }
    m_painter.setPen(future ? faded(c) : c);
    m_painter.drawText(visible, Qt::AlignCenter, text);
}

void GanttOpPainter::fold(const GanttLayout::Row& row, double x0, double x1, int level, int kind, int ops, bool future)
{
    Q_UNUSED(ops);
    if (future && m_options.hideFuture)
        return;
    QColor c = style::blend(style::foldedForward(), style::foldedBackward(), kind / 2.0);
    if (future)
        c = faded(c);
    c.setAlphaF(static_cast<float>(0.3 + 0.7 * level / 4.0));
    m_painter.fillRect(QRectF(x0, row.rect.top(), x1 - x0, row.rect.height()), c);
}

} // namespace parallax::render
