// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QEvent>
#include <QHelpEvent>
#include <QToolTip>
#include <QWidget>

namespace parallax::ui {

// Answers a QEvent::ToolTip with the text `textAt(pos)` gives for the hovered point (none: hide).
// Returns false for other events, so a widget's event() can fall through to QWidget::event().
template <class TextAt> bool answerToolTip(QWidget* widget, QEvent* event, TextAt textAt)
{
    if (event->type() != QEvent::ToolTip)
        return false;
    auto* help = static_cast<QHelpEvent*>(event);
    const QString text = textAt(help->pos());
    if (text.isEmpty()) {
        QToolTip::hideText();
        event->ignore();
    } else {
        QToolTip::showText(help->globalPos(), text, widget);
    }
    return true;
}

} // namespace parallax::ui
