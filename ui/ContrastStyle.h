// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QProxyStyle>

namespace parallax::ui {

// Fusion, with the frames of check boxes and radio buttons drawn in a color that reads on a dark
// window: Fusion derives them from the window color (darker by 40%), which on the dark palette is
// almost the window itself, so an unchecked box all but disappears.
class ContrastStyle : public QProxyStyle {
public:
    explicit ContrastStyle(QStyle* base);

    void drawPrimitive(PrimitiveElement element, const QStyleOption* option, QPainter* painter,
        const QWidget* widget = nullptr) const override;
};

} // namespace parallax::ui
