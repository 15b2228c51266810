// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>
#include <QFont>
#include <QString>

class QPainter;
class QRectF;

// Colors, fonts and number formats shared by every renderer, so that the screen and every export
// look the same. Categorical hues are color-blind safe: micro-batches take Okabe & Ito's palette
// (https://jfly.uni-koeln.de/color/), rank-map groups Paul Tol's "light" scheme
// (https://personal.sron.nl/~pault/); an op's kind is carried by lightness and pattern, never by
// hue alone, and problems use Tol's red plus a dash pattern.
namespace parallax::render::style {

// DejaVu Sans at a fixed pixel size: no DPI dependence, identical glyphs on screen and in exports
// (BUILD-NOTES: fonts-dejavu-core must be installed or glyphs render as boxes).
QFont font(int pixelSize, bool bold = false);
inline constexpr int kSmallText = 11;
inline constexpr int kText = 12;
inline constexpr int kHeading = 14;
inline constexpr int kTitle = 20;

// Canvas scheme: the screen follows the application's light or dark palette; every export is
// painted light (ScopedLightScheme) so that a review document does not depend on a user's theme.
void setDarkCanvas(bool dark);
bool isDarkCanvas();
class ScopedLightScheme {
public:
    ScopedLightScheme();
    ~ScopedLightScheme();
    ScopedLightScheme(const ScopedLightScheme&) = delete;
    ScopedLightScheme& operator=(const ScopedLightScheme&) = delete;

private:
    bool m_wasDark;
};

QColor text(); // near-black (near-white on a dark canvas)
QColor mutedText(); // captions, axis labels
QColor background();
QColor gridLine();
QColor frame();
QColor trackFill(); // the empty part of a gauge (in-flight activations)
QColor panelFill(); // a box behind a group of items (a rank map's NVLink domain)
QColor backing(int alpha); // the background, translucent: behind text drawn over a chart

int microbatchHueCount();
QColor microbatchBase(int microbatch); // saturated: backward blocks
QColor microbatchTint(int microbatch); // light: forward blocks
QColor textOn(const QColor& fill); // black or white, whichever reads better
QColor blend(const QColor& a, const QColor& b, double f); // a + (b - a) f, per channel

QColor bubbleFill(); // idle time of a rank
QColor bubbleHatch();
QColor p2pFill(); // waiting for an activation or gradient in transit
QColor p2pLine();
QColor foldedForward(); // aggregate of ops too narrow to draw, all forward
QColor foldedBackward(); // ... all backward; mixed columns blend the two
QColor cursor(); // animation time cursor
QColor problem(); // over capacity, a group leaving its NVLink domain
QColor highlight(); // hovered item outline

int groupColorCount();
QColor groupColor(int index); // rank-map groups, cycles
QColor idleGpu(); // a GPU that runs no rank

// Memory chart components (Okabe-Ito): weights, grads, optimizer states, activations, other.
QColor memoryComponent(int component);

// Diagonal hatch inside `rect`: a pattern brush on raster devices (fast), explicit lines on
// vector devices (SVG and PDF keep the hatch as lines).
void fillHatched(QPainter& painter, const QRectF& rect, const QColor& fill, const QColor& line, double spacing = 6);

// Number formats of labels: "1.23 s", "812 ms", "45.6 µs"; "71.3 GiB"; "12.5%".
QString seconds(double s);
QString gib(double bytes, int decimals = 1);
QString percent(double fraction, int decimals = 1);
QString count(double value); // "1,024"

} // namespace parallax::render::style
