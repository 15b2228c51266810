// SPDX-License-Identifier: Apache-2.0
#pragma once

// Shared helpers of the Qt Test suites (offscreen platform, fixed DPI: see tests/ui/CMakeLists.txt).
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "ui/MainWindow.h"
#include "ui/ScenarioDocument.h"
#include "ui/TopologyEdits.h"

#include <QCoreApplication>
#include <QGuiApplication>
#include <QSettings>
#include <QtTest>

namespace parallax::ui::test {

inline void initApplication()
{
    QCoreApplication::setOrganizationName(QStringLiteral("ParallaxTests"));
    QCoreApplication::setApplicationName(QStringLiteral("ParallaxUiTests"));
    QSettings().clear();
    QGuiApplication::setQuitOnLastWindowClosed(false); // tests close and reopen windows
}

inline core::Scenario presetScenario(const std::string& id = core::kDefaultScenarioPreset)
{
    const auto* info = core::PresetLibrary::instance().scenario(id);
    if (!info)
        qFatal("no preset %s", id.c_str());
    core::LoadError error;
    auto s = core::parseScenario(info->json, error);
    if (!s)
        qFatal("preset %s: %s", id.c_str(), error.text().c_str());
    return *s;
}

// Llama 3 70B on `nodes` x `gpusPerNode` H100, tp x dp with pp = cp = 1 and 1F1B.
inline core::Scenario smallCluster(int nodes, int gpusPerNode, int tp)
{
    core::Scenario s = presetScenario();
    s.name = "test cluster";
    s.topology = core::Topology::regular(*core::PresetLibrary::instance().gpu("h100-sxm"), nodes, gpusPerNode, 400);
    edits::normalizeCluster(s);
    s.parallel.tp = tp;
    s.parallel.sp = tp > 1;
    s.parallel.cp = 1;
    s.parallel.pp = 1;
    s.parallel.vpp = 1;
    s.parallel.dp = nodes * gpusPerNode / tp;
    s.parallel.schedule = core::ScheduleKind::OneFOneB;
    s.training.globalBatch = 64;
    return s;
}

// smallCluster with a model preset and a global batch: a small search question.
inline core::Scenario smallClusterWith(int nodes, int gpusPerNode, int tp, const std::string& model, int globalBatch)
{
    core::Scenario s = smallCluster(nodes, gpusPerNode, tp);
    s.model = *core::PresetLibrary::instance().model(model);
    s.modelPreset = model;
    s.training.globalBatch = globalBatch;
    return s;
}

// A shown main window of the size the screenshots use, with dialogs replaced by recorders.
struct Window {
    MainWindow window;
    QStringList errors;
    int prompts = 0;
    QMessageBox::StandardButton answer = QMessageBox::Cancel;

    Window()
    {
        window.setErrorReporter(
            [this](const QString& title, const QString& text) { errors << title + QStringLiteral(": ") + text; });
        window.setUnsavedPrompt([this](const QString&) {
            ++prompts;
            return answer;
        });
        window.resize(1600, 1000);
        window.show();
    }
    ScenarioDocument* doc() { return window.document(); }
    void load(core::Scenario s)
    {
        doc()->reset(std::move(s));
        QVERIFY(doc()->waitForEvaluation());
    }
};

inline QString serialized(const core::Scenario& s)
{
    return QString::fromStdString(core::serializeScenario(s));
}

} // namespace parallax::ui::test
