// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/Evaluation.h"

#include <QWidget>

class QTableView;

namespace parallax::ui {

class ConcurrencyChart;
class ServingMemoryChart;
class ServingMemoryModel;

// The Memory tab's body in inference mode: one GPU's HBM as a stacked bar, the same numbers as a
// table (which is the bar's legend), and the maximum concurrency against context length.
class ServingMemoryView : public QWidget {
public:
    explicit ServingMemoryView(QWidget* parent = nullptr);
    void setEvaluation(const EvaluationPtr& evaluation);
    ServingMemoryModel* model() const { return m_model; }
    ServingMemoryChart* memoryChart() const { return m_memoryChart; }
    ConcurrencyChart* concurrencyChart() const { return m_concurrency; }

private:
    ServingMemoryChart* m_memoryChart;
    ServingMemoryModel* m_model;
    QTableView* m_table;
    ConcurrencyChart* m_concurrency;
};

} // namespace parallax::ui
