// SPDX-License-Identifier: Apache-2.0
#include "ui/ConcurrencyChart.h"

#include "core/inference/InferenceEngine.h"
#include "ui/ChartStyle.h"
#include "ui/Theme.h"

#include <QCategoryAxis>
#include <QChart>
#include <QEvent>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <algorithm>
#include <cmath>

namespace parallax::ui {

namespace {
QString tokensLabel(int tokens)
{
    if (tokens >= 1024 && tokens % 1024 == 0)
        return QString::number(tokens / 1024) + QStringLiteral("K");
    return QString::number(tokens);
}
} // namespace

ConcurrencyChart::ConcurrencyChart(QWidget* parent)
    : QChartView(new QChart, parent) // owned by the view; setChart() would leak the view's default chart
{
    setRenderHint(QPainter::Antialiasing);
    QChart* chart = this->chart();
    chart->legend()->setAlignment(Qt::AlignTop);
    chart->setMargins(QMargins(4, 0, 20, 0)); // room for the last tick label
    restyle();
}

std::vector<int> ConcurrencyChart::sweep(int contextLen)
{
    std::vector<int> out;
    const int top = std::max(128 * 1024, 2 * contextLen);
    for (int c = 512; c <= top; c *= 2)
        out.push_back(c);
    if (contextLen > 0 && std::find(out.begin(), out.end(), contextLen) == out.end())
        out.insert(std::upper_bound(out.begin(), out.end(), contextLen), contextLen);
    return out;
}

std::vector<ConcurrencyChart::Point> ConcurrencyChart::plotted() const
{
    std::vector<Point> out;
    if (!m_line)
        return out;
    for (const QPointF& p : m_line->points())
        out.push_back({ static_cast<int>(std::lround(std::exp2(p.x()))), static_cast<int>(std::lround(p.y())) });
    return out;
}

void ConcurrencyChart::setEvaluation(const EvaluationPtr& evaluation)
{
    QChart* c = chart();
    c->removeAllSeries();
    for (QAbstractAxis* axis : c->axes()) {
        c->removeAxis(axis); // gives the axis back to us
        delete axis;
    }
    m_line = nullptr;
    m_points.clear();
    m_marked = {};
    const auto& inference = evaluation->report.inference;
    if (!inference) {
        c->setTitle(tr("No serving estimate"));
        return;
    }
    const core::Scenario& s = evaluation->scenario;
    const int context = inference->contextLen;
    int most = 1;
    for (int len : sweep(context)) {
        const int n = core::maxConcurrencyAtContext(s, len);
        m_points.push_back({ len, n });
        most = std::max(most, n);
        if (len == context)
            m_marked = { len, n };
    }

    // x is log2(tokens) on a linear axis so that the ticks can read "512, 1K ... 128K".
    m_line = new QLineSeries;
    m_line->setName(tr("max concurrency"));
    QPen pen(theme::groupColor(0).darker(140));
    pen.setWidthF(2.5);
    m_line->setPen(pen);
    m_line->setPointsVisible(true);
    for (const Point& p : m_points) {
        if (p.maxConcurrency >= 1)
            m_line->append(std::log2(static_cast<double>(p.contextLen)), p.maxConcurrency);
    }
    c->addSeries(m_line);

    const double yMin = 1, yMax = std::pow(10.0, std::ceil(std::log10(most * 1.2)));
    auto* here = new QLineSeries;
    here->setName(
        tr("context_len %1 tokens: %2 requests").arg(groupedCount(context), groupedCount(m_marked.maxConcurrency)));
    QPen herePen(theme::problemColor());
    herePen.setStyle(Qt::DashLine);
    herePen.setWidthF(1.5);
    here->setPen(herePen);
    const double x = std::log2(static_cast<double>(std::max(1, context)));
    here->append(x, yMin);
    here->append(x, yMax);
    c->addSeries(here);
    QScatterSeries* dot = nullptr;
    if (m_marked.maxConcurrency >= 1) {
        dot = new QScatterSeries;
        dot->setMarkerSize(11);
        dot->setColor(theme::problemColor());
        dot->setBorderColor(palette().color(QPalette::Base));
        dot->append(x, m_marked.maxConcurrency);
        c->addSeries(dot);
        c->legend()->markers(dot).front()->setVisible(false);
    }

    auto* xAxis = new QCategoryAxis;
    xAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    const double x0 = std::log2(512.0), x1 = std::log2(static_cast<double>(m_points.back().contextLen));
    for (int len = 512; len <= m_points.back().contextLen; len *= 2) {
        // Every other tick label when the axis is long, so that they do not collide in a narrow tab.
        const int step = x1 - x0 > 10 ? 2 : 1;
        if (static_cast<int>(std::lround(std::log2(len) - x0)) % step == 0)
            xAxis->append(tokensLabel(len), std::log2(static_cast<double>(len)));
    }
    xAxis->setRange(x0, x1);
    xAxis->setTitleText(tr("context length per request (tokens)"));
    auto* yAxis = new QLogValueAxis;
    yAxis->setBase(10);
    yAxis->setRange(yMin, yMax);
    yAxis->setLabelFormat(QStringLiteral("%g"));
    yAxis->setMinorTickCount(8);
    yAxis->setTitleText(tr("requests at once"));
    c->addAxis(xAxis, Qt::AlignBottom);
    c->addAxis(yAxis, Qt::AlignLeft);
    for (QAbstractSeries* series : c->series()) {
        series->attachAxis(xAxis);
        series->attachAxis(yAxis);
    }
    QString layout = tr("TP%1").arg(inference->tp);
    if (inference->pp > 1)
        layout += tr(" PP%1").arg(inference->pp);
    if (inference->dp > 1)
        layout += inference->dpAttention ? tr(" DP-attention %1").arg(inference->dp) : tr(" DP%1").arg(inference->dp);
    if (inference->ep > 1)
        layout += tr(" EP%1").arg(inference->ep);
    c->setTitle(tr("Requests the KV cache holds at once · %1 · %2 weights, %3 KV")
                    .arg(layout, QString::fromStdString(inference->weightDtype).toUpper(),
                        QString::fromStdString(inference->kvDtype).toUpper()));
    if (m_line->count() == 0)
        c->setTitle(tr("Not one request fits at any context length from 512 to %1 tokens (%2)")
                        .arg(tokensLabel(m_points.back().contextLen), layout));
    restyle();
}

void ConcurrencyChart::restyle()
{
    styleChart(chart(), palette());
}

void ConcurrencyChart::changeEvent(QEvent* event)
{
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        restyle();
}

} // namespace parallax::ui
