// SPDX-License-Identifier: Apache-2.0
#include "ui/render/MemoryChartRenderer.h"

#include "core/Units.h"
#include "ui/render/RenderStyle.h"
#include "ui/render/SvgAnnotations.h"
#include "ui/render/TimeAxis.h"

#include <QFontMetricsF>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace parallax::render {

namespace {
constexpr double kAxisWidth = 64;
constexpr double kBottom = 40; // stage labels and the axis title
constexpr double kTop = 26; // room for the labels above the bars
constexpr double kSwatch = 14;

// Legend entries: the components, the HBM line, and "over HBM" when a bar exceeds it.
struct LegendEntry {
    int component; // -1 HBM line, -2 over capacity
    QString text;
};

std::vector<LegendEntry> legendEntries(const MemoryChartRenderer& chart, bool over)
{
    std::vector<LegendEntry> e;
    for (int c = 0; c < chart.componentCount(); ++c)
        e.push_back({ c, chart.componentName(c) });
    e.push_back({ -1, QStringLiteral("HBM capacity") });
    if (over)
        e.push_back({ -2, QStringLiteral("over capacity (by the amount above the bar)") });
    return e;
}

double legendFlow(
    QPainter* p, const MemoryChartRenderer& chart, const std::vector<LegendEntry>& entries, const QRectF& rect)
{
    const QFont f = style::font(style::kText);
    const QFontMetricsF fm(f);
    const double lineH = std::max(kSwatch, fm.height()) + 6;
    double x = rect.left(), y = rect.top();
    if (p)
        p->setFont(f);
    for (const auto& e : entries) {
        const double w = kSwatch + 6 + fm.horizontalAdvance(e.text) + 18;
        if (x > rect.left() && x + w > rect.right()) {
            x = rect.left();
            y += lineH;
        }
        if (p) {
            const QRectF s(x, y + (lineH - kSwatch) / 2, kSwatch, kSwatch);
            if (e.component >= 0) {
                p->fillRect(s, chart.componentColor(e.component));
            } else if (e.component == -1) {
                p->setPen(QPen(style::text(), 2, Qt::DashLine));
                p->drawLine(QPointF(s.left(), s.center().y()), QPointF(s.right(), s.center().y()));
            } else {
                QPen frame(style::problem(), 2, Qt::DashLine);
                frame.setJoinStyle(Qt::MiterJoin);
                p->setPen(frame);
                p->setBrush(Qt::NoBrush);
                p->drawRect(s.adjusted(1, 1, -1, -1));
            }
            p->setPen(style::text());
            p->drawText(QRectF(s.right() + 6, y, w, lineH), Qt::AlignLeft | Qt::AlignVCenter, e.text);
        }
        x += w;
    }
    return y + lineH - rect.top();
}
} // namespace

QString MemoryChartRenderer::overCapacityLabel(double excessBytes, double slot, const QFontMetricsF& fm)
{
    // The legend says what the number is ("over capacity, by the amount above the bar").
    const QString excess = style::gib(excessBytes);
    const QString forms[] = { QStringLiteral("+") + excess + QStringLiteral(" over"), QStringLiteral("+") + excess,
        QStringLiteral("+") + excess.section(QLatin1Char(' '), 0, 0) };
    for (const QString& form : forms) {
        if (fm.horizontalAdvance(form) <= slot - 2)
            return form;
    }
    return forms[2];
}

double MemoryChartRenderer::Bar::total() const
{
    double t = 0;
    for (double b : bytes)
        t += b;
    return t;
}

MemoryChartRenderer::MemoryChartRenderer(std::vector<Bar> bars, double hbmBytes, Kind kind)
    : m_bars(std::move(bars))
    , m_hbmBytes(hbmBytes)
    , m_kind(kind)
{
    for (Bar& b : m_bars)
        b.bytes.resize(static_cast<std::size_t>(componentCount()), 0.0);
}

MemoryChartRenderer MemoryChartRenderer::fromServing(const core::ServingMemory& m)
{
    // A pool that does not fit is drawn as none: the bar then rises above the HBM by what is missing.
    Bar b;
    b.label = QStringLiteral("fullest GPU");
    b.bytes = { m.weightsBytes, m.workspaceBytes, m.cudaGraphBytes, m.runtimeBytes, std::max(0.0, m.kvCacheBytes),
        m.reserveBytes };
    return MemoryChartRenderer({ b }, m.hbmBytes, Kind::Serving);
}

