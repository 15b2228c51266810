#pragma once

#include "ui/Evaluation.h"

#include <QWidget>

class QLabel;
class QTableView;

namespace parallax::ui {

class ScheduleRankModel;
class StageMemoryModel;

// The Memory tab: per-stage memory per GPU as a table (the stacked bar chart comes next and maps
// the same model).
class MemoryTab : public QWidget {
public:
    explicit MemoryTab(QWidget* parent = nullptr);
    void setEvaluation(const EvaluationPtr& evaluation);
    StageMemoryModel* model() const { return m_model; }

private:
    QLabel* m_summary;
    QTableView* m_table;
    StageMemoryModel* m_model;
};

// The Schedule tab: makespan, bubble and per-rank numbers of the simulated pipeline (the animated
// Gantt comes next).
class ScheduleTab : public QWidget {
public:
    explicit ScheduleTab(QWidget* parent = nullptr);
    void setEvaluation(const EvaluationPtr& evaluation);
    ScheduleRankModel* model() const { return m_model; }

private:
    QLabel* m_summary;
    QTableView* m_table;
    ScheduleRankModel* m_model;
};

// The Recommendations tab, until the recommender lands.
class RecommendationsTab : public QWidget {
public:
    explicit RecommendationsTab(QWidget* parent = nullptr);
};

} // namespace parallax::ui
