// SPDX-License-Identifier: Apache-2.0
#include "ui/render/GanttLegend.h"

#include "ui/render/RenderStyle.h"

#include <QFontMetricsF>
#include <QLinearGradient>
#include <QPainter>
#include <cmath>
#include <functional>
#include <vector>

namespace parallax::render {

using core::OpKind;

namespace {
struct LegendItem {
    std::function<void(QPainter&, const QRectF&)> swatch;
    QString text;
};

std::vector<LegendItem> legendItems(const GanttModel& model, const GanttOptions& options, bool folds)
{
    std::vector<LegendItem> items;
    const int mb = 0;
    auto solid = [](QColor c) { return [c](QPainter& p, const QRectF& r) { p.fillRect(r, c); }; };
    const bool split = model.splitsBackward();
    if (model.hasKind(OpKind::Forward))
        items.push_back({ solid(style::microbatchTint(mb)), QStringLiteral("F forward") });
    if (model.hasKind(OpKind::Backward))
        items.push_back({ solid(style::microbatchBase(mb)),
            split ? QStringLiteral("B backward (inputs)") : QStringLiteral("B backward") });
    if (model.hasKind(OpKind::BackwardWeight))
        items.push_back({ [](QPainter& p, const QRectF& r) {
                             style::fillHatched(p, r, style::background(), style::microbatchBase(0), 5);
                             p.setPen(QPen(style::microbatchBase(0), 1));
                             p.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
                         },
            QStringLiteral("W backward (weights)") });
    if (model.hasKind(OpKind::ForwardBackward))
        items.push_back({ [](QPainter& p, const QRectF& r) {
                             const double h = std::round(r.height() / 2);
                             p.fillRect(QRectF(r.left(), r.top(), r.width(), h), style::microbatchTint(0));
                             p.fillRect(
                                 QRectF(r.left(), r.top() + h, r.width(), r.height() - h), style::microbatchBase(1));
                         },
            QStringLiteral("F&B overlapped pair") });
    items.push_back({ [](QPainter& p, const QRectF& r) {
                         for (int i = 0; i < 4; ++i)
                             p.fillRect(QRectF(r.left() + i * r.width() / 4, r.top(), r.width() / 4, r.height()),
                                 style::microbatchBase(i));
                     },
        QStringLiteral("hue = micro-batch (repeats every %1)").arg(style::microbatchHueCount()) });
    items.push_back(
        { [](QPainter& p, const QRectF& r) { style::fillHatched(p, r, style::bubbleFill(), style::bubbleHatch()); },
            QStringLiteral("idle (bubble)") });
    if (model.hasExposedComm())
        items.push_back({ [](QPainter& p, const QRectF& r) {
                             p.fillRect(r, style::microbatchBase(2));
                             p.save();
                             p.setClipRect(r);
                             p.setPen(QPen(QColor(0, 0, 0, 110), 1));
                             for (double x = r.left() - r.height(); x < r.right(); x += 4)
                                 p.drawLine(QPointF(x, r.bottom()), QPointF(x + r.height(), r.top()));
                             p.restore();
                         },
            QStringLiteral("exposed TP/CP/EP communication (tail of the op)") });
    if (model.hasP2pWaits())
        items.push_back({ [](QPainter& p, const QRectF& r) {
                             p.fillRect(r, style::p2pFill());
                             p.setPen(style::p2pLine());
                             p.drawLine(QPointF(r.left() + 2, r.center().y()), QPointF(r.right() - 3, r.center().y()));
                         },
            QStringLiteral("waiting for p2p transfer") });
    if (folds)
        items.push_back({ [](QPainter& p, const QRectF& r) {
                             const double w = r.width() / 3;
                             for (int k = 0; k < 3; ++k)
                                 p.fillRect(QRectF(r.left() + k * w, r.top(), w, r.height()),
                                     style::blend(style::foldedForward(), style::foldedBackward(), k / 2.0));
                         },
            QStringLiteral("ops < %1 px folded: forward, mixed, backward; paler = partly idle")
                .arg(options.foldWidthPx) });
    bool chunks = false, dirs = false;
    for (int t = 0; t < model.trackCount(); ++t) {
        dirs = dirs || model.showsDirections(t);
        chunks = chunks || (!model.showsDirections(t) && model.chunksPerRank(t) > 1);
    }
    if (chunks)
        items.push_back({ nullptr, QStringLiteral("F3c1 = micro-batch 3, model chunk 1") });
    if (dirs)
        items.push_back({ nullptr, QStringLiteral("↓ fed from rank 0, ↑ from the last rank") });
    return items;
}

// Flow layout: rows of (swatch + text) items; returns the height used.
double flowLegend(QPainter* p, const std::vector<LegendItem>& items, const QRectF& rect)
{
    const QFont f = style::font(style::kSmallText);
    const QFontMetricsF fm(f);
    const double sw = 22, sh = 12, lineH = std::max(sh, fm.height()) + 4;
    double x = rect.left(), y = rect.top();
    if (p)
        p->setFont(f);
    for (const auto& item : items) {
        const double w = (item.swatch ? sw + 5 : 0) + fm.horizontalAdvance(item.text) + 16;
        if (x > rect.left() && x + w > rect.right()) {
            x = rect.left();
            y += lineH;
        }
        if (p) {
            double tx = x;
            if (item.swatch) {
                const QRectF s(x, y + (lineH - sh) / 2, sw, sh);
                item.swatch(*p, s);
                p->setPen(QPen(style::frame(), 1));
                p->setBrush(Qt::NoBrush);
                p->drawRect(s.adjusted(0.5, 0.5, -0.5, -0.5));
                tx += sw + 5;
            }
            p->setPen(style::text());
            p->drawText(QRectF(tx, y, w, lineH), Qt::AlignLeft | Qt::AlignVCenter, item.text);
        }
        x += w;
    }
    return y + lineH - rect.top();
}
} // namespace

double GanttLegend::height(const GanttModel& model, const GanttOptions& options, bool folds, double width)
{
    return flowLegend(nullptr, legendItems(model, options, folds), QRectF(0, 0, width, 1000));
}

void GanttLegend::paint(
    QPainter& painter, const GanttModel& model, const GanttOptions& options, bool folds, const QRectF& rect)
{
    flowLegend(&painter, legendItems(model, options, folds), rect);
}

} // namespace parallax::render