MemoryChartRenderer MemoryChartRenderer::fromReport(const core::Report& report)
{
    if (report.inference)
        return fromServing(report.inference->memory);
    std::vector<Bar> bars;
    for (const core::StageMemory& s : report.stages) {
        Bar b;
        b.label = QString::number(s.stage);
        b.bytes = { s.weightsBytes, s.gradsBytes, s.optimizerBytes, s.activationsBytes, s.otherBytes };
        b.hbmBytes = s.hbmBytes;
        bars.push_back(b);
    }
    return MemoryChartRenderer(std::move(bars), report.hbmBytes);
}

QString MemoryChartRenderer::componentName(Kind kind, int component)
{
    if (kind == Kind::Serving) {
        switch (component) {
        case ServingWeights:
            return QStringLiteral("weights");
        case Workspace:
            return QStringLiteral("activation workspace");
        case CudaGraphs:
            return QStringLiteral("CUDA graphs");
        case Runtime:
            return QStringLiteral("CUDA context, comm buffers");
        case KvCache:
            return QStringLiteral("KV cache pool");
        default:
            return QStringLiteral("reserve (1 - gpu_memory_utilization)");
        }
    }
    switch (component) {
    case Weights:
        return QStringLiteral("weights");
    case Grads:
        return QStringLiteral("gradients");
    case Optimizer:
        return QStringLiteral("optimizer states");
    case Activations:
        return QStringLiteral("activations");
    default:
        return QStringLiteral("other (context, buffers)");
    }
}

QColor MemoryChartRenderer::componentColor(Kind kind, int component)
{
    if (kind == Kind::Training)
        return style::memoryComponent(component);
    // What the engine loads in Tol's light scheme, the KV cache pool that is left in Tol's vibrant teal,
    // the reserve a neutral grey legible on the light and the dark palette.
    switch (component) {
    case KvCache:
        return QColor(0x00, 0x99, 0x88);
    case Reserve:
        return QColor(0x9e, 0x9e, 0x9e);
    default:
        return style::groupColor(component);
    }
}

double MemoryChartRenderer::bytesOf(int bar, int component) const
{
    return m_bars[static_cast<std::size_t>(bar)].bytes[static_cast<std::size_t>(component)];
}

double MemoryChartRenderer::hbmBytes(int bar) const
{
    const double own = m_bars[static_cast<std::size_t>(bar)].hbmBytes;
    return own > 0 ? own : m_hbmBytes;
}

bool MemoryChartRenderer::oneCapacity() const
{
    for (int i = 0; i < static_cast<int>(m_bars.size()); ++i) {
        if (hbmBytes(i) != m_hbmBytes)
            return false;
    }
    return true;
}

bool MemoryChartRenderer::anyOver() const
{
    for (int i = 0; i < static_cast<int>(m_bars.size()); ++i) {
        if (hbmBytes(i) > 0 && m_bars[static_cast<std::size_t>(i)].total() > hbmBytes(i))
            return true;
    }
    return false;
}

double MemoryChartRenderer::legendHeight(double width) const
{
    const bool over = anyOver();
    return legendFlow(nullptr, *this, legendEntries(*this, over), QRectF(0, 0, width - kAxisWidth, 1000));
}

double MemoryChartRenderer::preferredHeight(double width) const
{
    return 420 + legendHeight(width);
}

