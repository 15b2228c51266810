// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/Evaluation.h"
#include "ui/ScheduleComparison.h"

#include <QThreadPool>
#include <QWidget>
#include <atomic>
#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QSplitter;
class QTableView;
class QToolButton;

namespace parallax::render {
class GanttModel;
}

namespace parallax::ui {

class GanttView;
class ScheduleRankModel;

// The Schedule tab: the animated Gantt of the simulated pipeline (play, pause, step, speed, zoom),
// compare mode (the scenario under two to four schedules, evaluated off the UI thread and stacked
// on one time axis with their bubbles and peak memory), and the per-rank table.
class ScheduleTab : public QWidget {
public:
    explicit ScheduleTab(QWidget* parent = nullptr);
    ~ScheduleTab() override;

    void setEvaluation(const EvaluationPtr& evaluation);
    ScheduleRankModel* model() const { return m_model; }
    GanttView* gantt() const { return m_gantt; }

    // Compare mode (also the test entry points). `kinds` are checked in comparableSchedules() order.
    void setCompareMode(bool on);
    bool compareMode() const;
    void setComparedSchedules(const std::vector<core::ScheduleKind>& kinds);
    std::vector<core::ScheduleKind> comparedSchedules() const;
    bool comparisonPending() const { return m_comparePending; }
    // The schedules of the comparison on screen (valid or not), in order.
    const std::vector<ComparedSchedule>& comparison() const { return m_comparison; }
    QString compareStatus() const;

    // What the chart shows now, for the exports (one renderer: the picture is the screen's).
    std::shared_ptr<const render::GanttModel> ganttModel() const;
    bool showsComparison() const;

protected:
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void fitSplitter();
    void showSingle();
    void startComparison();
    void comparisonArrived(std::uint64_t generation, std::vector<ComparedSchedule> result,
        std::shared_ptr<const render::GanttModel> model);
    void updatePlaybackControls();
    void updateCompareChecks();

    EvaluationPtr m_evaluation;
    QLabel* m_summary;
    GanttView* m_gantt;
    QToolButton* m_playButton;
    QToolButton* m_stepBackButton;
    QToolButton* m_stepButton;
    QToolButton* m_resetButton;
    QToolButton* m_fitButton;
    QComboBox* m_speedCombo;
    QLabel* m_timeLabel;
    QCheckBox* m_compareCheck;
    std::vector<QCheckBox*> m_scheduleChecks; // comparableSchedules() order
    QLabel* m_compareStatus;
    QTableView* m_table;
    QSplitter* m_splitter;
    bool m_splitterMoved = false; // by the user: then the tab keeps their sizes
    ScheduleRankModel* m_model;
    std::vector<ComparedSchedule> m_comparison;
    std::uint64_t m_compareGeneration = 0;
    std::shared_ptr<std::atomic<std::uint64_t>> m_latestRequest = std::make_shared<std::atomic<std::uint64_t>>(0);
    bool m_comparePending = false;
    QThreadPool m_pool; // last: waits for a running comparison
};

} // namespace parallax::ui
