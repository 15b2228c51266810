// SPDX-License-Identifier: Apache-2.0
#include "ui/MemoryChartWidget.h"

#include "ui/render/RenderStyle.h"

#include "ui/ToolTipEvent.h"
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace parallax::ui {

MemoryChartWidget::MemoryChartWidget(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void MemoryChartWidget::setEvaluation(const EvaluationPtr& evaluation)
{
    const core::Report& r = evaluation->report;
    if (r.stages.empty()) {
        m_renderer.reset();
        m_emptyText = evaluation->generation == 0 ? tr("Computing…") : tr("No memory estimate for this configuration.");
    } else {
        m_renderer = render::MemoryChartRenderer::fromReport(r);
    }
    m_hovered = {};
    relayout();
    update();
}

void MemoryChartWidget::relayout()
{
    m_layout = m_renderer ? m_renderer->layout(QRectF(rect()).adjusted(8, 8, -8, -4))
                          : render::MemoryChartRenderer::Layout {};
}

void MemoryChartWidget::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    relayout();
}

void MemoryChartWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    if (!m_renderer) {
        p.fillRect(rect(), palette().color(QPalette::Base));
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, m_emptyText);
        return;
    }
    // The renderer paints a white page (as in the exports) inside an 8 px margin.
    p.fillRect(rect(), render::style::background());
    m_renderer->paint(p, m_layout, m_hovered);
}

void MemoryChartWidget::mouseMoveEvent(QMouseEvent* event)
{
    if (!m_renderer)
        return;
    const auto hit = m_renderer->hitTest(m_layout, event->position());
    if (hit.bar != m_hovered.bar || hit.component != m_hovered.component) {
        m_hovered = hit;
        update();
    }
}

void MemoryChartWidget::leaveEvent(QEvent*)
{
    if (m_hovered.valid()) {
        m_hovered = {};
        update();
    }
}

QString MemoryChartWidget::toolTipAt(QPointF point) const
{
    return m_renderer ? m_renderer->toolTip(m_layout, point) : QString();
}

bool MemoryChartWidget::event(QEvent* event)
{
    if (answerToolTip(this, event, [this](QPointF p) { return toolTipAt(p); }))
        return true;
    return QWidget::event(event);
}

} // namespace parallax::ui
