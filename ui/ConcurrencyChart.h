// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/Evaluation.h"

#include <QChartView>
#include <vector>

class QLineSeries;
class QScatterSeries;

namespace parallax::ui {

// Maximum concurrency (requests of that many tokens the KV cache holds at once, all replicas)
// against context length for the scenario's serving layout, from core::maxConcurrencyAtContext at
// doubling context lengths and at the scenario's own, which is marked. Log-log: capacity / context
// is a straight line; a context at which not one request fits has no point.
class ConcurrencyChart : public QChartView {
public:
    struct Point {
        int contextLen = 0;
        int maxConcurrency = 0;
    };

    explicit ConcurrencyChart(QWidget* parent = nullptr);
    void setEvaluation(const EvaluationPtr& evaluation);
    // What the engine returned at each context length swept (zeros included), and what the line
    // series plots (contexts where at least one request fits).
    const std::vector<Point>& points() const { return m_points; }
    std::vector<Point> plotted() const;
    Point marked() const { return m_marked; }
    void restyle();

    QSize sizeHint() const override { return { 600, 300 }; }
    QSize minimumSizeHint() const override { return { 300, 200 }; }

    // Context lengths swept for a scenario whose context is `contextLen`: 512 doubling to at least
    // 128K and twice the context, plus the context itself.
    static std::vector<int> sweep(int contextLen);

protected:
    void changeEvent(QEvent* event) override;

private:
    std::vector<Point> m_points;
    Point m_marked;
    QLineSeries* m_line = nullptr;
};

} // namespace parallax::ui
