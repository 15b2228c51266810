// SPDX-License-Identifier: Apache-2.0
// The Probe tab with a stand-in probe (tests/ui/fake-probe.sh): a run that writes a calibration,
// the no-GPU exit 3 with its one line, Cancel, loading a file, and applying it to the engine.
#include "TestSupport.h"

#include "ui/CalibrationModel.h"
#include "ui/ProbeTab.h"

#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QUndoStack>

using namespace parallax;
using namespace parallax::ui;

class ProbeTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        test::initApplication();
        QVERIFY2(QFileInfo(QStringLiteral(PARALLAX_FAKE_PROBE)).isExecutable(), PARALLAX_FAKE_PROBE);
    }
    void cleanup() { qunsetenv("FAKE_PROBE_MODE"); }

    void runLoadsTheCalibrationAndApplyingItCalibratesTheEngine()
    {
        test::Window w;
        w.load(test::presetScenario());
        ProbeTab* tab = w.window.probeTab();
        QAbstractItemModelTester tester(tab->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(!w.window.statusText().contains(QStringLiteral("calibrated")));
        const double datasheetStep = w.doc()->evaluation()->report.stepTimeSeconds;

        tab->setProbePath(QStringLiteral(PARALLAX_FAKE_PROBE));
        const QStringList args = tab->probeArguments(QStringLiteral("/tmp/x.json"));
        QVERIFY(args.contains(QStringLiteral("--out")));
        QCOMPARE(args.at(args.indexOf(QStringLiteral("--hidden")) + 1), QStringLiteral("8192"));
        QCOMPARE(args.at(args.indexOf(QStringLiteral("--tp")) + 1), QStringLiteral("8"));

        QVERIFY(tab->runProbe());
        QVERIFY(tab->isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(!tab->isRunning(), 20000);
        QVERIFY2(tab->calibration(), qPrintable(tab->statusText()));
        QVERIFY(tab->outputLineCount() >= 5);
        QVERIFY(tab->currentLine().contains(QStringLiteral("wrote")));
        QCOMPARE(
            QString::fromStdString(tab->calibration()->gpuName), QStringLiteral("NVIDIA H100 80GB HBM3 (fake probe)"));
        // Measured beside the datasheet: bf16 GEMM against the H100's 989 TFLOP/s.
        QVERIFY(tab->model()->rowCount() >= 4);
        const QModelIndex gemm = tab->model()->index(0, CalibrationModel::Ratio);
        const double ratio = tab->model()->data(gemm, CalibrationModel::ValueRole).toDouble();
        QVERIFY2(ratio > 0.55 && ratio < 0.7, qPrintable(QString::number(ratio))); // 612.3 / 989.4
        QVERIFY(!tab->isApplied()); // loading does not apply

        tab->setApplied(true);
        QVERIFY(w.doc()->calibration());
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(w.doc()->evaluation()->calibration);
        QVERIFY(!w.doc()->evaluation()->report.calibrated.empty());
        QVERIFY2(w.window.statusText().contains(QStringLiteral("calibrated")), qPrintable(w.window.statusText()));
        QVERIFY(w.doc()->evaluation()->report.stepTimeSeconds != datasheetStep);

        tab->setApplied(false);
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(!w.doc()->evaluation()->calibration);
        QCOMPARE(w.doc()->evaluation()->report.stepTimeSeconds, datasheetStep);
        QVERIFY(!w.window.statusText().contains(QStringLiteral("calibrated")));
    }

    void noDeviceShowsTheProbesOneLine()
    {
        test::Window w;
        w.load(test::presetScenario());
        ProbeTab* tab = w.window.probeTab();
        tab->setProbePath(QStringLiteral(PARALLAX_FAKE_PROBE));
        qputenv("FAKE_PROBE_MODE", "nodevice");
        QVERIFY(tab->runProbe());
        QTRY_VERIFY_WITH_TIMEOUT(!tab->isRunning(), 20000);
        QCOMPARE(tab->statusText(), QStringLiteral("no CUDA device found: using datasheet numbers"));
        QVERIFY(!tab->calibration());
        QCOMPARE(tab->model()->rowCount(), 0);
        QVERIFY(!w.doc()->calibration());
    }

    void cancelKillsTheProbe()
    {
        test::Window w;
        w.load(test::presetScenario());
        ProbeTab* tab = w.window.probeTab();
        tab->setProbePath(QStringLiteral(PARALLAX_FAKE_PROBE));
        qputenv("FAKE_PROBE_MODE", "slow");
        QVERIFY(tab->runProbe());
        QTRY_VERIFY_WITH_TIMEOUT(tab->outputLineCount() >= 1, 20000); // the current line is shown as it comes
        QVERIFY(tab->currentLine().contains(QStringLiteral("fake probe")));
        tab->cancelProbe();
        QTRY_VERIFY_WITH_TIMEOUT(!tab->isRunning(), 5000);
        QVERIFY(tab->statusText().startsWith(QStringLiteral("Cancelled")));
        QVERIFY(!tab->calibration());
    }

    void loadingAFileMadeElsewhere()
    {
        test::Window w;
        w.load(test::presetScenario());
        ProbeTab* tab = w.window.probeTab();
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("bad.json"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format": "parallax-calibration", "version": 1, "date": "x", "gpu": {"name": "G"}, "typo": 1})");
        f.close();
        QVERIFY(!tab->loadCalibrationFile(bad));
        QVERIFY2(tab->statusText().contains(QStringLiteral("typo")), qPrintable(tab->statusText()));
        QVERIFY(!tab->calibration());
        QVERIFY(!tab->loadCalibrationFile(dir.filePath(QStringLiteral("missing.json"))));

        // The probe's own output format, written by the stand-in.
        const QString good = dir.filePath(QStringLiteral("good.json"));
        QProcess probe;
        probe.start(QStringLiteral(PARALLAX_FAKE_PROBE), { QStringLiteral("--out"), good });
        QVERIFY(probe.waitForFinished(10000));
        QVERIFY(tab->loadCalibrationFile(good));
        QVERIFY(tab->calibration());
        tab->setApplied(true);
        QVERIFY(tab->isApplied());
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(w.window.statusText().contains(QStringLiteral("calibrated")));
    }

    // Issue 16: each hostile calibration file (they aborted the GUI or overflowed its stack) is
    // refused with the file and the field named, and the applied calibration and the edited
    // scenario, undo stack included, stay as they were.
    void badCalibrationFileLeavesTheAppliedOneAndTheWork_data()
    {
        QTest::addColumn<QString>("file"); // under tests/fuzz/corpus/calibration, or a path
        QTest::addColumn<QString>("named");
        QTest::newRow("number beyond double")
            << QStringLiteral("regression-1e400.json") << QStringLiteral("outside the range of a double");
        QTest::newRow("deep nesting") << QStringLiteral("regression-deep.json")
                                      << QStringLiteral("nesting deeper than 64 levels");
        QTest::newRow("buffer beyond 2^53")
            << QStringLiteral("regression-buffer-1e72.json") << QStringLiteral("hbm.buffer_bytes");
        QTest::newRow("device") << QStringLiteral("/dev/zero") << QStringLiteral("is a device");
        QTest::newRow("directory") << QStringLiteral(PARALLAX_SOURCE_DIR "/presets")
                                   << QStringLiteral("is a directory");
    }

    void badCalibrationFileLeavesTheAppliedOneAndTheWork()
    {
        QFETCH(QString, file);
        QFETCH(QString, named);
        test::Window w;
        w.load(test::presetScenario());
        ProbeTab* tab = w.window.probeTab();
        QTemporaryDir dir;
        const QString good = dir.filePath(QStringLiteral("good.json"));
        QProcess probe;
        probe.start(QStringLiteral(PARALLAX_FAKE_PROBE), { QStringLiteral("--out"), good });
        QVERIFY(probe.waitForFinished(10000));
        QVERIFY(tab->loadCalibrationFile(good));
        tab->setApplied(true);
        const auto applied = w.doc()->calibration();
        QVERIFY(applied);
        w.doc()->edit(QStringLiteral("unsaved work"), [](core::Scenario& s) { s.parallel.zero = 3; });
        const QString before = test::serialized(w.doc()->scenario());
        const int undoSteps = w.doc()->undoStack()->count();

        const QString path = file.startsWith(QLatin1Char('/'))
            ? file
            : QStringLiteral(PARALLAX_SOURCE_DIR "/tests/fuzz/corpus/calibration/") + file;
        QVERIFY(!tab->loadCalibrationFile(path));
        QVERIFY2(tab->statusText().contains(QFileInfo(path).fileName()), qPrintable(tab->statusText()));
        QVERIFY2(tab->statusText().contains(named), qPrintable(tab->statusText()));
        QCOMPARE(tab->calibration(), applied);
        QCOMPARE(w.doc()->calibration(), applied);
        QVERIFY(tab->isApplied());
        QCOMPARE(test::serialized(w.doc()->scenario()), before);
        QCOMPARE(w.doc()->undoStack()->count(), undoSteps);
        QVERIFY(w.doc()->isModified());
    }
};

QTEST_MAIN(ProbeTest)
#include "tst_probe.moc"