MemoryChartRenderer::Layout MemoryChartRenderer::layout(const QRectF& area) const
{
    Layout l;
    l.area = area;
    const double legendH = legendHeight(area.width());
    l.legend = QRectF(area.left() + kAxisWidth, area.top() + 4, area.width() - kAxisWidth - 10, legendH);
    l.plot = QRectF(area.left() + kAxisWidth, l.legend.bottom() + kTop, area.width() - kAxisWidth - 16,
        std::max(40.0, area.height() - legendH - kTop - kBottom - 8));
    double top = m_hbmBytes;
    for (int i = 0; i < static_cast<int>(m_bars.size()); ++i)
        top = std::max({ top, m_bars[static_cast<std::size_t>(i)].total(), hbmBytes(i) });
    // Head room for the labels over the tallest bar; the grid step comes from TimeAxis' 1-2-5 rule.
    const double step = TimeAxis::niceStep(std::max(top, 1.0) * 1.08 / core::kGiB / 6) * core::kGiB;
    l.yMaxBytes = std::ceil(std::max(top, 1.0) * 1.08 / step) * step;
    const int n = static_cast<int>(m_bars.size());
    const double slot = n > 0 ? l.plot.width() / n : l.plot.width();
    const double w = std::clamp(slot * 0.68, 2.0, 72.0);
    for (int i = 0; i < n; ++i) {
        const double x = l.plot.left() + slot * (i + 0.5) - w / 2;
        const double y = l.toY(m_bars[static_cast<std::size_t>(i)].total());
        l.bars.push_back(QRectF(x, y, w, l.plot.bottom() - y));
    }
    return l;
}

QRectF MemoryChartRenderer::segmentRect(const Layout& l, int bar, int component) const
{
    double below = 0;
    for (int c = 0; c < component; ++c)
        below += bytesOf(bar, c);
    const QRectF full = l.bars[static_cast<std::size_t>(bar)];
    const double y0 = l.toY(below), y1 = l.toY(below + bytesOf(bar, component));
    return QRectF(full.left(), y1, full.width(), y0 - y1);
}

