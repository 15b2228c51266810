// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QMainWindow>
#include <QMessageBox>
#include <QPointer>
#include <functional>
#include <optional>

class QLabel;
class QMenu;
class QTabWidget;

namespace parallax::core {
struct Scenario;
}

namespace parallax::ui {

class AccuracyDialog;
class DecisionMatrixDialog;
class ConfigPanel;
class DesignCompareTab;
class MemoryTab;
class ProbeTab;
class RankMapView;
class RecommendationsTab;
class ScenarioDocument;
class ScheduleTab;
class TopologyEditor;
struct ExportRequest;
struct ExportSources;

// The main window: topology dock, configuration dock, the Rank map / Memory / Schedule /
// Recommendations / Probe tabs and a status bar with the headline numbers. Dialogs that would block a
// test (unsaved-changes prompt, error box) go through replaceable functions.
class MainWindow : public QMainWindow {
public:
    using UnsavedPrompt = std::function<QMessageBox::StandardButton(const QString& documentName)>;
    using ErrorReporter = std::function<void(const QString& title, const QString& text)>;

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    ScenarioDocument* document() const { return m_document; }
    TopologyEditor* topologyEditor() const { return m_topology; }
    ConfigPanel* configPanel() const { return m_config; }
    RankMapView* rankMapView() const { return m_rankMap; }
    MemoryTab* memoryTab() const { return m_memory; }
    ScheduleTab* scheduleTab() const { return m_schedule; }
    RecommendationsTab* recommendationsTab() const { return m_recommendations; }
    DesignCompareTab* compareTab() const { return m_compare; }
    ProbeTab* probeTab() const { return m_probe; }
    // Tab names for --tab and the View menu: "rankmap", "memory", "schedule", "recommendations", "probe".
    static QStringList tabNames();
    QTabWidget* tabs() const { return m_tabs; }
    QString statusText() const; // the status bar's numbers, for tests

    // File operations; each returns false (and reports why) without touching the current work.
    bool openFile(const QString& path);
    bool openPreset(const QString& id);
    void openDefault();
    bool save(); // Save As when the document has no file yet
    bool saveToFile(const QString& path);
    bool exportRankMap(const QString& path); // .svg, .png or .pdf
    // File > Export without the dialog: writes what `request` asks for; errors go to the error reporter.
    bool exportFiles(const ExportRequest& request);
    ExportSources exportSources() const; // what is on screen now
    // File > Export Launch Configuration without the file chooser: a target of launch::launchText.
    bool exportLaunch(const QString& target, const QString& path);
    // File > Import Model: a Hugging Face config.json replaces the model (one undo step).
    bool importModelFile(const QString& path);
    // File > Import Launch Command: a Megatron-LM command line or NeMo overrides become the scenario
    // (one undo step); the GPU and fabric stay unless the text carries Parallax's marker.
    bool importLaunchText(const QString& text);
    bool importLaunchFile(const QString& path);
    // File > Check Training Log: the Megatron-LM, NeMo or torchtitan log of a run of this design (its step times
    // after two logged steps, its memory reports) against the engine, as `parallax-cli check-log` says it; nullopt
    // (reported) when the file is unreadable, has no iteration or the design is rejected. With `runsPath` (File >
    // Record Training Log) the run is also added to that runs file, as check-log --record does.
    std::optional<QString> checkTrainingLog(const QString& path, const QString& runsPath = {});
    ExportRequest initialExportRequest() const; // the Export dialog's choices when it opens
    bool maybeSave(); // true when it is fine to discard the document now

    void setUnsavedPrompt(UnsavedPrompt prompt) { m_unsavedPrompt = std::move(prompt); }
    void setErrorReporter(ErrorReporter reporter) { m_errorReporter = std::move(reporter); }
    QString lastErrorDetails() const { return m_lastErrorDetails; } // of the last error reported
    void setDarkPalette(bool dark);
    // Help > Accuracy on Published Runs: the one non-modal dialog, opened or raised.
    AccuracyDialog* showAccuracy();
    // Tools > Decision Matrix (modeless, one at a time): a cell it opens replaces the document (asking to save).
    DecisionMatrixDialog* showDecisionMatrix();
    // A scenario a dialog opens (a published run, a matrix cell) replaces the document, asking to save first.
    void replaceDocument(const core::Scenario& s);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createMenus();
    void updateStatus();
    void updateTitle();
    static QString designLine(const core::Scenario& s); // "Llama 3 70B on 64 H100 SXM"
    void addRecentFile(const QString& path);
    void fillRecentMenu();
    bool saveAsDialog();
    void exportDialog();
    void showLesson();
    // `details` (raw parser text, ...) goes behind "Show Details", the text says it in a sentence.
    void reportError(const QString& title, const QString& text, const QString& details = {});

    ScenarioDocument* m_document;
    TopologyEditor* m_topology;
    ConfigPanel* m_config;
    QTabWidget* m_tabs;
    RankMapView* m_rankMap;
    MemoryTab* m_memory;
    ScheduleTab* m_schedule;
    RecommendationsTab* m_recommendations;
    DesignCompareTab* m_compare = nullptr;
    ProbeTab* m_probe;
    QPointer<AccuracyDialog> m_accuracy;
    QPointer<DecisionMatrixDialog> m_decisionMatrix;
    QMenu* m_recentMenu = nullptr;
    QAction* m_lessonAction = nullptr;
    QString m_titleDesign; // designLine() of the scenario as opened or saved
    QAction* m_darkAction = nullptr;
    QLabel* m_stepLabel;
    QLabel* m_mfuLabel;
    QLabel* m_memoryLabel;
    QLabel* m_findingsLabel;
    QLabel* m_calibrationLabel;
    QLabel* m_busyLabel;
    UnsavedPrompt m_unsavedPrompt;
    ErrorReporter m_errorReporter;
    QString m_lastErrorDetails;
};

} // namespace parallax::ui
