// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/Evaluation.h"

#include <QWidget>

class QLabel;
class QTableView;

namespace parallax::ui {

class MemoryChartWidget;
class StageMemoryModel;

// The Memory tab: the stacked bar chart per pipeline stage with the HBM line, and below it the
// same numbers as a table (StageMemoryModel) to read them exactly.
class MemoryTab : public QWidget {
public:
    explicit MemoryTab(QWidget* parent = nullptr);
    void setEvaluation(const EvaluationPtr& evaluation);
    StageMemoryModel* model() const { return m_model; }
    MemoryChartWidget* chart() const { return m_chart; }

private:
    QLabel* m_summary;
    MemoryChartWidget* m_chart;
    QTableView* m_table;
    StageMemoryModel* m_model;
};

} // namespace parallax::ui