void MemoryChartRenderer::paint(QPainter& p, const Layout& l, Hit hovered) const
{
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);
    p.fillRect(l.area, style::background());
    const QFont small = style::font(style::kSmallText);
    const QFont text = style::font(style::kText);
    const QFontMetricsF fs(small), ft(text);

    // Grid and the GiB axis.
    const double stepGiB = TimeAxis::niceStep(l.yMaxBytes / core::kGiB / 6);
    p.setFont(text);
    for (double g = 0; g <= l.yMaxBytes / core::kGiB + 1e-9; g += stepGiB) {
        const double y = std::round(l.toY(g * core::kGiB)) + 0.5;
        p.setPen(QPen(g == 0 ? style::frame() : style::gridLine(), 1));
        p.drawLine(QPointF(l.plot.left(), y), QPointF(l.plot.right(), y));
        p.setPen(style::mutedText());
        p.drawText(QRectF(l.area.left(), y - ft.height() / 2, kAxisWidth - 8, ft.height()),
            Qt::AlignRight | Qt::AlignVCenter, QString::number(g, 'f', stepGiB < 1 ? 1 : 0));
    }
    p.save();
    p.translate(l.area.left() + 12, l.plot.center().y());
    p.rotate(-90);
    p.setPen(style::text());
    p.drawText(QRectF(-100, -ft.height() / 2 - 2, 200, ft.height()), Qt::AlignCenter, QStringLiteral("GiB per GPU"));
    p.restore();

    // The capacity line under the bars (an excess is outlined on top of them), its label
    // right-aligned above it; where the stages sit on GPUs of different HBM, one piece per bar.
    const int n = static_cast<int>(m_bars.size());
    const double slot = n > 0 ? l.plot.width() / n : l.plot.width();
    p.setPen(QPen(style::text(), 2, Qt::DashLine));
    const bool oneHbm = oneCapacity(); // once per paint: it walks the bars
    if (oneHbm && m_hbmBytes > 0) {
        const double y = std::round(l.toY(m_hbmBytes)) + 0.5;
        p.drawLine(QPointF(l.plot.left(), y), QPointF(l.plot.right(), y));
    }
    for (int i = 0; i < n && !oneHbm; ++i) {
        const double y = std::round(l.toY(hbmBytes(i))) + 0.5;
        p.drawLine(QPointF(l.plot.left() + slot * i, y), QPointF(l.plot.left() + slot * (i + 1), y));
    }

    p.setFont(text);
    // The bars, bottom-up.
    const int labelEvery = std::max(1, static_cast<int>(std::ceil(fs.horizontalAdvance(QStringLiteral("000")) / slot)));
    for (int i = 0; i < n; ++i) {
        const Bar& b = m_bars[static_cast<std::size_t>(i)];
        const QRectF full = l.bars[static_cast<std::size_t>(i)];
        for (int c = 0; c < componentCount(); ++c) {
            const QRectF r = segmentRect(l, i, c);
            if (r.height() <= 0)
                continue;
            p.fillRect(r, componentColor(c));
            // The label avoids the HBM line where it crosses the segment.
            QRectF labelRect = r;
            const double yHbm = hbmBytes(i) > 0 ? l.toY(hbmBytes(i)) : -1;
            if (yHbm > r.top() && yHbm < r.bottom()) {
                const QRectF above(r.left(), r.top(), r.width(), yHbm - r.top() - 2);
                const QRectF below(r.left(), yHbm + 2, r.width(), r.bottom() - yHbm - 2);
                labelRect = above.height() >= below.height() ? above : below;
            }
            if (labelRect.height() >= fs.height() + 2 && r.width() >= 34) {
                p.setFont(small);
                p.setPen(style::textOn(componentColor(c)));
                p.drawText(labelRect, Qt::AlignCenter, QString::number(bytesOf(i, c) / core::kGiB, 'f', 1));
            }
        }
        // Thin white seams between segments keep neighbours apart in grey scale.
        p.setPen(QPen(style::background(), 1));
        double below = 0;
        for (int c = 0; c + 1 < componentCount(); ++c) {
            below += bytesOf(i, c);
            if (bytesOf(i, c) > 0 && below < b.total()) {
                const double y = std::round(l.toY(below)) + 0.5;
                p.drawLine(QPointF(full.left(), y), QPointF(full.right() - 1, y));
            }
        }
        const double hbm = hbmBytes(i);
        const bool over = hbm > 0 && b.total() > hbm;
        if (over) {
            // The part above the HBM: a red dashed frame, and a bracket beside the bar.
            const double yHbm = std::round(l.toY(hbm));
            const QRectF excess(full.left(), full.top(), full.width(), yHbm - full.top());
            QPen frame(style::problem(), 2, Qt::DashLine);
            frame.setJoinStyle(Qt::MiterJoin);
            p.setPen(frame);
            p.setBrush(Qt::NoBrush);
            p.drawRect(excess.adjusted(1, 1, -1, 0));
            p.setPen(QPen(style::problem(), 2));
            p.drawLine(QPointF(full.left() - 2, yHbm), QPointF(full.right() + 2, yHbm));
        }
        // Above the bar: the total, or by how much it exceeds the HBM.
        if (slot >= 30) {
            const QFont f = over ? style::font(style::kSmallText, true) : small;
            p.setFont(f);
            const QFontMetricsF fm(f);
            const QString label = over ? overCapacityLabel(b.total() - hbm, slot, fm) : style::gib(b.total());
            if (fm.horizontalAdvance(label) <= slot - 2 || over) {
                p.setPen(over ? style::problem() : style::text());
                const double w = std::max(slot, fm.horizontalAdvance(label) + 4);
                p.drawText(QRectF(full.center().x() - w / 2, full.top() - fm.height() - 3, w, fm.height()),
                    Qt::AlignCenter, label);
            }
        }
        if (i % labelEvery == 0) {
            p.setFont(small);
            p.setPen(style::mutedText());
            p.drawText(QRectF(l.plot.left() + slot * i, l.plot.bottom() + 3, slot * labelEvery, fs.height()),
                labelEvery == 1 ? Qt::AlignHCenter | Qt::AlignTop : Qt::AlignLeft | Qt::AlignTop, b.label);
        }
        if (hovered.bar == i) {
            const QRectF r = hovered.component >= 0 ? segmentRect(l, i, hovered.component) : full;
            p.setPen(QPen(style::highlight(), 2));
            p.setBrush(Qt::NoBrush);
            p.drawRect(r.adjusted(-1, -1, 1, 1));
        }
    }
    p.setFont(text);
    p.setPen(style::text());
    p.drawText(QRectF(l.plot.left(), l.plot.bottom() + fs.height() + 6, l.plot.width(), ft.height()), Qt::AlignCenter,
        m_kind == Kind::Serving ? QStringLiteral("one model replica's fullest pipeline stage")
                                : QStringLiteral("pipeline stage"));

    // The capacity's label, right-aligned above its line: at the plot's end, or where the stages sit on
    // GPUs of different HBM, at the end of each run of bars with one HBM.
    p.setFont(style::font(style::kText, true));
    const QFontMetricsF fb(p.font());
    const auto capacityLabel = [&](double hbm, double right) {
        const double y = std::round(l.toY(hbm)) + 0.5;
        const QString label = QStringLiteral("HBM ") + style::gib(hbm, 0);
        const double w = fb.horizontalAdvance(label) + 8;
        const QRectF box(right - w, y - fb.height() - 3, w, fb.height());
        p.fillRect(box, style::backing(230));
        p.setPen(style::text());
        p.drawText(box, Qt::AlignCenter, label);
    };
    if (oneHbm && m_hbmBytes > 0)
        capacityLabel(m_hbmBytes, l.plot.right());
    for (int i = 0; i < n && !oneHbm; ++i) {
        if (hbmBytes(i) > 0 && (i + 1 == n || hbmBytes(i + 1) != hbmBytes(i)))
            capacityLabel(hbmBytes(i), l.plot.left() + slot * (i + 1));
    }

    p.setRenderHint(QPainter::Antialiasing, false);
    legendFlow(&p, *this, legendEntries(*this, anyOver()), l.legend);
    p.restore();
}

