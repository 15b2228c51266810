// SPDX-License-Identifier: Apache-2.0
#include "ui/Theme.h"

#include "ui/ContrastStyle.h"
#include "ui/render/RenderStyle.h"

#include <QApplication>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>
#include <array>

namespace parallax::ui::theme {

namespace {
// Paul Tol, "light" scheme (pale grey reserved for "no data").
constexpr std::array<QRgb, 8> kTolLight { 0x77AADD, 0xEE8866, 0xEEDD88, 0xFFAABB, 0x99DDFF, 0x44BB99, 0xBBCC33,
    0xAAAA00 };
// Paul Tol's "bright" scheme, all seven: one per GPU preset, so no two types share a color.
constexpr std::array<QRgb, 7> kTolBright { 0x4477AA, 0xEE6677, 0x228833, 0xCCBB44, 0x66CCEE, 0xAA3377, 0xBBBBBB };
} // namespace

int groupColorCount()
{
    return static_cast<int>(kTolLight.size());
}

QColor groupColor(int index)
{
    const int n = groupColorCount();
    return QColor(kTolLight[static_cast<std::size_t>(((index % n) + n) % n)]);
}

QColor problemColor()
{
    return QColor(0xCC, 0x33, 0x11);
} // Tol vibrant red
QColor warningColor()
{
    return QColor(0xEE, 0x77, 0x33);
} // Tol vibrant orange
QColor okColor()
{
    return QColor(0x00, 0x99, 0x88);
} // Tol vibrant teal

QColor gpuTypeColor(int typeIndex)
{
    const int n = static_cast<int>(kTolBright.size());
    return QColor(kTolBright[static_cast<std::size_t>(((typeIndex % n) + n) % n)]);
}

bool isDark()
{
    const QPalette p = QApplication::palette();
    return p.color(QPalette::Window).lightness() < 128;
}

void applyPalette(QApplication& app, bool dark)
{
    render::style::setDarkCanvas(dark); // the rank map, memory and Gantt canvases follow the palette
    app.setStyle(new ContrastStyle(QStyleFactory::create(QStringLiteral("Fusion"))));
    if (!dark) {
        app.setPalette(app.style()->standardPalette());
        return;
    }
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x31);
    const QColor base(0x1e, 0x1f, 0x22);
    const QColor text(0xe6, 0xe6, 0xe6);
    const QColor disabled(0x80, 0x80, 0x80);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window.lighter(110));
    p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3d, 0x42));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x66, 0x55));
    p.setColor(QPalette::Link, QColor(0x77, 0xaa, 0xdd));
    p.setColor(QPalette::Highlight, QColor(0x44, 0x77, 0xaa));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Light, window.lighter(150));
    p.setColor(QPalette::Midlight, window.lighter(125));
    p.setColor(QPalette::Mid, window.darker(120));
    p.setColor(QPalette::Dark, window.darker(150));
    p.setColor(QPalette::Shadow, Qt::black);
    for (auto role : { QPalette::WindowText, QPalette::Text, QPalette::ButtonText })
        p.setColor(QPalette::Disabled, role, disabled);
    app.setPalette(p);
}

} // namespace parallax::ui::theme
