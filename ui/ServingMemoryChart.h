// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/Evaluation.h"

#include <QChartView>
#include <vector>

class QBarSet;
class QLineSeries;

namespace parallax::ui {

// One serving GPU's HBM as a horizontal stacked bar (Qt Charts): weights, workspace, CUDA graphs,
// runtime buffers, the KV cache pool and the reserve, against a line at HBM; a bar past the line
// does not fit. Values in GiB (binary, as HBM is sized).
class ServingMemoryChart : public QChartView {
public:
    explicit ServingMemoryChart(QWidget* parent = nullptr);
    void setEvaluation(const EvaluationPtr& evaluation);
    // The segments as drawn: (name, GiB) in stacking order; empty without an inference report.
    std::vector<std::pair<QString, double>> segments() const;
    double hbmGib() const { return m_hbmGib; }
    void restyle();

    QSize sizeHint() const override { return { 600, 140 }; }
    QSize minimumSizeHint() const override { return { 300, 130 }; }

protected:
    void changeEvent(QEvent* event) override;

private:
    std::vector<QBarSet*> m_sets;
    double m_hbmGib = 0;
};

} // namespace parallax::ui
