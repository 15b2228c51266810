// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/calibration/Calibration.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QWidget>
#include <memory>

class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableView;

namespace parallax::ui {

class CalibrationModel;
class ScenarioDocument;

// The Probe tab (docs/probe.md): runs parallax-probe as a subprocess with the scenario's GEMM
// shapes, shows its output as it measures, loads the calibration it writes (or one made
// elsewhere), shows the measurements beside the datasheet of the scenario's GPU, and, when
// "Apply calibration" is on, makes the engine use them. Without a GPU the probe exits 3 with one
// line, shown as is; the engine keeps its datasheet numbers.
class ProbeTab : public QWidget {
public:
    explicit ProbeTab(ScenarioDocument* document, QWidget* parent = nullptr);
    ~ProbeTab() override;

    // parallax-probe beside the application, in the build tree, then in PATH; empty if none.
    static QString findProbe();
    void setProbePath(const QString& path);
    QString probePath() const { return m_probePath; }
    // The probe's arguments for the scenario: its transformer shapes (--hidden ... --tp), --out.
    QStringList probeArguments(const QString& outFile) const;
    void setQuick(bool quick);

    bool runProbe(); // false when no probe is set (the status says so)
    void cancelProbe();
    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }

    bool loadCalibrationFile(const QString& path);
    const std::shared_ptr<const core::Calibration>& calibration() const { return m_calibration; }
    void setApplied(bool on);
    bool isApplied() const;

    CalibrationModel* model() const { return m_model; }
    QString statusText() const;
    QString currentLine() const;
    int outputLineCount() const { return m_lines; }

private:
    void readOutput();
    void processFinished(int exitCode, QProcess::ExitStatus status);
    void setStatus(const QString& text, bool problem = false);
    void refreshTable();
    void updateButtons();

    ScenarioDocument* m_document;
    QString m_probePath;
    QLabel* m_probeLabel;
    QPushButton* m_chooseButton;
    QCheckBox* m_quickCheck;
    QPushButton* m_runButton;
    QPushButton* m_cancelButton;
    QPushButton* m_loadButton;
    QPushButton* m_saveButton;
    QProgressBar* m_progress;
    QLabel* m_currentLine;
    QLabel* m_status;
    QLabel* m_source;
    QCheckBox* m_applyCheck;
    QTableView* m_table;
    QPlainTextEdit* m_log;
    CalibrationModel* m_model;
    std::shared_ptr<const core::Calibration> m_calibration;
    QTemporaryDir m_tempDir;
    QString m_outFile;
    QString m_stdoutBuffer;
    QString m_stderr;
    int m_lines = 0;
    bool m_cancelled = false;
    QProcess m_process;
};

} // namespace parallax::ui
