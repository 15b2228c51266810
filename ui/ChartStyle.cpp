// SPDX-License-Identifier: Apache-2.0
#include "ui/ChartStyle.h"

#include <QAbstractAxis>
#include <QChart>
#include <QLegend>
#include <QLocale>
#include <QPalette>
#include <cmath>

namespace parallax::ui {

void styleChart(QChart* chart, const QPalette& palette)
{
    const QColor text = palette.color(QPalette::WindowText);
    const QColor grid = palette.color(QPalette::Mid);
    chart->setBackgroundBrush(palette.color(QPalette::Base));
    chart->setBackgroundRoundness(0);
    chart->setPlotAreaBackgroundVisible(false);
    chart->setTitleBrush(text);
    chart->legend()->setLabelColor(text);
    for (QAbstractAxis* axis : chart->axes()) {
        axis->setLabelsColor(text);
        axis->setTitleBrush(text);
        axis->setLinePenColor(grid);
        axis->setGridLineColor(grid);
        axis->setMinorGridLineColor(palette.color(QPalette::Midlight));
    }
}

QString groupedCount(double n)
{
    QLocale locale(QLocale::English);
    locale.setNumberOptions(QLocale::DefaultNumberOptions);
    return locale.toString(static_cast<qlonglong>(std::llround(n)));
}

} // namespace parallax::ui
