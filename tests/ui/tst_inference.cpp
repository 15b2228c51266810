// SPDX-License-Identifier: Apache-2.0
// Inference mode in the app: the Training / Inference switch and the serving fields (undoable, saved
// with unknown keys kept), the Memory tab's serving view and concurrency chart against the engine's own
// numbers, and the status bar in both modes (issue 13; issue 12's step-time range).
#include "TestSupport.h"

#include "core/Engine.h"
#include "core/inference/InferenceEngine.h"
#include "core/memory/RangeText.h"
#include "ui/ChartStyle.h"
#include "ui/ConcurrencyChart.h"
#include "ui/ConfigPanel.h"
#include "ui/Format.h"
#include "ui/MemoryTab.h"
#include "ui/ScheduleTab.h"
#include "ui/ServingMemoryChart.h"
#include "ui/ServingMemoryModel.h"
#include "ui/ServingMemoryView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QLabel>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QToolButton>
#include <QUndoStack>
#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

using namespace parallax;
using namespace parallax::ui;

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// The engine run on its own, outside the app.
core::InferenceReport engineReport(const core::Scenario& s)
{
    const core::Report r = core::evaluate(s);
    if (!r.inference)
        qFatal("no inference report: %s", r.errors.empty() ? "?" : r.errors.front().text.c_str());
    return *r.inference;
}

QGroupBox* group(ConfigPanel* panel, const char* name)
{
    return panel->findChild<QGroupBox*>(QLatin1String(name));
}
} // namespace

class InferenceTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::initApplication(); }

    void modeSwitchIsOneUndoStep()
    {
        test::Window w;
        w.load(test::presetScenario());
        ConfigPanel* panel = w.window.configPanel();
        auto* inference = panel->findChild<QToolButton*>(QStringLiteral("modeInference"));
        auto* training = panel->findChild<QToolButton*>(QStringLiteral("modeTraining"));
        QVERIFY(inference && training);
        QVERIFY(training->isChecked());
        QVERIFY(!group(panel, "inferenceGroup")->isVisibleTo(panel));
        QVERIFY(!w.window.memoryTab()->showsServing());

        inference->click();
        QVERIFY(w.doc()->waitForEvaluation());
        QCOMPARE(w.doc()->scenario().mode, core::ScenarioMode::Inference);
        QCOMPARE(w.doc()->undoStack()->count(), 1);
        QVERIFY(group(panel, "inferenceGroup")->isVisibleTo(panel));
        QVERIFY(!panel->fieldEditor(QStringLiteral("training.micro_batch"))->isVisibleTo(panel));
        QVERIFY(!panel->fieldEditor(QStringLiteral("parallel.schedule"))->isVisibleTo(panel));
        QVERIFY(panel->fieldEditor(QStringLiteral("parallel.tp"))->isVisibleTo(panel));
        QVERIFY(panel->fieldEditor(QStringLiteral("parallel.ep"))->isVisibleTo(panel));
        QVERIFY(panel->fieldEditor(QStringLiteral("parallel.dp_attention"))->isVisibleTo(panel));
        QVERIFY(w.window.memoryTab()->showsServing());
        QVERIFY2(w.window.statusText().contains(QStringLiteral("TTFT")), qPrintable(w.window.statusText()));

        w.doc()->undoStack()->undo();
        QVERIFY(w.doc()->waitForEvaluation());
        QCOMPARE(w.doc()->scenario().mode, core::ScenarioMode::Training);
        QVERIFY(training->isChecked());
        QVERIFY(!inference->isChecked());
        QVERIFY(!group(panel, "inferenceGroup")->isVisibleTo(panel));
        QVERIFY(panel->fieldEditor(QStringLiteral("training.micro_batch"))->isVisibleTo(panel));
        QVERIFY(!w.window.memoryTab()->showsServing());
        QVERIFY2(w.window.statusText().contains(QStringLiteral("Step")), qPrintable(w.window.statusText()));

        w.doc()->undoStack()->redo();
        QVERIFY(w.doc()->waitForEvaluation());
        QCOMPARE(w.doc()->scenario().mode, core::ScenarioMode::Inference);
        QVERIFY(inference->isChecked());
    }

    void servingFieldsAreUndoable()
    {
        test::Window w;
        w.load(test::presetScenario("serve-405b-bf16-8xh100"));
        ConfigPanel* panel = w.window.configPanel();
        auto* weights = qobject_cast<QComboBox*>(panel->fieldEditor(QStringLiteral("inference.weight_dtype")));
        auto* kv = qobject_cast<QComboBox*>(panel->fieldEditor(QStringLiteral("inference.kv_dtype")));
        auto* context = qobject_cast<QSpinBox*>(panel->fieldEditor(QStringLiteral("inference.context_len")));
        auto* concurrency = qobject_cast<QSpinBox*>(panel->fieldEditor(QStringLiteral("inference.concurrency")));
        auto* utilization
            = qobject_cast<QDoubleSpinBox*>(panel->fieldEditor(QStringLiteral("inference.gpu_memory_utilization")));
        QVERIFY(weights && kv && context && concurrency && utilization);
        QCOMPARE(weights->currentData().toString(), QStringLiteral("bf16"));
        for (const char* f : { "bf16", "fp8", "int8", "int4", "nvfp4" })
            QVERIFY2(weights->findData(QLatin1String(f)) >= 0, f);
        QVERIFY(!w.doc()->evaluation()->report.fits); // bf16 405B does not fit on 8 H100
        const core::InferenceConfig initial = w.doc()->scenario().inference;

        weights->setCurrentIndex(weights->findData(QStringLiteral("fp8")));
        QVERIFY(w.doc()->waitForEvaluation());
        QCOMPARE(w.doc()->scenario().inference.weightFormat, core::WeightFormat::Fp8);
        QVERIFY(w.doc()->evaluation()->report.fits);
        kv->setCurrentIndex(kv->findData(QStringLiteral("fp8")));
        concurrency->setValue(16);
        utilization->setValue(0.85);
        context->setValue(200000);
        QVERIFY(w.doc()->waitForEvaluation());
        const core::InferenceConfig& c = w.doc()->scenario().inference;
        QCOMPARE(c.kvDtype, core::KvDtype::Fp8);
        QCOMPARE(c.concurrency, 16);
        QCOMPARE(c.gpuMemoryUtilization, 0.85);
        QCOMPARE(c.contextLen, 200000);
        QCOMPARE(w.doc()->evaluation()->report.inference->contextLen, 200000);
        QCOMPARE(w.doc()->undoStack()->count(), 5);

        for (int i = 0; i < 5; ++i)
            w.doc()->undoStack()->undo();
        QVERIFY(w.doc()->waitForEvaluation());
        const core::InferenceConfig& back = w.doc()->scenario().inference;
        QCOMPARE(back.weightFormat, core::WeightFormat::Bf16);
        QCOMPARE(back.kvDtype, core::KvDtype::Bf16);
        QVERIFY(back.solvesConcurrency());
        QCOMPARE(back.gpuMemoryUtilization, 0.9);
        QCOMPARE(back.contextLen, initial.contextLen);
        QCOMPARE(weights->currentData().toString(), QStringLiteral("bf16"));
        QCOMPARE(concurrency->value(), 0);
        QCOMPARE(concurrency->text(), concurrency->specialValueText()); // "max (solve)"
    }

    void contextShorterThanTheRequestIsMarked()
    {
        test::Window w;
        w.load(test::presetScenario("serve-70b-bf16-4xh100"));
        ConfigPanel* panel = w.window.configPanel();
        const core::InferenceConfig c = w.doc()->scenario().inference;
        auto* context = qobject_cast<QSpinBox*>(panel->fieldEditor(QStringLiteral("inference.context_len")));
        context->setValue(c.isl + c.osl - 1);
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(panel->isFieldMarked(QStringLiteral("inference.context_len")));
        QVERIFY(panel->fieldMessage(QStringLiteral("inference.context_len")).contains(QStringLiteral("isl + osl")));
        w.doc()->undoStack()->undo();
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(!panel->isFieldMarked(QStringLiteral("inference.context_len")));
    }

    void dpAttentionSwitchesTheLayout()
    {
        test::Window w;
        w.load(test::presetScenario("serve-dsv3-tp8-8xh200"));
        ConfigPanel* panel = w.window.configPanel();
        auto* dpAttention = qobject_cast<QCheckBox*>(panel->fieldEditor(QStringLiteral("parallel.dp_attention")));
        QVERIFY(dpAttention && dpAttention->isEnabled());
        const core::ParallelConfig before = w.doc()->scenario().parallel;
        QCOMPARE(before.tp, 8);
        QVERIFY(!dpAttention->isChecked());
        dpAttention->click();
        QVERIFY(w.doc()->waitForEvaluation());
        const core::ParallelConfig& p = w.doc()->scenario().parallel;
        QCOMPARE(p.tp, 1);
        QCOMPARE(p.dp, 8);
        QCOMPARE(p.ep, 8);
        const auto& r = w.doc()->evaluation()->report;
        QVERIFY2(r.valid, r.errors.empty() ? "" : r.errors.front().text.c_str());
        QVERIFY(r.inference->dpAttention);
        // Each GPU caches only its own requests: more KV tokens than TP8's replicated latent.
        const core::InferenceReport tp8 = engineReport(test::presetScenario("serve-dsv3-tp8-8xh200"));
        QVERIFY(r.inference->kvCapacityTokens > tp8.kvCapacityTokens);
        w.doc()->undoStack()->undo();
        QVERIFY(w.doc()->waitForEvaluation());
        QCOMPARE(w.doc()->scenario().parallel.tp, before.tp);
        QCOMPARE(w.doc()->scenario().parallel.dp, before.dp);
        QCOMPARE(w.doc()->scenario().parallel.ep, before.ep);
        QVERIFY(!dpAttention->isChecked());
    }

    void mtpDraftTokensSpeedUpDecodeAndNeedAnMtpModel()
    {
        test::Window w;
        w.load(test::presetScenario("serve-dsv3-tp8-8xh200"));
        ConfigPanel* panel = w.window.configPanel();
        QVERIFY(w.doc()->waitForEvaluation());
        const double tpot = w.doc()->evaluation()->report.inference->tpotSeconds;
        auto* drafts = qobject_cast<QSpinBox*>(panel->fieldEditor(QStringLiteral("inference.speculative_tokens")));
        QVERIFY(drafts && drafts->isEnabled());
        QCOMPARE(drafts->text(), drafts->specialValueText()); // "off"
        auto* drafter = qobject_cast<QComboBox*>(panel->fieldEditor(QStringLiteral("inference.draft_model")));
        QVERIFY(drafter);
        QCOMPARE(drafter->itemText(drafter->findData(QString())), QStringLiteral("the model's MTP module"));
        drafts->setValue(1);
        QVERIFY(w.doc()->waitForEvaluation());
        const auto& r = w.doc()->evaluation()->report;
        QVERIFY2(r.valid, r.errors.empty() ? "" : r.errors.front().text.c_str());
        QCOMPARE(r.inference->speculativeTokens, 1);
        QVERIFY(r.inference->tpotSeconds < 0.8 * tpot);
        w.doc()->undoStack()->undo();
        QVERIFY(w.doc()->waitForEvaluation());
        QCOMPARE(w.doc()->scenario().inference.speculativeTokens, 0);

        test::Window dense;
        dense.load(test::presetScenario("serve-70b-bf16-4xh100"));
        auto* none = qobject_cast<QSpinBox*>(
            dense.window.configPanel()->fieldEditor(QStringLiteral("inference.speculative_tokens")));
        QVERIFY(none && !none->isEnabled()); // Llama 3 has no MTP module to draft with
    }

    void aDraftModelDraftsForAModelWithoutMtp()
    {
        test::Window w;
        w.load(test::presetScenario("serve-70b-bf16-4xh100"));
        ConfigPanel* panel = w.window.configPanel();
        QVERIFY(w.doc()->waitForEvaluation());
        const double tpot = w.doc()->evaluation()->report.inference->tpotSeconds;
        auto* drafter = qobject_cast<QComboBox*>(panel->fieldEditor(QStringLiteral("inference.draft_model")));
        auto* drafts = qobject_cast<QSpinBox*>(panel->fieldEditor(QStringLiteral("inference.speculative_tokens")));
        QVERIFY(drafter && drafts);
        QVERIFY(drafter->isEnabled());
        QVERIFY(!drafts->isEnabled()); // no MTP module and no draft model yet
        QCOMPARE(drafter->itemText(drafter->findData(QString())), QStringLiteral("none (the model has no MTP module)"));
        drafter->setCurrentIndex(drafter->findData(QStringLiteral("llama3-8b")));
        QVERIFY(w.doc()->waitForEvaluation());
        QCOMPARE(w.doc()->scenario().inference.draftModel, std::string("llama3-8b"));
        QVERIFY(drafts->isEnabled());
        drafts->setValue(3);
        QVERIFY(w.doc()->waitForEvaluation());
        const auto& r = w.doc()->evaluation()->report;
        QVERIFY2(r.valid, r.errors.empty() ? "" : r.errors.front().text.c_str());
        QCOMPARE(r.inference->draftModel, std::string("Llama 3 8B"));
        QVERIFY(r.inference->decode.draftSeconds > 0);
        QVERIFY(r.inference->draftWeightsBytesPerGpu > 0);
        QVERIFY(r.inference->tpotSeconds != tpot);
        // Two edits, two undo steps: back to the plain model.
        w.doc()->undoStack()->undo();
        w.doc()->undoStack()->undo();
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(w.doc()->scenario().inference.draftModel.empty());
        QCOMPARE(drafter->currentIndex(), drafter->findData(QString()));

        // An EAGLE-3 head: the method changes, no draft model is named.
        drafter->setCurrentIndex(drafter->findData(QStringLiteral("eagle3")));
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(w.doc()->scenario().inference.speculativeMethod == core::SpeculativeMethod::Eagle3);
        QVERIFY(w.doc()->scenario().inference.draftModel.empty());
        drafts->setValue(2);
        QVERIFY(w.doc()->waitForEvaluation());
        const auto& eagle = w.doc()->evaluation()->report;
        QVERIFY2(eagle.valid, eagle.errors.empty() ? "" : eagle.errors.front().text.c_str());
        QCOMPARE(eagle.inference->speculativeMethod, std::string("eagle3"));
        QVERIFY(eagle.inference->draftWeightsBytesPerGpu > 0);
    }

    void inferenceScenarioSavesAndLoadsWithUnknownKeys()
    {
        const auto* info = core::PresetLibrary::instance().scenario("serve-70b-bf16-2xh100");
        QVERIFY(info);
        nlohmann::json j = nlohmann::json::parse(info->json);
        j["inference"]["prefix_cache_hit_rate"] = 0.5; // a key of a newer release
        j["x_reviewer"] = "kept";
        core::LoadError error;
        auto loaded = core::parseScenario(j.dump(), error);
        QVERIFY2(loaded, error.text().c_str());

        test::Window w;
        w.load(*loaded);
        auto* weights
            = qobject_cast<QComboBox*>(w.window.configPanel()->fieldEditor(QStringLiteral("inference.weight_dtype")));
        weights->setCurrentIndex(weights->findData(QStringLiteral("int4")));
        QVERIFY(w.doc()->waitForEvaluation());
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("serve.parallax.json"));
        QVERIFY(w.window.saveToFile(path));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const nlohmann::json saved = nlohmann::json::parse(file.readAll().toStdString());
        QCOMPARE(QString::fromStdString(saved.at("mode").get<std::string>()), QStringLiteral("inference"));
        QCOMPARE(QString::fromStdString(saved.at("inference").at("weight_dtype").get<std::string>()),
            QStringLiteral("int4"));
        QCOMPARE(saved.at("inference").at("prefix_cache_hit_rate").get<double>(), 0.5);
        QCOMPARE(QString::fromStdString(saved.at("x_reviewer").get<std::string>()), QStringLiteral("kept"));

        test::Window again;
        QVERIFY(again.window.openFile(path));
        QVERIFY(again.doc()->waitForEvaluation());
        QCOMPARE(again.doc()->scenario().mode, core::ScenarioMode::Inference);
        QCOMPARE(again.doc()->scenario().inference.weightFormat, core::WeightFormat::Int4);
        QVERIFY(again.window.configPanel()->findChild<QToolButton*>(QStringLiteral("modeInference"))->isChecked());
    }

    void memoryTabShowsTheEnginesNumbers_data()
    {
        QTest::addColumn<QString>("preset");
        for (const char* p : { "serve-405b-fp8-8xh100", "serve-405b-bf16-8xh100", "serve-dsv3-dpattn-8xh200",
                 "serve-moe1t-int4-8xh100", "serve-70b-bf16-4xh100" })
            QTest::newRow(p) << QString::fromLatin1(p);
    }

    void memoryTabShowsTheEnginesNumbers()
    {
        QFETCH(QString, preset);
        const core::Scenario s = test::presetScenario(preset.toStdString());
        const core::InferenceReport want = engineReport(s);
        test::Window w;
        w.load(s);
        MemoryTab* tab = w.window.memoryTab();
        QVERIFY(tab->showsServing());
        const ServingMemoryModel* model = tab->servingView()->model();
        QVERIFY(model->hasData());
        using M = ServingMemoryModel;
        const std::pair<int, double> rows[] = { { M::Weights, want.memory.weightsBytes },
            { M::KvCache, want.memory.kvCacheBytes }, { M::Workspace, want.memory.workspaceBytes },
            { M::CudaGraphs, want.memory.cudaGraphBytes }, { M::Runtime, want.memory.runtimeBytes },
            { M::Reserve, want.memory.reserveBytes }, { M::Hbm, want.memory.hbmBytes } };
        for (const auto& [row, bytes] : rows) {
            QCOMPARE(model->index(row, M::Bytes).data(M::BytesRole).toDouble(), bytes);
            if (row != M::KvCache || bytes > 0)
                QCOMPARE(model->index(row, M::Bytes).data().toString(), format::bytes(bytes));
        }
        // The reserve is (1 - gpu_memory_utilization) of HBM; with the KV pool it all adds up to HBM.
        QCOMPARE(want.memory.reserveBytes, (1 - s.inference.gpuMemoryUtilization) * want.memory.hbmBytes);
        if (want.memory.kvCacheBytes > 0)
            QVERIFY(qAbs(want.memory.usedBytes() + want.memory.kvCacheBytes + want.memory.reserveBytes
                        - want.memory.hbmBytes)
                < 1.0);

        const QString summary = tab->summaryText();
        QVERIFY2(summary.contains(QString::fromLatin1(core::toString(want.verdict))), qPrintable(summary));
        QVERIFY2(summary.contains(
                     QStringLiteral("KV capacity %1 tokens").arg(groupedCount(std::floor(want.kvCapacityTokens)))),
            qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("max concurrency %1 requests of %2 tokens")
                                      .arg(groupedCount(want.maxConcurrency), groupedCount(want.contextLen))),
            qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("weights %1").arg(format::bytes(want.memory.weightsBytes))),
            qPrintable(summary));
        QVERIFY2(summary.contains(
                     QStringLiteral("%1 per request on one GPU").arg(format::bytes(want.kvBytesPerRequestPerGpu))),
            qPrintable(summary));

        // The bar: the same bytes in GiB, stacked to HBM when the KV pool is positive.
        const auto segments = tab->servingView()->memoryChart()->segments();
        QCOMPARE(static_cast<int>(segments.size()), 6);
        QCOMPARE(segments[0].second, want.memory.weightsBytes / kGiB);
        QCOMPARE(segments[4].second, std::max(0.0, want.memory.kvCacheBytes) / kGiB);
        QCOMPARE(segments[5].second, want.memory.reserveBytes / kGiB);
        QCOMPARE(tab->servingView()->memoryChart()->hbmGib(), want.memory.hbmBytes / kGiB);
    }

    void concurrencyChartIsTheEnginesCurve_data()
    {
        QTest::addColumn<QString>("preset");
        for (const char* p :
            { "serve-405b-fp8-8xh100", "serve-405b-fp8-8xh200", "serve-dsv3-dpattn-8xh200", "serve-70b-bf16-2xh100" })
            QTest::newRow(p) << QString::fromLatin1(p);
    }

    void concurrencyChartIsTheEnginesCurve()
    {
        QFETCH(QString, preset);
        const core::Scenario s = test::presetScenario(preset.toStdString());
        const core::InferenceReport want = engineReport(s);
        test::Window w;
        w.load(s);
        const ConcurrencyChart* chart = w.window.memoryTab()->servingView()->concurrencyChart();
        const auto plotted = chart->plotted();
        QVERIFY(plotted.size() >= 4);
        int checked = 0, previous = std::numeric_limits<int>::max();
        for (const auto& p : plotted) {
            QCOMPARE(p.maxConcurrency, core::maxConcurrencyAtContext(s, p.contextLen));
            QVERIFY(p.maxConcurrency >= 1);
            QVERIFY(p.maxConcurrency <= previous); // a longer context never fits more requests
            previous = p.maxConcurrency;
            ++checked;
        }
        // Every context swept is on the line unless not one request fits there.
        for (const auto& p : chart->points())
            QCOMPARE(static_cast<int>(std::count_if(
                         plotted.begin(), plotted.end(), [&](const auto& q) { return q.contextLen == p.contextLen; })),
                p.maxConcurrency >= 1 ? 1 : 0);
        QVERIFY(checked >= 4);
        // The marked point is the scenario's own context and the engine's max concurrency there.
        QCOMPARE(chart->marked().contextLen, want.contextLen);
        QCOMPARE(chart->marked().maxConcurrency, want.maxConcurrency);
        // Halving the context at least doubles what fits (capacity / context, floored).
        const int half = core::maxConcurrencyAtContext(s, want.contextLen / 2);
        QVERIFY(half >= 2 * want.maxConcurrency);
    }

    void statusBarShowsServingLatencyAndThroughput()
    {
        const core::Scenario s = test::presetScenario("serve-405b-fp8-8xh100");
        const core::InferenceReport want = engineReport(s);
        test::Window w;
        w.load(s);
        const QString status = w.window.statusText();
        // Each figure with its range from the serving rows' measured error: "TTFT 32.23 s (32.2-40.3)".
        const auto range = [](double seconds, double low, double high) {
            return QString::fromStdString(core::secondsRangeText(seconds, low, high));
        };
        QVERIFY2(status.contains(QStringLiteral("TTFT %1 · TPOT %2")
                                     .arg(range(want.ttftSeconds, want.ttftLowSeconds, want.ttftHighSeconds),
                                         range(want.tpotSeconds, want.tpotLowSeconds, want.tpotHighSeconds))),
            qPrintable(status));
        QVERIFY(want.tpotLowSeconds < want.tpotSeconds && want.tpotSeconds < want.tpotHighSeconds);
        QVERIFY2(status.contains(QStringLiteral("tokens/s per GPU at %1 requests")
                                     .arg(groupedCount(want.concurrency))
                                     .replace(QStringLiteral(" 1 requests"), QStringLiteral(" 1 request"))),
            qPrintable(status));
        QVERIFY2(
            status.contains(QStringLiteral("KV %1 tokens · %2 requests of %3: %4")
                                .arg(groupedCount(std::floor(want.kvCapacityTokens)), groupedCount(want.maxConcurrency),
                                    groupedCount(want.contextLen), QString::fromLatin1(core::toString(want.verdict)))),
            qPrintable(status));
        QVERIFY(!status.contains(QStringLiteral("MFU")));
        QVERIFY(want.ttftSeconds > 0 && want.tpotSeconds > 0 && want.tokensPerSecondPerGpu > 0);
    }

    // The Schedule tab of a serving scenario says what a decode step is made of (the engine's figures),
    // not "the engine has not run yet".
    void scheduleTabExplainsTheDecodeStep()
    {
        const core::Scenario s = test::presetScenario("serve-dsv3-dpattn-8xh200");
        const core::InferenceReport want = engineReport(s);
        test::Window w;
        w.load(s);
        QString text;
        for (QLabel* l : w.window.scheduleTab()->findChildren<QLabel*>())
            text += l->text() + QLatin1Char('\n');
        QVERIFY2(!text.contains(QStringLiteral("has not run yet")), qPrintable(text));
        QVERIFY2(
            text.contains(QStringLiteral("<b>%1</b> = weights %2")
                              .arg(format::seconds(want.tpotSeconds), format::seconds(want.decode.weightsSeconds))),
            qPrintable(text));
        QVERIFY2(text.contains(format::seconds(want.ttftSeconds)), qPrintable(text));
        // Only the terms the step has: this preset runs without tensor or pipeline parallelism.
        QCOMPARE(want.decode.tpSeconds, 0.0);
        QVERIFY2(!text.contains(QStringLiteral("TP ")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("EP ") + format::seconds(want.decode.epSeconds)), qPrintable(text));
        // No schedules to compare without a training pipeline.
        auto* compare = w.window.scheduleTab()->findChild<QCheckBox*>(QStringLiteral("scheduleCompare"));
        QVERIFY(compare);
        QVERIFY(!compare->isEnabled());
        w.load(test::presetScenario());
        QVERIFY(compare->isEnabled());
    }

    void statusBarShowsTheTrainingStepRangeAndVerdict()
    {
        const core::Scenario s = test::presetScenario();
        const core::Report want = core::evaluate(s);
        QVERIFY(want.stepTimeLowSeconds < want.stepTimeSeconds && want.stepTimeSeconds < want.stepTimeHighSeconds);
        test::Window w;
        w.load(s);
        const QString status = w.window.statusText();
        const QString range = QString::fromStdString(core::stepTimeRangeText(want));
        // "2.36 s (2.2-2.5)": the estimate, then the range of the measured error on published runs.
        QVERIFY2(QRegularExpression(QStringLiteral("^\\d+(\\.\\d+)? m?s \\(\\d+(\\.\\d+)?-\\d+(\\.\\d+)?\\)$"))
                     .match(range)
                     .hasMatch(),
            qPrintable(range));
        QVERIFY2(status.contains(QStringLiteral("Step %1").arg(range)), qPrintable(status));
        const QString memory
            = QStringLiteral("Peak %1 of %2 HBM: %3")
                  .arg(QString::fromStdString(core::peakMemoryRangeText(want)), format::bytes(want.hbmBytes),
                      QString::fromLatin1(core::toString(want.memoryVerdict)));
        QVERIFY2(status.contains(memory), qPrintable(status + QStringLiteral(" / ") + memory));
    }
};

QTEST_MAIN(InferenceTest)
#include "tst_inference.moc"
