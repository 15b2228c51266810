// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/Evaluation.h"

#include <QStringList>
#include <QWidget>
#include <memory>

class QLabel;
class QPushButton;
class QTableView;

namespace parallax::render {
class GanttModel;
}

namespace parallax::ui {

class DesignComparisonModel;
class GanttView;

// Compare two designs: pin the current one as A, edit the panels into B (another layout, another
// GPU, another model), and see both side by side: the step time and its parts and every stage's
// memory (DesignComparisonModel, differences highlighted), and both pipeline schedules on one
// time axis. Exports the comparison (Markdown table + Gantt picture) for a review.
class DesignCompareTab : public QWidget {
public:
    explicit DesignCompareTab(QWidget* parent = nullptr);

    void setEvaluation(EvaluationPtr current); // B follows the current design
    void pinCurrent(); // A := the current design
    void clearPin();
    bool hasPin() const { return static_cast<bool>(m_pinned); }

    DesignComparisonModel* model() const { return m_model; }
    GanttView* gantt() const { return m_gantt; }
    std::shared_ptr<const render::GanttModel> ganttModel() const { return m_ganttModel; }
    QString verdictText() const;

    // Writes <base>-comparison.md and <base>-comparison-gantt.<svg|png|pdf> into `folder`; the
    // paths written, or false and `error`.
    bool exportComparison(const QString& folder, const QString& baseName, QStringList* written, QString* error,
        const QString& pictureExtension = QStringLiteral("svg")) const;

private:
    void refresh();
    void exportDialog();

    EvaluationPtr m_current;
    EvaluationPtr m_pinned;
    DesignComparisonModel* m_model;
    std::shared_ptr<const render::GanttModel> m_ganttModel;
    QPushButton* m_pin;
    QPushButton* m_export;
    QLabel* m_verdict;
    QTableView* m_table;
    GanttView* m_gantt;
};

} // namespace parallax::ui
