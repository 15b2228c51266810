// SPDX-License-Identifier: Apache-2.0
#include "ui/ScenarioDocument.h"

#include "core/io/ScenarioIo.h"
#include "ui/ScenarioCommand.h"
#include "ui/TopologyEdits.h"

#include <QDeadlineTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QTimer>
#include <algorithm>

namespace parallax::ui {

ScenarioDocument::ScenarioDocument(QObject* parent)
    : QObject(parent)
    , m_evaluation(std::make_shared<Evaluation>())
    , m_runner(this, [this](EvaluationPtr e) { evaluationArrived(std::move(e)); })
{
    connect(&m_undoStack, &QUndoStack::cleanChanged, this, [this](bool clean) { Q_EMIT modifiedChanged(!clean); });
}

ScenarioDocument::~ScenarioDocument() = default;

void ScenarioDocument::edit(
    const QString& text, const std::function<void(core::Scenario&)>& change, const QString& mergeKey)
{
    core::Scenario after = m_scenario;
    change(after);
    after.topology.invalidate();
    if (m_autoDataParallel)
        edits::fitDataParallel(after);
    m_undoStack.push(new ScenarioCommand(this, m_scenario, std::move(after), text, mergeKey));
}

void ScenarioDocument::reset(core::Scenario scenario, const QString& filePath)
{
    m_undoStack.clear();
    m_filePath = filePath;
    applyScenario(scenario);
    m_undoStack.setClean();
    Q_EMIT modifiedChanged(false);
    Q_EMIT filePathChanged(m_filePath);
}

bool ScenarioDocument::saveAs(const QString& path, QString* error)
{
    std::string message;
    if (!core::saveScenarioFile(m_scenario, QFileInfo(path).absoluteFilePath().toStdString(), message)) {
        if (error)
            *error = QString::fromStdString(message);
        return false;
    }
    m_filePath = QFileInfo(path).absoluteFilePath();
    m_undoStack.setClean();
    Q_EMIT filePathChanged(m_filePath);
    return true;
}

void ScenarioDocument::setAutoDataParallel(bool on)
{
    m_autoDataParallel = on;
}

void ScenarioDocument::setCalibration(std::shared_ptr<const core::Calibration> calibration)
{
    if (calibration == m_runner.calibration())
        return;
    m_runner.setCalibration(std::move(calibration));
    m_runner.submit(m_scenario);
    Q_EMIT calibrationChanged();
}

void ScenarioDocument::applyScenario(const core::Scenario& scenario)
{
    m_scenario = scenario;
    m_scenario.topology.invalidate();
    m_runner.submit(m_scenario);
    Q_EMIT scenarioChanged();
}

void ScenarioDocument::evaluationArrived(EvaluationPtr evaluation)
{
    m_evaluation = std::move(evaluation);
    Q_EMIT evaluationChanged();
}

bool ScenarioDocument::waitForEvaluation(int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (evaluationPending() && !deadline.hasExpired()) {
        QEventLoop loop;
        connect(this, &ScenarioDocument::evaluationChanged, &loop, &QEventLoop::quit);
        QTimer::singleShot(std::max<qint64>(1, deadline.remainingTime()), &loop, &QEventLoop::quit);
        loop.exec();
    }
    return !evaluationPending();
}

} // namespace parallax::ui
