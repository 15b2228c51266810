// SPDX-License-Identifier: Apache-2.0
// The configuration panels: live validation marks the field the engine names, degrees that do not
// divide offer the nearest valid values, edits are undoable (spin box steps merge).
#include "TestSupport.h"

#include "ui/ConfigPanel.h"
#include "ui/DegreeSuggestions.h"
#include "ui/MessageModel.h"
#include "ui/Theme.h"

#include <QCheckBox>
#include <QComboBox>
#include <QSpinBox>
#include <QUndoStack>

using namespace parallax;
using namespace parallax::ui;

class PanelsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::initApplication(); }

    void invalidFieldShowsItsMessage()
    {
        test::Window w;
        w.load(test::presetScenario());
        ConfigPanel* panel = w.window.configPanel();
        QVERIFY(!panel->isFieldMarked(QStringLiteral("parallel.tp")));
        auto* heads = qobject_cast<QSpinBox*>(panel->fieldEditor(QStringLiteral("model.heads")));
        QVERIFY(heads);
        heads->setValue(60); // tp = 8 no longer divides the heads
        QVERIFY(w.doc()->waitForEvaluation());
        const auto& errors = w.doc()->evaluation()->report.errors;
        QVERIFY(!errors.empty());
        const QString field = QString::fromStdString(errors.front().field);
        const QString text = QString::fromStdString(errors.front().text);
        QCOMPARE(field, QStringLiteral("parallel.tp"));
        QVERIFY(panel->isFieldMarked(field));
        QVERIFY(panel->fieldMessage(field).contains(text));
        QWidget* editor = panel->fieldEditor(field);
        QVERIFY(editor->property("invalid").toBool());
        QVERIFY(editor->toolTip().contains(text));
        QCOMPARE(editor->parentWidget()->property("mark").toString(), theme::problemColor().name()); // the red frame
        QCOMPARE(panel->messageModel()->count(MessageModel::Error), static_cast<int>(errors.size()));
        QVERIFY(w.window.statusText().contains(QStringLiteral("error")));
        // The nearest tp that divides 60 heads, 8 kv heads and the 64 GPUs: 4 (with dp = 2).
        QVERIFY(panel->suggestions(field).contains(QStringLiteral("tp = 4 (dp = 2)")));

        w.doc()->undoStack()->undo();
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(!panel->isFieldMarked(field));
        QVERIFY(panel->fieldMessage(field).isEmpty() || !w.doc()->evaluation()->report.errors.empty());
    }

    // DeepSeek-V3's group-limited routing (8 groups, 4 per token) shows in the model editor, and a half-set
    // pair is marked on the field the engine names.
    void routerGroupFields()
    {
        test::Window w;
        w.load(test::presetScenario("deepseek-v3-2048xh800"));
        ConfigPanel* panel = w.window.configPanel();
        auto* groups = qobject_cast<QSpinBox*>(panel->fieldEditor(QStringLiteral("model.moe.router_groups")));
        auto* perToken = qobject_cast<QSpinBox*>(panel->fieldEditor(QStringLiteral("model.moe.router_group_topk")));
        QVERIFY(groups && perToken);
        QCOMPARE(groups->value(), 8);
        QCOMPARE(perToken->value(), 4);
        perToken->setValue(0);
        QVERIFY(w.doc()->waitForEvaluation());
        QCOMPARE(w.doc()->scenario().model.moe->routerGroupTopk, 0);
        QVERIFY(panel->isFieldMarked(QStringLiteral("model.moe.router_group_topk")));
        QVERIFY(
            panel->fieldMessage(QStringLiteral("model.moe.router_group_topk")).contains(QStringLiteral("needs both")));
        perToken->setValue(8); // every group: routing without a node limit
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(!panel->isFieldMarked(QStringLiteral("model.moe.router_group_topk")));
        QVERIFY(w.doc()->evaluation()->report.errors.empty());
        // The MoE training knobs are live here and greyed out on a dense model.
        QVERIFY(panel->fieldEditor(QStringLiteral("training.moe_token_dispatcher"))->isEnabled());
        w.load(test::presetScenario("llama3-70b-64xh100"));
        QVERIFY(!panel->fieldEditor(QStringLiteral("training.moe_token_dispatcher"))->isEnabled());
        QVERIFY(!panel->fieldEditor(QStringLiteral("training.moe_expert_capacity_factor"))->isEnabled());
    }

    // Llama 4 Maverick's chunked attention shows in the model editor; a window shortens the step of a long
    // sequence, and chunks without a window are marked on the field the engine names.
    void attentionWindowFields()
    {
        test::Window w;
        w.load(test::presetScenario("serve-maverick-fp8-8xh200"));
        ConfigPanel* panel = w.window.configPanel();
        auto* window = qobject_cast<QSpinBox*>(panel->fieldEditor(QStringLiteral("model.sliding_window")));
        auto* pattern = qobject_cast<QSpinBox*>(panel->fieldEditor(QStringLiteral("model.sliding_window_pattern")));
        auto* chunked = qobject_cast<QCheckBox*>(panel->fieldEditor(QStringLiteral("model.chunked_attention")));
        QVERIFY(window && pattern && chunked);
        QCOMPARE(window->value(), 8192);
        QCOMPARE(pattern->value(), 4);
        QVERIFY(chunked->isChecked());
        window->setValue(0);
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(!pattern->isEnabled());
        QVERIFY(chunked->isEnabled()); // still on: it can be cleared
        QVERIFY(panel->isFieldMarked(QStringLiteral("model.chunked_attention")));
        chunked->setChecked(false);
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(w.doc()->evaluation()->report.errors.empty());
        QVERIFY(!chunked->isEnabled());

        // Training at 32K tokens: a 4K window on every layer is faster, one undo step away from full attention.
        core::Scenario s = test::presetScenario();
        s.training.seqLen = 32768;
        s.training.globalBatch = 256;
        w.load(s);
        QVERIFY(w.doc()->waitForEvaluation());
        const auto& full = w.doc()->evaluation()->report;
        QVERIFY2(full.valid, full.errors.empty() ? "" : full.errors.front().text.c_str());
        const double fullStep = full.stepTimeSeconds;
        window->setValue(4096);
        QVERIFY(w.doc()->waitForEvaluation());
        QCOMPARE(w.doc()->scenario().model.slidingWindow, 4096);
        QVERIFY(w.doc()->evaluation()->report.stepTimeSeconds < 0.9 * fullStep);
    }

    void contextParallelCommunicationField()
    {
        test::Window w;
        w.load(test::presetScenario("gpt-oss-120b-32k-64xh100"));
        QVERIFY(w.doc()->waitForEvaluation());
        ConfigPanel* panel = w.window.configPanel();
        auto* type = qobject_cast<QComboBox*>(panel->fieldEditor(QStringLiteral("parallel.cp_comm_type")));
        QVERIFY(type);
        QVERIFY(type->isEnabled()); // the preset runs cp 2
        QCOMPARE(type->currentData().toString(), QStringLiteral("p2p"));
        const double ringCp = w.doc()->evaluation()->report.comm.cpSeconds;
        type->setCurrentIndex(type->findData(QStringLiteral("a2a")));
        QVERIFY(w.doc()->waitForEvaluation());
        QCOMPARE(w.doc()->scenario().parallel.cpCommType, core::CpCommType::A2a);
        const auto& a2a = w.doc()->evaluation()->report;
        QVERIFY2(a2a.valid, a2a.errors.empty() ? "" : a2a.errors.front().text.c_str());
        QVERIFY(a2a.comm.cpSeconds > ringCp); // Ulysses' all-to-alls are exposed
        // All-to-all then ring needs two levels: cp 2 has none, so the level field opens and the error names it.
        auto* level = qobject_cast<QSpinBox*>(panel->fieldEditor(QStringLiteral("parallel.cp_a2a_size")));
        QVERIFY(level);
        QVERIFY(!level->isEnabled());
        type->setCurrentIndex(type->findData(QStringLiteral("a2a+p2p")));
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(level->isEnabled());
        QVERIFY(panel->isFieldMarked(QStringLiteral("parallel.cp_a2a_size")));
        // At cp 1 the type does nothing: greyed out once it is back at the ring.
        core::Scenario one = test::presetScenario();
        QCOMPARE(one.parallel.cp, 1);
        w.load(one);
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(!type->isEnabled());
    }

    void nonDividingDegreeOffersNearestValues()
    {
        test::Window w;
        w.load(test::presetScenario());
        ConfigPanel* panel = w.window.configPanel();
        auto* autoDp = panel->findChild<QCheckBox*>(QStringLiteral("autoDataParallel"));
        QVERIFY(autoDp);
        autoDp->setChecked(false);
        auto* pp = qobject_cast<QSpinBox*>(panel->fieldEditor(QStringLiteral("parallel.pp")));
        pp->setValue(6); // 8 * 6 * 1 = 48 ranks for 64 GPUs
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(panel->isFieldMarked(QStringLiteral("parallel.dp")));
        const QStringList dp = panel->suggestions(QStringLiteral("parallel.dp"));
        QVERIFY(dp.isEmpty()); // no dp makes 8 * 6 * dp = 64
        panel->applySuggestion(QStringLiteral("parallel.dp"), 0); // nothing to apply: no crash, no edit

        pp->setValue(8);
        auto* tp = qobject_cast<QSpinBox*>(panel->fieldEditor(QStringLiteral("parallel.tp")));
        tp->setValue(3);
        QVERIFY(w.doc()->waitForEvaluation());
        const QStringList tpSuggestions = panel->suggestions(QStringLiteral("parallel.tp"));
        QVERIFY2(tpSuggestions.size() >= 2, qPrintable(tpSuggestions.join(QLatin1Char(','))));
        QCOMPARE(tpSuggestions.front(), QStringLiteral("tp = 2 (dp = 4)"));
        panel->applySuggestion(QStringLiteral("parallel.tp"), 0);
        QCOMPARE(w.doc()->scenario().parallel.tp, 2);
        QCOMPARE(w.doc()->scenario().parallel.dp, 4);
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(!panel->isFieldMarked(QStringLiteral("parallel.tp")));
        autoDp->setChecked(true);
    }

    void suggestionArithmetic_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<int>("value");
        QTest::addColumn<QStringList>("expected");
        // Llama 3 70B (64 heads, 8 kv heads, 80 layers) on 64 GPUs, tp 8, pp 8, vpp 2, global batch 512.
        QTest::newRow("tp 3") << "parallel.tp" << 3 << QStringList { "tp = 2 (dp = 4)", "tp = 4 (dp = 2)" };
        QTest::newRow("pp 3") << "parallel.pp" << 3 << QStringList { "pp = 2 (dp = 4)", "pp = 4 (dp = 2)" };
        QTest::newRow("vpp 3") << "parallel.vpp" << 3 << QStringList { "vpp = 2", "vpp = 5" };
        QTest::newRow("global batch 500") << "training.global_batch" << 500 << QStringList { "global batch = 501" };
        QTest::newRow("unknown") << "model.layers" << 3 << QStringList {};
    }

    void suggestionArithmetic()
    {
        QFETCH(QString, field);
        QFETCH(int, value);
        QFETCH(QStringList, expected);
        core::Scenario s = test::presetScenario();
        QCOMPARE(s.parallel.dp, 1);
        QCOMPARE(intField(s, "parallel.pp"), 8);
        setIntField(s, field.toStdString(), value);
        QStringList labels;
        for (const auto& sug : suggestValues(s, field.toStdString()))
            labels << sug.label;
        for (const QString& e : expected)
            QVERIFY2(labels.contains(e), qPrintable(labels.join(QStringLiteral(", "))));
        if (expected.isEmpty())
            QVERIFY(labels.isEmpty());
    }

    void spinBoxStepsMergeIntoOneUndoStep()
    {
        test::Window w;
        w.load(test::presetScenario());
        auto* layers = qobject_cast<QSpinBox*>(w.window.configPanel()->fieldEditor(QStringLiteral("model.layers")));
        layers->setValue(81);
        layers->setValue(82);
        layers->setValue(84);
        QCOMPARE(w.doc()->undoStack()->count(), 1);
        QCOMPARE(w.doc()->scenario().model.layers, 84);
        QVERIFY(w.doc()->scenario().modelPreset.empty()); // edited: an inline model now
        w.doc()->undoStack()->undo();
        QCOMPARE(w.doc()->scenario().model.layers, 80);
        QCOMPARE(w.doc()->scenario().modelPreset, std::string("llama3-70b"));
        QCOMPARE(layers->value(), 80); // the widget follows undo
    }

    void modelPresetPicker()
    {
        test::Window w;
        w.load(test::presetScenario());
        auto* preset = w.window.configPanel()->findChild<QComboBox*>(QStringLiteral("modelPreset"));
        QVERIFY(preset);
        const int index = preset->findData(QStringLiteral("llama3-8b"));
        QVERIFY(index > 0);
        preset->setCurrentIndex(index);
        QCOMPARE(w.doc()->scenario().modelPreset, std::string("llama3-8b"));
        QCOMPARE(w.doc()->scenario().model.layers, 32);
        auto* layers = qobject_cast<QSpinBox*>(w.window.configPanel()->fieldEditor(QStringLiteral("model.layers")));
        QCOMPARE(layers->value(), 32);
        w.doc()->undoStack()->undo();
        QCOMPARE(w.doc()->scenario().modelPreset, std::string("llama3-70b"));
    }
};

QTEST_MAIN(PanelsTest)
#include "tst_panels.moc"
