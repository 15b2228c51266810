// SPDX-License-Identifier: Apache-2.0
#include "ui/render/RenderStyle.h"

#include "core/Units.h"

#include <QLocale>
#include <QPaintEngine>
#include <QPainter>
#include <QPainterPath>
#include <QRectF>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

namespace parallax::render::style {

namespace {
// Okabe-Ito without black, ordered so that neighbours differ in both hue and lightness.
constexpr std::array<QRgb, 7> kOkabeIto { 0x0072B2, 0xE69F00, 0x009E73, 0xCC79A7, 0x56B4E9, 0xD55E00, 0xF0E442 };
// Paul Tol "light" (the GUI's group colors, ui/Theme.cpp).
constexpr std::array<QRgb, 8> kTolLight { 0x77AADD, 0xEE8866, 0xEEDD88, 0xFFAABB, 0x99DDFF, 0x44BB99, 0xBBCC33,
    0xAAAA00 };
constexpr std::array<QRgb, 5> kMemory { 0x0072B2, 0x56B4E9, 0x009E73, 0xE69F00, 0xBBBBBB };

int wrap(int i, int n)
{
    return ((i % n) + n) % n;
}

bool g_darkCanvas = false; // the GUI thread sets and reads it; exports force light

QColor pick(QRgb light, QRgb dark)
{
    return QColor(g_darkCanvas ? dark : light);
}

QColor mix(const QColor& a, const QColor& b, double f)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - f) + b.redF() * f),
        static_cast<float>(a.greenF() * (1 - f) + b.greenF() * f),
        static_cast<float>(a.blueF() * (1 - f) + b.blueF() * f));
}
} // namespace

QFont font(int pixelSize, bool bold)
{
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setStyleHint(QFont::SansSerif);
    f.setPixelSize(pixelSize);
    f.setBold(bold);
    f.setHintingPreference(QFont::PreferNoHinting);
    return f;
}

void setDarkCanvas(bool dark)
{
    g_darkCanvas = dark;
}
bool isDarkCanvas()
{
    return g_darkCanvas;
}
ScopedLightScheme::ScopedLightScheme()
    : m_wasDark(g_darkCanvas)
{
    g_darkCanvas = false;
}
ScopedLightScheme::~ScopedLightScheme()
{
    g_darkCanvas = m_wasDark;
}

// Dark variants: the dark palette's window and base greys (ui/Theme.cpp), text at WCAG AA contrast.
QColor text()
{
    return pick(0x1a1a1a, 0xe6e6e6);
}
QColor mutedText()
{
    return pick(0x555555, 0xaab0b6);
}
QColor background()
{
    return pick(0xffffff, 0x1e2023);
}
QColor gridLine()
{
    return pick(0xe2e2e2, 0x383b40);
}
QColor frame()
{
    return pick(0xa0a0a0, 0x6c7076);
}

int microbatchHueCount()
{
    return static_cast<int>(kOkabeIto.size());
}
QColor microbatchBase(int microbatch)
{
    return QColor(kOkabeIto[static_cast<std::size_t>(wrap(microbatch, microbatchHueCount()))]);
}
QColor microbatchTint(int microbatch)
{
    return mix(microbatchBase(microbatch), Qt::white, 0.58);
}
QColor blend(const QColor& a, const QColor& b, double f)
{
    return mix(a, b, f);
}

