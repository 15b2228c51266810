// SPDX-License-Identifier: Apache-2.0
#include "ui/ContrastStyle.h"

#include <QPainter>
#include <QStyleOption>

namespace parallax::ui {

ContrastStyle::ContrastStyle(QStyle* base)
    : QProxyStyle(base)
{
}

void ContrastStyle::drawPrimitive(
    PrimitiveElement element, const QStyleOption* option, QPainter* painter, const QWidget* widget) const
{
    QProxyStyle::drawPrimitive(element, option, painter, widget);
    const bool box = element == PE_IndicatorCheckBox || element == PE_IndicatorItemViewItemCheck;
    const bool radio = element == PE_IndicatorRadioButton;
    if (!(box || radio) || option->palette.color(QPalette::Window).lightness() >= 128)
        return;
    // A frame at about 3:1 against the dark window (WCAG 2.1 non-text contrast, 1.4.11).
    QColor frame = option->palette.color(QPalette::WindowText);
    frame.setAlpha(option->state & State_Enabled ? 150 : 70);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->setPen(QPen(frame, 1));
    painter->setBrush(Qt::NoBrush);
    const QRectF r = QRectF(option->rect).adjusted(1.5, 1.5, -1.5, -1.5);
    if (radio)
        painter->drawEllipse(r);
    else
        painter->drawRoundedRect(r, 1, 1);
    painter->restore();
}

} // namespace parallax::ui
