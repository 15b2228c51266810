// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/Evaluation.h"

#include <QWidget>

class QLabel;
class QStackedWidget;
class QTableView;

namespace parallax::ui {

class MemoryChartWidget;
class ServingMemoryView;
class StageMemoryModel;

// The Memory tab: the stacked bar chart per pipeline stage with the HBM line, and below it the
// same numbers as a table (StageMemoryModel) to read them exactly. In inference mode it shows one
// serving GPU's HBM and the concurrency against context length instead (ServingMemoryView).
class MemoryTab : public QWidget {
public:
    explicit MemoryTab(QWidget* parent = nullptr);
    void setEvaluation(const EvaluationPtr& evaluation);
    StageMemoryModel* model() const { return m_model; }
    MemoryChartWidget* chart() const { return m_chart; }
    ServingMemoryView* servingView() const { return m_serving; }
    bool showsServing() const; // inference mode's view is the one on screen
    QString summaryText() const; // the summary line, plain text (tests)

private:
    QLabel* m_summary;
    MemoryChartWidget* m_chart;
    QTableView* m_table;
    StageMemoryModel* m_model;
    QStackedWidget* m_body;
    ServingMemoryView* m_serving;
};

} // namespace parallax::ui
