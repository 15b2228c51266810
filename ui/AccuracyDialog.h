// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/validation/ServingValidation.h"
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

// Help > Accuracy on Published Runs: the engine against the published training runs and serving figures
// compiled into the app (data/published_runs_train.json, data/published_serving.json), as `parallax-cli
// validate [--serving]` prints them: the error per family (GPU x dense / MoE) with the design's own family
// marked (its step-time range in the status bar comes from it), every run and serving figure with what was
// published and what the engine gives, and the records not modelled with their reasons. A training run opens
// as a scenario. The records are evaluated off the UI thread when the dialog opens. A "Your runs" tab does
// the same for a runs file of the user's own (`parallax-cli check-log --record`), apart from the published runs.
class AccuracyDialog : public QDialog {
public:
    using OpenScenario = std::function<void(const core::Scenario&)>;

    // `designFamily`: the report's step-time family ("h100-sxm x dense"), marked in the family table.
    AccuracyDialog(const QString& designFamily, OpenScenario open, QWidget* parent = nullptr);

    // A file of published runs compiled into the app ("published_runs_train.json", "published_serving.json"), or
    // nullopt with `error` when the resource is unreadable.
    static std::optional<nlohmann::json> publishedRuns(const QString& fileName, QString& error);

    bool finished() const { return m_summary != nullptr; } // the runs are evaluated and shown
    QTableWidget* familyTable() const { return m_families; }
    QTableWidget* runTable() const { return m_runs; }
    QTableWidget* servingTable() const { return m_servingTable; }
    QTableWidget* ownRunTable() const { return m_ownRuns; }
    QString ownHeadline() const; // the summary sentence of the "Your runs" tab
    bool ownRunsShown() const { return m_own != nullptr; }
    // Your Runs File…: evaluates the runs file (a JSON array of the published-runs schema, as check-log --record
    // writes it) off the UI thread and shows it in the "Your runs" tab; false (said in that tab) when unreadable.
    bool loadOwnRuns(const QString& path);
    QString headline() const; // the summary sentence above the tables
    void setDesignFamily(const QString& family);
    // Shows only the runs of `family` ("h100-sxm x dense"), or all of them for an empty string.
    void filterRuns(const QString& family);
    void openSelectedRun();

private:
    struct Summaries {
        std::shared_ptr<const core::ValidationSummary> training;
        std::shared_ptr<const core::ServingValidationSummary> serving; // null when its file is unreadable
    };
    void showSummary(Summaries summaries);
    void fillServing();
    void fillFamilies();
    void fillRuns();
    void fillRunTable(QTableWidget* table, const core::ValidationSummary& summary);
    void showOwnRuns(const QString& path, std::shared_ptr<const core::ValidationSummary> own);
    void fillSkipped();

    QString m_designFamily; // "h100-sxm x dense"
    OpenScenario m_open;
    std::shared_ptr<const core::ValidationSummary> m_summary;
    std::shared_ptr<const core::ServingValidationSummary> m_serving;
    QLabel* m_headline;
    QTableWidget* m_families;
    QTabWidget* m_tabs;
    QTableWidget* m_runs;
    QTableWidget* m_servingTable;
    QTextBrowser* m_skipped;
    QPushButton* m_openButton;
    std::shared_ptr<const core::ValidationSummary> m_own; // the user's runs file, once evaluated
    QWidget* m_ownTab;
    QLabel* m_ownHeadline;
    QTableWidget* m_ownRuns;
    QThreadPool m_pool; // last: its destruction waits for the evaluation
};

} // namespace parallax::ui
