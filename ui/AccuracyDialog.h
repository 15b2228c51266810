// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/validation/ValidationSuite.h"

#include <QDialog>
#include <QThreadPool>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

class QLabel;
class QPushButton;
class QTableWidget;
class QTabWidget;
class QTextBrowser;

namespace parallax::ui {

// Help > Accuracy on Published Runs: the engine against the published training runs compiled into the
// app (data/published_runs_train.json), as `parallax-cli validate` prints it: the error per family (GPU x
// dense / MoE) with the design's own family marked (its step-time range in the status bar comes from it),
// every run with what was published and what the engine gives, and the runs not modelled with their
// reasons. A run opens as a scenario. The runs are evaluated off the UI thread when the dialog opens.
class AccuracyDialog : public QDialog {
public:
    using OpenScenario = std::function<void(const core::Scenario&)>;

    // `designFamily`: the report's step-time family ("h100-sxm dense"), marked in the family table.
    AccuracyDialog(const QString& designFamily, OpenScenario open, QWidget* parent = nullptr);

    // The published runs compiled into the app, or nullopt with `error` when the resource is unreadable.
    static std::optional<nlohmann::json> publishedRuns(QString& error);

    bool finished() const { return m_summary != nullptr; } // the runs are evaluated and shown
    QTableWidget* familyTable() const { return m_families; }
    QTableWidget* runTable() const { return m_runs; }
    QString headline() const; // the summary sentence above the tables
    void setDesignFamily(const QString& family);
    // Shows only the runs of `family` ("h100-sxm x dense"), or all of them for an empty string.
    void filterRuns(const QString& family);
    void openSelectedRun();

private:
    void showSummary(std::shared_ptr<const core::ValidationSummary> summary);
    void fillFamilies();
    void fillRuns();
    void fillSkipped();

    QString m_designFamily; // "h100-sxm x dense"
    OpenScenario m_open;
    std::shared_ptr<const core::ValidationSummary> m_summary;
    QLabel* m_headline;
    QTableWidget* m_families;
    QTabWidget* m_tabs;
    QTableWidget* m_runs;
    QTextBrowser* m_skipped;
    QPushButton* m_openButton;
    QThreadPool m_pool; // last: its destruction waits for the evaluation
};

} // namespace parallax::ui
