// SPDX-License-Identifier: Apache-2.0
// File > Export Launch Configuration, File > Import Model / Import Launch Command, and the
// Recommendations tab's Copy Megatron-LM flags: what they write, read and put on the clipboard.
#include "TestSupport.h"

#include "core/model/ModelMath.h"
#include "core/validation/ValidationSuite.h"
#include "ui/CandidateModel.h"
#include "ui/LaunchActions.h"
#include "ui/PresetGallery.h"
#include "ui/RecommendationsTab.h"

#include <QClipboard>
#include <QFile>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QUndoStack>

using namespace parallax;
using namespace parallax::ui;

namespace {
const QString kMegatronLog = QStringLiteral(PARALLAX_SOURCE_DIR "/tests/data/megatron/synthetic-training.log");

// A window on the default design, a temporary directory and a runs-file path inside it: what the log checks use.
struct LogCheck {
    test::Window w;
    QTemporaryDir dir;
    QString runs = dir.filePath(QStringLiteral("runs.json"));
    LogCheck() { w.load(test::presetScenario("llama3-70b-64xh100")); }
};

// Exports `target` through the window into `dir` and says whether the written file holds `line`.
bool exportHolds(test::Window& w, const QTemporaryDir& dir, const QString& target, const QString& line)
{
    const QString path = dir.filePath(target + ".out");
    if (!w.window.exportLaunch(target, path))
        return false;
    QFile f(path);
    return f.open(QIODevice::ReadOnly) && QString::fromUtf8(f.readAll()).contains(line);
}
} // namespace

class LaunchTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::initApplication(); }

    void exportsEachTargetAndReportsUnwritablePaths()
    {
        test::Window w;
        w.load(test::presetScenario("guide-70b-64xh100"));
        QTemporaryDir dir;
        const std::pair<QString, QString> expected[] = { { "megatron", "--pipeline-model-parallel-size 8" },
            { "nemo", "recipe.trainer.strategy.pipeline_model_parallel_size = 8" },
            { "torchtitan", "pipeline_parallel_degree = 8" }, { "slurm", "#SBATCH --nodes=8" } };
        for (const auto& [target, line] : expected)
            QVERIFY2(exportHolds(w, dir, target, line), qPrintable(target));
        QVERIFY(w.errors.isEmpty());
        QVERIFY(!w.window.exportLaunch("megatron", dir.filePath("no/such/folder/x.sh")));
        QCOMPARE(w.errors.size(), 1);
    }

    void servingDesignsExportServingCommandsOnly()
    {
        test::Window w;
        w.load(test::presetScenario("serve-dsv3-dpattn-8xh200"));
        QTemporaryDir dir;
        const std::pair<QString, QString> expected[] = { { "vllm", "--enable-expert-parallel" },
            { "sglang", "--enable-dp-attention" }, { "trtllm", "enable_attention_dp: true" } };
        for (const auto& [target, line] : expected)
            QVERIFY2(exportHolds(w, dir, target, line), qPrintable(target));
        QVERIFY(w.errors.isEmpty());
        // A training launch of a serving design is refused with a message, and nothing is written.
        const QString megatron = dir.filePath("megatron.sh");
        QVERIFY(!w.window.exportLaunch("megatron", megatron));
        QCOMPARE(w.errors.size(), 1);
        QVERIFY(!QFile::exists(megatron));
        QVERIFY(!w.window.exportLaunch("slurm", dir.filePath("benchmark.sbatch")));
        QCOMPARE(w.errors.size(), 2);
        QVERIFY(w.errors.last().contains(QStringLiteral("is for serving")));
    }

    // File > Check Training Log: the synthetic log of tests/data/megatron against the design's prediction,
    // as check-log prints it; a file that is no training log is reported.
    void checkTrainingLogComparesWithThePrediction()
    {
        test::Window w;
        w.load(test::presetScenario("llama3-70b-64xh100"));
        const auto text = w.window.checkTrainingLog(kMegatronLog);
        QVERIFY(text);
        const QString predicted
            = QString::number(w.doc()->evaluation()->report.stepTimeSeconds, 'f', 3) + QStringLiteral(" s");
        QVERIFY2(text->contains(QStringLiteral("measured 72.001 s")), qPrintable(*text));
        QVERIFY2(text->contains(QStringLiteral("predicted ") + predicted), qPrintable(*text));
        QVERIFY(w.errors.isEmpty());
        QVERIFY(!w.window.checkTrainingLog(QStringLiteral(PARALLAX_SOURCE_DIR "/README.md")));
        QCOMPARE(w.errors.size(), 1);
        QVERIFY(w.errors.front().contains(QStringLiteral("is it a training log?")));
    }

    // File > Record Training Log in Runs File: the check, and the run added to the runs file (validate --data
    // reads it back as the design that ran).
    void recordTrainingLogAddsTheRun()
    {
        LogCheck c;
        test::Window& w = c.w;
        const QTemporaryDir& dir = c.dir;
        const QString& runs = c.runs;
        const QString& log = kMegatronLog;
        const auto text = w.window.checkTrainingLog(log, runs);
        QVERIFY(text);
        QVERIFY2(text->contains(QStringLiteral("recorded as \"llama-3-70b-on-64-h100-synthetic-training\"")),
            qPrintable(*text));
        QFile file(runs);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const core::ValidationSummary s = core::runValidation(nlohmann::json::parse(file.readAll().toStdString()));
        QCOMPARE(s.rows.size(), std::size_t { 1 });
        QCOMPARE(s.rows.front().predictedStepSeconds, w.doc()->evaluation()->report.stepTimeSeconds);
        // A runs file that is not one is reported and left as it was.
        const QString scenario = dir.filePath(QStringLiteral("design.json"));
        QVERIFY(QFile::copy(
            QStringLiteral(PARALLAX_SOURCE_DIR "/presets/scenarios/llama3-70b-64xh100.parallax.json"), scenario));
        QVERIFY(!w.window.checkTrainingLog(log, scenario));
        QCOMPARE(w.errors.size(), 1);
        QVERIFY(w.errors.front().contains(QStringLiteral("not a JSON array of run records")));
        QFile original(QStringLiteral(PARALLAX_SOURCE_DIR "/presets/scenarios/llama3-70b-64xh100.parallax.json"));
        QFile kept(scenario);
        QVERIFY(original.open(QIODevice::ReadOnly) && kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), original.readAll());
    }

    // File > Check Training Log's result window offers the record afterwards: cancelling the runs file changes
    // nothing; choosing one records the run, shows the "recorded as" line and disables the button.
    void checkResultOffersTheRecord()
    {
        LogCheck c;
        test::Window& w = c.w;
        const QString& runs = c.runs;
        const QString& log = kMegatronLog;
        const auto checked = w.window.checkTrainingLog(log);
        QVERIFY(checked);
        QString answer;
        std::unique_ptr<QDialog> dialog(PresetGallery::markdownDialog(&w.window, QStringLiteral("check"),
            launch::checkMarkdown(*checked), launch::recordLogAction(&w.window, log, [&answer] { return answer; })));
        auto* button = dialog->findChild<QPushButton*>(QStringLiteral("markdownAction"));
        auto* text = dialog->findChild<QTextBrowser*>(QStringLiteral("markdownText"));
        QVERIFY(button && text);
        QCOMPARE(button->text(), QStringLiteral("Record in Runs File…"));
        QVERIFY(!text->toPlainText().contains(QStringLiteral("recorded as")));
        QVERIFY2(text->toPlainText().contains(QStringLiteral("step time: measured 72.001 s")),
            qPrintable(text->toPlainText()));
        button->click(); // the file chooser cancelled
        QVERIFY(button->isEnabled());
        QVERIFY(!QFile::exists(runs));
        answer = runs;
        button->click();
        QVERIFY(!button->isEnabled());
        QVERIFY2(
            text->toPlainText().contains(QStringLiteral("recorded as \"llama-3-70b-on-64-h100-synthetic-training\"")),
            qPrintable(text->toPlainText()));
        QFile file(runs);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(nlohmann::json::parse(file.readAll().toStdString()).size(), std::size_t { 1 });
        // Without an action the window has only Close.
        std::unique_ptr<QDialog> plain(
            PresetGallery::markdownDialog(&w.window, QStringLiteral("t"), QStringLiteral("x")));
        QVERIFY(!plain->findChild<QPushButton*>(QStringLiteral("markdownAction")));
    }

    void importModelReplacesTheModelAsOneUndoStep()
    {
        test::Window w;
        w.load(test::presetScenario("guide-70b-64xh100"));
        const double before = core::totalParameters(w.doc()->scenario().model);
        QVERIFY(
            w.window.importModelFile(QStringLiteral(PARALLAX_SOURCE_DIR "/tests/data/hf/mixtral-8x7b.config.json")));
        const core::Scenario& s = w.doc()->scenario();
        QVERIFY(s.model.isMoe());
        QCOMPARE(s.model.moe->experts, 8);
        QVERIFY(s.modelPreset.empty());
        QCOMPARE(QString::fromStdString(s.model.name), QStringLiteral("mixtral-8x7b"));
        w.doc()->undoStack()->undo();
        QCOMPARE(core::totalParameters(w.doc()->scenario().model), before);
        QVERIFY(!w.window.importModelFile(QStringLiteral(PARALLAX_SOURCE_DIR "/tests/data/hf/missing.json")));
        QCOMPARE(w.errors.size(), 1);
    }

    void importLaunchCommandBecomesTheScenario()
    {
        test::Window w;
        w.load(test::presetScenario("guide-70b-64xh100"));
        const QString text = QStringLiteral(
            "torchrun --nnodes 8 --nproc-per-node 8 pretrain_gpt.py --num-layers 80 --hidden-size 8192 "
            "--ffn-hidden-size 28672 --num-attention-heads 64 --group-query-attention --num-query-groups 8 "
            "--seq-length 4096 --max-position-embeddings 8192 --vocab-size 128256 --swiglu "
            "--untie-embeddings-and-output-weights --disable-bias-linear --position-embedding-type rope "
            "--attention-dropout 0 --hidden-dropout 0 --tensor-model-parallel-size 4 --pipeline-model-parallel-size 4 "
            "--micro-batch-size 1 --global-batch-size 64 --use-distributed-optimizer --overlap-grad-reduce");
        QVERIFY(w.window.importLaunchText(text));
        const core::Scenario& s = w.doc()->scenario();
        QCOMPARE(s.parallel.tp, 4);
        QCOMPARE(s.parallel.pp, 4);
        QCOMPARE(s.parallel.dp, 4);
        QCOMPARE(s.modelPreset, std::string("llama3-70b")); // the shape matches the preset
        QCOMPARE(s.gpuPreset, std::string("h100-sxm")); // the base scenario's GPU
        QVERIFY(!w.window.importLaunchText(QStringLiteral("--tensor-model-parallel-size 3")));
        QCOMPARE(w.errors.size(), 1);
        QVERIFY(w.errors.front().contains(QStringLiteral("--num-layers is missing")));
    }

    void copiesTheSelectedCandidatesMegatronFlags()
    {
        test::Window w;
        w.load(test::smallClusterWith(1, 8, 8, "llama3-8b", 32));
        RecommendationsTab* tab = w.window.recommendationsTab();
        core::SearchOptions o;
        o.topK = 3;
        o.threads = 2;
        o.limits.maxMicroBatch = 1;
        o.limits.maxVirtualStages = 1;
        tab->setSearchOptions(o);
        tab->startSearch();
        QTRY_VERIFY_WITH_TIMEOUT(!tab->isSearching(), 120000);
        QVERIFY(tab->candidateModel()->rowCount() > 0);
        const core::Candidate* c = tab->candidateModel()->candidate(0);
        QVERIFY(tab->copyCandidateFlags(0));
        const QString copied = QGuiApplication::clipboard()->text();
        QVERIFY(copied.contains(QStringLiteral("--tensor-model-parallel-size %1\n").arg(c->point.tp)));
        QVERIFY(copied.contains(QStringLiteral("--pipeline-model-parallel-size %1\n").arg(c->point.pp)));
        QVERIFY(copied.contains(QStringLiteral("--micro-batch-size %1\n").arg(c->point.microBatch)));
        QVERIFY(!copied.contains(QLatin1Char('#'))); // flags only
        QVERIFY(!tab->copyCandidateFlags(tab->candidateModel()->rowCount())); // no such row
    }
};

QTEST_MAIN(LaunchTest)
#include "tst_launch.moc"