MemoryChartRenderer::Hit MemoryChartRenderer::hitTest(const Layout& l, QPointF point) const
{
    for (int i = 0; i < static_cast<int>(l.bars.size()); ++i) {
        const QRectF full = l.bars[static_cast<std::size_t>(i)];
        if (point.x() < full.left() || point.x() > full.right())
            continue;
        if (point.y() > full.bottom() || point.y() < full.top() - 20)
            return {};
        for (int c = 0; c < componentCount(); ++c) {
            const QRectF r = segmentRect(l, i, c);
            if (r.height() >= 3 && point.y() >= r.top() && point.y() <= r.bottom())
                return { i, c };
        }
        return { i, -1 };
    }
    return {};
}

QString MemoryChartRenderer::toolTip(const Layout& l, QPointF point) const
{
    const Hit h = hitTest(l, point);
    if (!h.valid())
        return {};
    const Bar& b = m_bars[static_cast<std::size_t>(h.bar)];
    QString text = (m_kind == Kind::Serving ? b.label : QStringLiteral("stage ") + b.label) + QStringLiteral(": ")
        + style::gib(b.total(), 2) + QStringLiteral(" per GPU");
    const double hbm = hbmBytes(h.bar);
    if (hbm > 0)
        text += b.total() > hbm
            ? QStringLiteral(", ") + style::gib(b.total() - hbm, 2) + QStringLiteral(" over the HBM")
            : QStringLiteral(", ") + style::gib(hbm - b.total(), 2) + QStringLiteral(" free");
    if (!oneCapacity())
        text += QStringLiteral(" of ") + style::gib(hbm, 0);
    for (int c = 0; c < componentCount(); ++c) {
        const double bytes = bytesOf(h.bar, c);
        text += u'\n' + (c == h.component ? QStringLiteral("▶ ") : QStringLiteral("   ")) + componentName(c)
            + QStringLiteral(": ") + style::gib(bytes, 2) + QStringLiteral(" (") + style::count(bytes)
            + QStringLiteral(" bytes)");
    }
    return text;
}

void MemoryChartRenderer::annotate(SvgAnnotations& out, const Layout& l) const
{
    for (int i = 0; i < static_cast<int>(m_bars.size()); ++i) {
        for (int c = 0; c < componentCount(); ++c) {
            const QRectF r = segmentRect(l, i, c);
            const double bytes = bytesOf(i, c);
            SvgAnnotations::Item item;
            item.rect = r;
            item.id = QStringLiteral("memory-s%1-c%2").arg(i).arg(c);
            item.cssClass = QStringLiteral("memory");
            const QString& label = m_bars[static_cast<std::size_t>(i)].label;
            item.title = (m_kind == Kind::Serving ? label : QStringLiteral("stage ") + label) + QStringLiteral(": ")
                + componentName(c) + QStringLiteral(" ") + style::gib(bytes, 2);
            item.data = { { QStringLiteral("stage"), label }, { QStringLiteral("component"), componentName(c) },
                { QStringLiteral("bytes"), QString::number(bytes, 'f', 0) } };
            out.add(std::move(item));
        }
    }
}

} // namespace parallax::render