QColor textOn(const QColor& fill)
{
    // Relative luminance (WCAG 2.x); the threshold balances contrast with black and with white.
    auto lin = [](double c) { return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
    const double l = 0.2126 * lin(fill.redF()) + 0.7152 * lin(fill.greenF()) + 0.0722 * lin(fill.blueF());
    return l > 0.2 ? QColor(0x1a, 0x1a, 0x1a) : QColor(Qt::white); // on the fill, not the canvas: any scheme
}

QColor trackFill()
{
    return pick(0xeeeeee, 0x34373c);
}
QColor panelFill()
{
    return pick(0xf2f2f2, 0x27292d);
}
QColor backing(int alpha)
{
    QColor c = background();
    c.setAlpha(alpha);
    return c;
}
QColor bubbleFill()
{
    return pick(0xf4f4f4, 0x2a2c30);
}
QColor bubbleHatch()
{
    return pick(0xcccccc, 0x50545a);
}
QColor p2pFill()
{
    return pick(0xdde4ee, 0x34404e);
}
QColor p2pLine()
{
    return pick(0x44556a, 0xaebdd0);
}
QColor foldedForward()
{
    return QColor(0xa9, 0xb6, 0xc6);
}
QColor foldedBackward()
{
    return QColor(0x3c, 0x4d, 0x63);
}
QColor cursor()
{
    return QColor(0xcc, 0x33, 0x11);
}
QColor problem()
{
    return QColor(0xcc, 0x33, 0x11);
}
QColor highlight()
{
    return QColor(0x11, 0x11, 0x11);
}

int groupColorCount()
{
    return static_cast<int>(kTolLight.size());
}
QColor groupColor(int index)
{
    return QColor(kTolLight[static_cast<std::size_t>(wrap(index, groupColorCount()))]);
}
QColor idleGpu()
{
    return pick(0xdddddd, 0x4a4d52);
}

QColor memoryComponent(int component)
{
    return QColor(kMemory[static_cast<std::size_t>(wrap(component, static_cast<int>(kMemory.size())))]);
}

namespace {
// A square tile of the hatch, cached: filling with a texture brush is several times faster on
// the raster engine than Qt's pattern brushes.
const QImage& hatchTile(const QColor& fill, const QColor& line, int spacing)
{
    thread_local std::map<std::tuple<QRgb, QRgb, int>, QImage> tiles;
    const auto key = std::make_tuple(fill.rgba(), line.rgba(), spacing);
    auto it = tiles.find(key);
    if (it == tiles.end()) {
        QImage tile(spacing, spacing, QImage::Format_RGB32); // opaque: a plain tiled copy
        tile.fill(fill);
        for (int x = 0; x < spacing; ++x)
            tile.setPixelColor(x, spacing - 1 - x, line); // one "/" diagonal, seamless when tiled
        it = tiles.emplace(key, std::move(tile)).first;
    }
    return it->second;
}
} // namespace

void fillHatched(QPainter& painter, const QRectF& rect, const QColor& fill, const QColor& line, double spacing)
{
    if (rect.isEmpty())
        return;
    const bool raster = painter.paintEngine() && painter.paintEngine()->type() == QPaintEngine::Raster;
    if (raster && fill.alpha() == 255) {
        painter.fillRect(rect, QBrush(hatchTile(fill, line, std::max(2, static_cast<int>(std::lround(spacing))))));
        return;
    }
    painter.fillRect(rect, fill);
    // Lines x + y = c on a grid of `spacing` ("/" on screen), clipped to the rect, as one path
    // (one SVG element per hatched area, not one per line).
    QPainterPath path;
    const double x0 = rect.left(), x1 = rect.right(), y0 = rect.top(), y1 = rect.bottom();
    for (double c = std::floor((x0 - (y1 - y0)) / spacing) * spacing; c < x1; c += spacing) {
        // Segment from (c, y1) to (c + h, y0), clipped horizontally.
        QPointF a(c, y1), b(c + (y1 - y0), y0);
        if (a.x() < x0)
            a = QPointF(x0, y1 - (x0 - c));
        if (b.x() > x1)
            b = QPointF(x1, y1 - (x1 - c));
        if (a.x() < b.x()) {
            path.moveTo(a);
            path.lineTo(b);
        }
    }
    painter.save();
    painter.setPen(QPen(line, 0.8));
    painter.setBrush(Qt::NoBrush);
    painter.drawPath(path);
    painter.restore();
}

QString seconds(double s)
{
    const double a = std::abs(s);
    if (a >= 1 || a == 0)
        return QString::number(s, 'f', a >= 100 ? 0 : (a >= 10 ? 1 : 2)) + QStringLiteral(" s");
    if (a >= 1e-3)
        return QString::number(s * 1e3, 'f', a >= 0.1 ? 0 : (a >= 0.01 ? 1 : 2)) + QStringLiteral(" ms");
    return QString::number(s * 1e6, 'f', a >= 1e-4 ? 0 : (a >= 1e-5 ? 1 : 2)) + QStringLiteral(" µs");
}

QString gib(double bytes, int decimals)
{
    return QString::number(bytes / core::kGiB, 'f', decimals) + QStringLiteral(" GiB");
}

QString percent(double fraction, int decimals)
{
    return QString::number(fraction * 100.0, 'f', decimals) + u'%';
}

QString count(double value)
{
    QLocale c(QLocale::English);
    return c.toString(static_cast<qlonglong>(std::llround(value)));
}

} // namespace parallax::render::style
