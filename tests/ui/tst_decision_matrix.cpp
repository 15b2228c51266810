// SPDX-License-Identifier: Apache-2.0
// Tools > Decision Matrix: the guide's summary table filled off the UI thread, with progress and Cancel,
// settings checked field by field, cells that open as scenarios and a Markdown copy.
#include "TestSupport.h"

#include "core/calibration/Calibration.h"
#include "ui/DecisionMatrixDialog.h"
#include "ui/Format.h"

#include <QComboBox>
#include <QLineEdit>
#include <QSettings>
#include <QTableWidget>

using namespace parallax;
using namespace parallax::ui;

namespace {
// Two models on one and two HGX nodes: the 70B on 8 GPUs does not fit, the others do (as in the core test).
core::DecisionMatrixSettings smallMatrix()
{
    core::DecisionMatrixSettings s;
    s.models = { "llama3-8b", "llama3-70b" };
    s.gpuCounts = { 8, 16 };
    s.globalBatch = 64;
    s.seqLen = 2048;
    return s;
}
} // namespace

class DecisionMatrixTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::initApplication(); }

    void opensOnTheGuidesMatrix()
    {
        QSettings().remove(QStringLiteral("decisionMatrix"));
        test::Window w;
        DecisionMatrixDialog* d = w.window.showDecisionMatrix();
        QVERIFY(d && d->isVisible());
        QCOMPARE(w.window.showDecisionMatrix(), d); // one at a time
        QString error;
        const core::DecisionMatrixSettings s = d->settings(&error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const core::DecisionMatrixSettings guide;
        QCOMPARE(s.models, guide.models);
        QCOMPARE(s.gpuCounts, guide.gpuCounts);
        QCOMPARE(s.gpu, guide.gpu);
        QVERIFY(!d->matrix());
    }

    void fillsCellsAndOpensOne()
    {
        test::Window w;
        DecisionMatrixDialog* d = w.window.showDecisionMatrix();
        d->setSettings(smallMatrix());
        d->fill();
        QVERIFY(d->running());
        QTRY_VERIFY_WITH_TIMEOUT(!d->running(), 120000);
        QVERIFY(d->matrix());
        QCOMPARE(d->matrix()->cells.size(), 4u);
        QTableWidget* t = d->table();
        QCOMPARE(t->rowCount(), 2);
        QCOMPARE(t->columnCount(), 2);
        QCOMPARE(t->horizontalHeaderItem(1)->text(), QStringLiteral("16 GPUs"));
        // Each cell shows its engine figures: the recommendation and its step time, or why nothing fits.
        const core::DecisionMatrixCell& fits = d->matrix()->cells[0];
        QVERIFY(fits.recommended && fits.report);
        QVERIFY2(t->item(0, 0)->text().contains(QString::fromStdString(core::describe(*fits.recommended))),
            qPrintable(t->item(0, 0)->text()));
        QVERIFY(t->item(0, 0)->text().contains(format::seconds(fits.report->stepTimeSeconds)));
        QVERIFY2(t->item(1, 0)->text().startsWith(QStringLiteral("nothing fits: the leanest needs")),
            qPrintable(t->item(1, 0)->text()));
        QVERIFY(t->item(1, 0)->text().contains(QStringLiteral("fits with")));

        const QString md = d->markdown();
        QVERIFY2(md.contains(QStringLiteral("| model | 8 GPUs | 16 GPUs |")), qPrintable(md));
        QVERIFY(md.contains(QStringLiteral("| Llama 3 70B | nothing fits")));

        QVERIFY(!d->openCell(1, 0)); // nothing to open where nothing fits
        QVERIFY(d->openCell(0, 1));
        const core::Scenario& opened = w.doc()->scenario();
        QCOMPARE(opened.topology.gpuCount(), 16);
        QCOMPARE(opened.modelPreset, std::string("llama3-8b"));
        QCOMPARE(opened.training.globalBatch, 64);
        QCOMPARE(opened.parallel.tp, d->matrix()->cells[1].recommended->tp);
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(w.doc()->evaluation()->report.valid);

        // The dialog opens again on the last fill's settings.
        d->close();
        QTRY_VERIFY(!w.window.findChild<DecisionMatrixDialog*>());
        const core::DecisionMatrixSettings again = w.window.showDecisionMatrix()->settings();
        QCOMPARE(again.models, smallMatrix().models);
        QCOMPARE(again.gpuCounts, smallMatrix().gpuCounts);
        QCOMPARE(again.globalBatch, 64);
        QCOMPARE(again.seqLen, 2048);
    }

    // A calibration applied while the dialog is open is the one the next fill uses.
    void fillUsesTheCalibrationAppliedSinceOpening()
    {
        test::Window w;
        DecisionMatrixDialog* d = w.window.showDecisionMatrix();
        core::DecisionMatrixSettings one = smallMatrix();
        one.models = { "llama3-8b" };
        one.gpuCounts = { 8 };
        d->setSettings(one);
        d->fill();
        QTRY_VERIFY_WITH_TIMEOUT(!d->running(), 120000);
        QVERIFY(d->matrix()->cells.at(0).report);
        const double datasheet = d->matrix()->cells[0].report->stepTimeSeconds;

        // A probe that measured half the datasheet's GEMM rate on the square 8192 GEMM.
        const core::GpuSpec gpu = *core::PresetLibrary::instance().gpu("h100-sxm");
        auto slow = std::make_shared<core::Calibration>();
        slow->path = "half-gemm.json";
        core::Calibration::GemmPoint g;
        g.m = g.n = g.k = 8192;
        g.flopsPerSecond = gpu.gemmFractionOfPeak * gpu.bf16FlopsPerSecond / 2;
        g.spread = 0.01;
        slow->gemm.push_back(g);
        w.doc()->setCalibration(slow);
        d->fill();
        QTRY_VERIFY_WITH_TIMEOUT(!d->running(), 120000);
        QVERIFY(d->matrix()->cells.at(0).report);
        QVERIFY2(d->matrix()->cells[0].report->stepTimeSeconds > 1.3 * datasheet,
            qPrintable(QStringLiteral("%1 s calibrated vs %2 s datasheet")
                           .arg(d->matrix()->cells[0].report->stepTimeSeconds)
                           .arg(datasheet)));
    }

    void cancelStopsBetweenCells()
    {
        test::Window w;
        DecisionMatrixDialog* d = w.window.showDecisionMatrix();
        d->setSettings(smallMatrix());
        d->fill();
        d->cancel();
        QTRY_VERIFY_WITH_TIMEOUT(!d->running(), 120000);
        QVERIFY2(d->status().startsWith(QStringLiteral("Cancelled")), qPrintable(d->status()));
        QVERIFY(d->matrix()->cells.size() < 4u);
        QVERIFY(d->table()->item(1, 1)->text().contains(QStringLiteral("not searched")));
    }

    void badSettingsNameTheField()
    {
        test::Window w;
        DecisionMatrixDialog* d = w.window.showDecisionMatrix();
        auto* counts = d->findChild<QLineEdit*>(QStringLiteral("gpuCounts"));
        counts->setText(QStringLiteral("8, 12"));
        QString error;
        d->settings(&error);
        QVERIFY2(
            error.startsWith(QStringLiteral("GPU counts: 12 is not a whole number of 8-GPU nodes")), qPrintable(error));
        d->fill();
        QVERIFY(!d->running());
        QCOMPARE(d->status(), error);
        counts->setText(QStringLiteral("8, lots"));
        d->settings(&error);
        QVERIFY2(error.contains(QStringLiteral("“lots”")), qPrintable(error));

        // A GB200 NVL72 rack is one domain of 72: the counts follow it.
        core::DecisionMatrixSettings gb200 = smallMatrix();
        d->setSettings(gb200);
        auto* gpu = d->findChild<QComboBox*>(QStringLiteral("gpu"));
        gpu->setCurrentIndex(gpu->findData(QStringLiteral("gb200")));
        const core::DecisionMatrixSettings s = d->settings(&error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(s.gpusPerNode, 72);
        QCOMPARE(s.gpuCounts, (std::vector<int> { 72, 576, 9216 }));
    }
};

QTEST_MAIN(DecisionMatrixTest)
#include "tst_decision_matrix.moc"
