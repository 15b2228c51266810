#pragma once

#include <QMainWindow>
#include <QMessageBox>
#include <functional>

class QLabel;
class QMenu;
class QTabWidget;

namespace parallax::ui {

class ConfigPanel;
class MemoryTab;
class RankMapView;
class ScenarioDocument;
class ScheduleTab;
class TopologyEditor;

// The main window: topology dock, configuration dock, the Rank map / Memory / Schedule /
// Recommendations tabs and a status bar with the headline numbers. Dialogs that would block a
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
    QTabWidget* tabs() const { return m_tabs; }
    QString statusText() const; // the status bar's numbers, for tests

    // File operations; each returns false (and reports why) without touching the current work.
    bool openFile(const QString& path);
    bool openPreset(const QString& id);
    void openDefault();
    bool save(); // Save As when the document has no file yet
    bool saveToFile(const QString& path);
    bool exportRankMap(const QString& path); // .png or .svg
    bool maybeSave(); // true when it is fine to discard the document now

    void setUnsavedPrompt(UnsavedPrompt prompt) { m_unsavedPrompt = std::move(prompt); }
    void setErrorReporter(ErrorReporter reporter) { m_errorReporter = std::move(reporter); }
    void setDarkPalette(bool dark);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createMenus();
    void updateStatus();
    void updateTitle();
    void addRecentFile(const QString& path);
    void fillRecentMenu();
    bool saveAsDialog();
    void exportDialog();
    void showLesson();
    void reportError(const QString& title, const QString& text);

    ScenarioDocument* m_document;
    TopologyEditor* m_topology;
    ConfigPanel* m_config;
    QTabWidget* m_tabs;
    RankMapView* m_rankMap;
    MemoryTab* m_memory;
    ScheduleTab* m_schedule;
    QMenu* m_recentMenu = nullptr;
    QAction* m_lessonAction = nullptr;
    QAction* m_darkAction = nullptr;
    QLabel* m_stepLabel;
    QLabel* m_mfuLabel;
    QLabel* m_memoryLabel;
    QLabel* m_findingsLabel;
    QLabel* m_busyLabel;
    UnsavedPrompt m_unsavedPrompt;
    ErrorReporter m_errorReporter;
};

} // namespace parallax::ui
