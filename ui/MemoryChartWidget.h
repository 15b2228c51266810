// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/Evaluation.h"
#include "ui/render/MemoryChartRenderer.h"

#include <QWidget>
#include <optional>

namespace parallax::ui {

// The memory chart on screen: stacked bars per pipeline stage against the HBM line, painted by
// render::MemoryChartRenderer (the same code as the exports); hover a segment for its bytes.
// Q_OBJECT: findChild<MemoryChartWidget*> matches by meta-object (without it, any QWidget child).
class MemoryChartWidget : public QWidget {
    Q_OBJECT
public:
    explicit MemoryChartWidget(QWidget* parent = nullptr);

    void setEvaluation(const EvaluationPtr& evaluation);
    // Null until an evaluation with per-stage memory arrived.
    const render::MemoryChartRenderer* renderer() const { return m_renderer ? &*m_renderer : nullptr; }
    const render::MemoryChartRenderer::Layout& chartLayout() const { return m_layout; }
    render::MemoryChartRenderer::Hit hovered() const { return m_hovered; }
    QString toolTipAt(QPointF point) const;

    QSize sizeHint() const override { return { 700, 360 }; }
    QSize minimumSizeHint() const override { return { 300, 200 }; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    bool event(QEvent* event) override;

private:
    void relayout();

    std::optional<render::MemoryChartRenderer> m_renderer;
    render::MemoryChartRenderer::Layout m_layout;
    render::MemoryChartRenderer::Hit m_hovered;
    QString m_emptyText;
};

} // namespace parallax::ui
