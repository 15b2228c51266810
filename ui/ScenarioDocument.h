// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/EngineRunner.h"
#include "ui/Evaluation.h"

#include <QObject>
#include <QString>
#include <QUndoStack>
#include <functional>

namespace parallax::ui {

// The open scenario: its state, file, undo history and latest engine result. Every change goes
// through edit() as a QUndoCommand and re-runs the engine off the UI thread.
class ScenarioDocument : public QObject {
    Q_OBJECT
public:
    explicit ScenarioDocument(QObject* parent = nullptr);
    ~ScenarioDocument() override;

    const core::Scenario& scenario() const { return m_scenario; }
    // The newest evaluation delivered (may lag the scenario while the engine runs); never null.
    EvaluationPtr evaluation() const { return m_evaluation; }
    bool evaluationPending() const { return m_evaluation->generation != m_runner.latestGeneration(); }
    QUndoStack* undoStack() { return &m_undoStack; }

    // Applies `change` to a copy of the scenario and pushes it as one undo step named `text`.
    // With autoDataParallel on, dp follows GPUs / (tp * cp * pp) whenever that divides.
    void edit(const QString& text, const std::function<void(core::Scenario&)>& change, const QString& mergeKey = {});

    // Replaces the whole document (New / Open): clears the undo history, marks it clean.
    void reset(core::Scenario scenario, const QString& filePath = {});
    QString filePath() const { return m_filePath; }
    bool isModified() const { return !m_undoStack.isClean(); }
    // Atomic save (core::saveScenarioFile); on success the document is clean and bound to `path`.
    bool saveAs(const QString& path, QString* error);

    bool autoDataParallel() const { return m_autoDataParallel; }
    void setAutoDataParallel(bool on);

    // Probe measurements the engine uses in place of datasheet numbers (null: datasheet); setting
    // it re-runs the engine. Not part of the scenario file nor of the undo history.
    void setCalibration(std::shared_ptr<const core::Calibration> calibration);
    const std::shared_ptr<const core::Calibration>& calibration() const { return m_runner.calibration(); }

    // Tests and --screenshot: processes events until the newest submission's result arrived.
    bool waitForEvaluation(int timeoutMs = 30000);

    // Used by ScenarioCommand: set the state without touching the undo stack.
    void applyScenario(const core::Scenario& scenario);

Q_SIGNALS:
    void scenarioChanged();
    void evaluationChanged();
    void modifiedChanged(bool modified);
    void filePathChanged(const QString& path);
    void calibrationChanged();

private:
    void evaluationArrived(EvaluationPtr evaluation);

    core::Scenario m_scenario;
    EvaluationPtr m_evaluation;
    QUndoStack m_undoStack;
    QString m_filePath;
    bool m_autoDataParallel = true;
    EngineRunner m_runner; // last: destroyed (and waited for) first
};

} // namespace parallax::ui
