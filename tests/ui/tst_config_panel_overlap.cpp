// SPDX-License-Identifier: Apache-2.0
// The "Kernels and overlap" switches of the configuration panel: a toggle is one undoable edit of
// the scenario, and a loaded file sets the boxes (without pushing an edit of its own).
#include "TestSupport.h"

#include "ui/ConfigPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QGroupBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QUndoStack>

using namespace parallax;
using namespace parallax::ui;

class ConfigPanelOverlapTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::initApplication(); }

    void fusedAttentionToggleIsUndoable()
    {
        test::Window w;
        w.load(test::presetScenario());
        QVERIFY(w.doc()->scenario().training.flashAttention);
        auto* box
            = qobject_cast<QCheckBox*>(w.window.configPanel()->fieldEditor(QStringLiteral("training.flash_attention")));
        QVERIFY(box);
        QVERIFY(box->text().startsWith(QStringLiteral("Fused attention")));
        QVERIFY(box->isVisible());
        QVERIFY(box->isChecked());
        QVERIFY(box->toolTip().contains(QStringLiteral("s×s")));

        box->click();
        QVERIFY(!w.doc()->scenario().training.flashAttention);
        QCOMPARE(w.doc()->undoStack()->count(), 1);
        QVERIFY(w.doc()->isModified());
        QVERIFY(w.doc()->waitForEvaluation());

        w.doc()->undoStack()->undo();
        QVERIFY(w.doc()->scenario().training.flashAttention);
        QVERIFY(box->isChecked()); // the panel follows the document
        QVERIFY(!w.doc()->isModified());
        QVERIFY(w.doc()->waitForEvaluation());

        w.doc()->undoStack()->redo();
        QVERIFY(!w.doc()->scenario().training.flashAttention);
        QVERIFY(!box->isChecked());
        QVERIFY(w.doc()->waitForEvaluation());
    }

    // The parallel attention + MLP block: one check box, one undo step, half the TP traffic of each layer.
    void parallelBlockHalvesTheTensorParallelTraffic()
    {
        test::Window w;
        w.load(test::presetScenario());
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(w.doc()->scenario().parallel.tp > 1);
        const double serialTp = w.doc()->evaluation()->report.comm.tpSeconds;
        QVERIFY(serialTp > 0);
        auto* box
            = qobject_cast<QCheckBox*>(w.window.configPanel()->fieldEditor(QStringLiteral("model.parallel_block")));
        QVERIFY(box);
        QVERIFY(!box->isChecked());
        QVERIFY(box->toolTip().contains(QStringLiteral("use_parallel_residual")));
        box->click();
        QVERIFY(w.doc()->scenario().model.parallelBlock);
        QCOMPARE(w.doc()->undoStack()->count(), 1);
        QVERIFY(w.doc()->waitForEvaluation());
        const double parallelTp = w.doc()->evaluation()->report.comm.tpSeconds;
        QVERIFY2(parallelTp < 0.6 * serialTp, qPrintable(QString::number(parallelTp / serialTp)));
        w.doc()->undoStack()->undo();
        QVERIFY(!box->isChecked());
        QVERIFY(w.doc()->waitForEvaluation());
        QCOMPARE(w.doc()->evaluation()->report.comm.tpSeconds, serialTp);
    }

    // Megatron-Core's --pipeline-model-parallel-layout: typed text commits one undoable edit; a bad layout marks
    // the field with the engine's message.
    void pipelineLayoutEditsTheSplit()
    {
        test::Window w;
        core::Scenario s = test::presetScenario();
        s.parallel.pp = 4;
        s.parallel.vpp = 1;
        s.parallel.schedule = core::ScheduleKind::OneFOneB;
        w.load(s);
        ConfigPanel* panel = w.window.configPanel();
        auto* edit = qobject_cast<QLineEdit*>(panel->fieldEditor(QStringLiteral("parallel.pipeline_layout")));
        QVERIFY(edit);
        QVERIFY(edit->text().isEmpty());
        const int layers = w.doc()->scenario().model.layers;
        const QString layout
            = QStringLiteral("Et*%1|t*%2|t*%2|t*%3,L").arg(layers / 4 - 1).arg(layers / 4).arg(layers / 4 + 1);
        edit->setText(layout);
        Q_EMIT edit->editingFinished();
        QCOMPARE(QString::fromStdString(w.doc()->scenario().parallel.pipelineLayout), layout);
        QCOMPARE(w.doc()->undoStack()->count(), 1);
        QVERIFY(w.doc()->waitForEvaluation());
        const auto& r = w.doc()->evaluation()->report;
        QVERIFY2(r.valid, r.errors.empty() ? "" : r.errors.front().text.c_str());
        QCOMPARE(r.stages.front().layers, layers / 4 - 1);
        edit->setText(QStringLiteral("Et*3|L"));
        Q_EMIT edit->editingFinished();
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(panel->isFieldMarked(QStringLiteral("parallel.pipeline_layout")));
        w.doc()->undoStack()->undo();
        w.doc()->undoStack()->undo();
        QVERIFY(w.doc()->scenario().parallel.pipelineLayout.empty());
        QVERIFY(edit->text().isEmpty());
        QVERIFY(w.doc()->waitForEvaluation());
    }

    // Selective recompute's modules (Megatron-Core --recompute-modules): one box per module, shown while
    // Recompute is "selective"; a toggle is one undoable edit, and the engine's answer follows it.
    void recomputeModulesFollowTheRecomputeMode()
    {
        namespace rm = core::recompute_module;
        test::Window w;
        w.load(test::presetScenario());
        QCOMPARE(w.doc()->scenario().training.recompute, core::Recompute::Selective);
        ConfigPanel* panel = w.window.configPanel();
        auto* group = panel->findChild<QGroupBox*>(QStringLiteral("recomputeModules"));
        auto* coreAttn
            = qobject_cast<QCheckBox*>(panel->fieldEditor(QStringLiteral("training.recompute_modules.core_attn")));
        auto* mlp = qobject_cast<QCheckBox*>(panel->fieldEditor(QStringLiteral("training.recompute_modules.mlp")));
        QVERIFY(group && coreAttn && mlp);
        QVERIFY(group->isVisible());
        QVERIFY(coreAttn->isChecked()); // Megatron-Core's default, ["core_attn"]
        QVERIFY(!mlp->isChecked());
        QVERIFY(w.doc()->waitForEvaluation());
        const double before = w.doc()->evaluation()->report.peakMemoryBytes;

        mlp->click();
        QCOMPARE(w.doc()->scenario().training.recomputeModules, rm::kCoreAttn | rm::kMlp);
        QCOMPARE(w.doc()->undoStack()->count(), 1);
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(w.doc()->evaluation()->report.peakMemoryBytes < before); // the dense MLPs' tensors are freed
        QVERIFY(test::serialized(w.doc()->scenario()).contains(QStringLiteral("\"recompute_modules\"")));

        w.doc()->undoStack()->undo();
        QCOMPARE(w.doc()->scenario().training.recomputeModules, rm::kDefault);
        QVERIFY(!mlp->isChecked());
        QVERIFY(w.doc()->waitForEvaluation());

        w.doc()->edit(
            QStringLiteral("full recompute"), [](core::Scenario& s) { s.training.recompute = core::Recompute::Full; });
        QVERIFY(!group->isVisible());
        QVERIFY(w.doc()->waitForEvaluation());
    }

    void optimizerStatesEditTheScenario()
    {
        test::Window w;
        w.load(test::presetScenario());
        QVERIFY(w.doc()->scenario().parallel.zero >= 1);
        ConfigPanel* panel = w.window.configPanel();
        QVERIFY(panel->findChild<QGroupBox*>(QStringLiteral("optimizerStates")));
        auto* aware
            = qobject_cast<QCheckBox*>(panel->fieldEditor(QStringLiteral("training.optimizer.precision_aware")));
        auto* expAvg = qobject_cast<QComboBox*>(panel->fieldEditor(QStringLiteral("training.optimizer.exp_avg_dtype")));
        auto* mainParams
            = qobject_cast<QComboBox*>(panel->fieldEditor(QStringLiteral("training.optimizer.main_params_dtype")));
        QVERIFY(aware && expAvg && mainParams);
        QVERIFY(!aware->isChecked());
        QCOMPARE(mainParams->count(), 2); // Megatron-Core offers fp32 and fp16 only
        QCOMPARE(expAvg->count(), 4);
        QVERIFY(w.doc()->waitForEvaluation());
        const double before = w.doc()->evaluation()->report.stages.front().optimizerBytes;

        aware->click();
        expAvg->setCurrentIndex(expAvg->findData(QStringLiteral("bf16")));
        QVERIFY(w.doc()->scenario().training.optimizer.precisionAware);
        QCOMPARE(w.doc()->scenario().training.optimizer.expAvg, core::StateDType::Bf16);
        QCOMPARE(w.doc()->undoStack()->count(), 2);
        QVERIFY(w.doc()->waitForEvaluation());
        // fp32 moments 12 B -> 16-bit remainder + bf16 m + fp32 v = 8 B per parameter.
        QCOMPARE(w.doc()->evaluation()->report.stages.front().optimizerBytes, before * 8.0 / 12.0);
        QVERIFY(test::serialized(w.doc()->scenario()).contains(QStringLiteral("\"exp_avg_dtype\": \"bf16\"")));

        w.doc()->undoStack()->undo();
        w.doc()->undoStack()->undo();
        QVERIFY(!aware->isChecked());
        QCOMPARE(expAvg->currentData().toString(), QStringLiteral("fp32"));
        QVERIFY(w.doc()->waitForEvaluation());
    }

    void loadedFileSetsTheBoxes()
    {
        // The default preset, saved with tp_comm_overlap on and dp_overlap off.
        QJsonDocument json = QJsonDocument::fromJson(test::serialized(test::presetScenario()).toUtf8());
        QVERIFY(json.isObject());
        QJsonObject root = json.object();
        QJsonObject parallel = root.value(QStringLiteral("parallel")).toObject();
        parallel.insert(QStringLiteral("tp_comm_overlap"), true);
        parallel.insert(QStringLiteral("dp_overlap"), false);
        root.insert(QStringLiteral("parallel"), parallel);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("overlap.parallax.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QJsonDocument(root).toJson());
        file.close();

        test::Window w;
        ConfigPanel* panel = w.window.configPanel();
        auto* tpOverlap = qobject_cast<QCheckBox*>(panel->fieldEditor(QStringLiteral("parallel.tp_comm_overlap")));
        auto* dpOverlap = qobject_cast<QCheckBox*>(panel->fieldEditor(QStringLiteral("parallel.dp_overlap")));
        auto* p2pOverlap = qobject_cast<QCheckBox*>(panel->fieldEditor(QStringLiteral("parallel.p2p_overlap")));
        auto* fp32 = qobject_cast<QCheckBox*>(panel->fieldEditor(QStringLiteral("parallel.grad_reduce_fp32")));
        QVERIFY(tpOverlap && dpOverlap && p2pOverlap && fp32);
        QVERIFY(!tpOverlap->isChecked()); // defaults before the file
        QVERIFY(dpOverlap->isChecked());

        QVERIFY2(w.window.openFile(path), qPrintable(w.errors.join(QLatin1Char('\n'))));
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(w.doc()->scenario().parallel.tpCommOverlap);
        QVERIFY(tpOverlap->isChecked());
        QVERIFY(!dpOverlap->isChecked());
        QVERIFY(p2pOverlap->isChecked());
        QVERIFY(fp32->isChecked());
        QCOMPARE(w.doc()->undoStack()->count(), 0); // refreshing the boxes pushed no edit
        QVERIFY(!w.doc()->isModified());

        // Unchecking writes the scenario back; undo checks the box again.
        tpOverlap->click();
        QVERIFY(!w.doc()->scenario().parallel.tpCommOverlap);
        QCOMPARE(w.doc()->undoStack()->count(), 1);
        w.doc()->undoStack()->undo();
        QVERIFY(w.doc()->scenario().parallel.tpCommOverlap);
        QVERIFY(tpOverlap->isChecked());
        QVERIFY(w.doc()->waitForEvaluation());
    }
};

QTEST_MAIN(ConfigPanelOverlapTest)
#include "tst_config_panel_overlap.moc"
