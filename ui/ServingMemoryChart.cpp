// SPDX-License-Identifier: Apache-2.0
#include "ui/ServingMemoryChart.h"

#include "ui/ChartStyle.h"
#include "ui/Format.h"
#include "ui/ServingMemoryModel.h"
#include "ui/Theme.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QEvent>
#include <QHorizontalStackedBarSeries>
#include <QLegend>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace parallax::ui {

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
}

ServingMemoryChart::ServingMemoryChart(QWidget* parent)
    : QChartView(new QChart, parent) // owned by the view; setChart() would leak the view's default chart
{
    setRenderHint(QPainter::Antialiasing);
    QChart* chart = this->chart();
    chart->legend()->hide(); // the table below is the legend: its rows carry the segments' colors
    chart->setMargins(QMargins(4, 0, 16, 0));
    restyle();
}

std::vector<std::pair<QString, double>> ServingMemoryChart::segments() const
{
    std::vector<std::pair<QString, double>> out;
    for (const QBarSet* set : m_sets)
        out.emplace_back(set->label(), set->at(0));
    return out;
}

void ServingMemoryChart::setEvaluation(const EvaluationPtr& evaluation)
{
    QChart* c = chart();
    c->removeAllSeries();
    for (QAbstractAxis* axis : c->axes()) {
        c->removeAxis(axis); // gives the axis back to us
        delete axis;
    }
    m_sets.clear();
    m_hbmGib = 0;
    const auto& inference = evaluation->report.inference;
    if (!inference) {
        c->setTitle(tr("No serving memory estimate"));
        return;
    }
    const core::ServingMemory& m = inference->memory;
    m_hbmGib = m.hbmBytes / kGiB;
    // Stacking order: what the engine loads, the KV pool that is left, then the reserve (sums to HBM when it fits).
    const std::pair<int, double> parts[] = {
        { ServingMemoryModel::Weights, m.weightsBytes },
        { ServingMemoryModel::Workspace, m.workspaceBytes },
        { ServingMemoryModel::CudaGraphs, m.cudaGraphBytes },
        { ServingMemoryModel::Runtime, m.runtimeBytes },
        { ServingMemoryModel::KvCache, std::max(0.0, m.kvCacheBytes) },
        { ServingMemoryModel::Reserve, m.reserveBytes },
    };
    auto* series = new QHorizontalStackedBarSeries;
    for (const auto& [row, bytes] : parts) {
        auto* set = new QBarSet(ServingMemoryModel::rowName(row) + QStringLiteral(" ") + format::bytes(bytes));
        *set << bytes / kGiB;
        set->setColor(ServingMemoryModel::rowColor(row, palette()));
        set->setBorderColor(palette().color(QPalette::Base));
        series->append(set);
        m_sets.push_back(set);
    }
    series->setBarWidth(0.6);
    c->addSeries(series);

    double total = 0;
    for (const auto& p : parts)
        total += p.second;
    auto* hbmLine = new QLineSeries;
    hbmLine->setName(tr("HBM %1").arg(format::bytes(m.hbmBytes)));
    hbmLine->append(m_hbmGib, -0.5);
    hbmLine->append(m_hbmGib, 0.5);
    QPen pen(inference->verdict == core::ServingVerdict::DoesNotFit ? theme::problemColor()
                                                                    : palette().color(QPalette::WindowText));
    pen.setWidthF(2);
    pen.setStyle(Qt::DashLine);
    hbmLine->setPen(pen);
    c->addSeries(hbmLine);

    auto* categories = new QBarCategoryAxis;
    categories->append(tr("GPU"));
    auto* bytesAxis = new QValueAxis;
    const double top = std::max(m_hbmGib, total / kGiB) * 1.04;
    bytesAxis->setRange(0, top);
    bytesAxis->setLabelFormat(QStringLiteral("%.0f"));
    bytesAxis->setTickCount(std::clamp(static_cast<int>(std::ceil(top / 20.0)) + 1, 3, 9));
    bytesAxis->applyNiceNumbers(); // ticks at round GiB
    bytesAxis->setTitleText(tr("memory per GPU (GiB)"));
    c->addAxis(bytesAxis, Qt::AlignBottom);
    c->addAxis(categories, Qt::AlignLeft);
    series->attachAxis(bytesAxis);
    series->attachAxis(categories);
    hbmLine->attachAxis(bytesAxis);
    hbmLine->attachAxis(categories);
    categories->setVisible(false);
    c->setTitle({}); // the Memory tab's summary above says what the bar is and its verdict
    restyle();
}

void ServingMemoryChart::restyle()
{
    styleChart(chart(), palette());
    for (QBarSet* set : m_sets)
        set->setBorderColor(palette().color(QPalette::Base));
}

void ServingMemoryChart::changeEvent(QEvent* event)
{
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        restyle();
}

} // namespace parallax::ui
