// SPDX-License-Identifier: Apache-2.0
// The Memory tab's chart: painted by the render library's MemoryChartRenderer with the HBM line,
// hover gives a segment's bytes, and it follows every edit.
#include "TestSupport.h"

#include "core/io/PresetLibrary.h"
#include "ui/Format.h"
#include "ui/MemoryChartWidget.h"
#include "ui/MemoryTab.h"
#include "ui/StageMemoryModel.h"

#include <QApplication>
#include <QMouseEvent>
#include <QTabWidget>

using namespace parallax;
using namespace parallax::ui;

namespace {
// Dark pixels (the dashed HBM line is drawn in the text color) on the rows around `y`, inside the plot.
int darkPixelsAround(const QImage& image, const QRectF& plot, int y)
{
    int dark = 0;
    for (int row = y - 1; row <= y + 1; ++row) {
        for (int x = static_cast<int>(plot.left()); x < static_cast<int>(plot.right()); ++x) {
            const QColor c = image.pixelColor(x, row);
            dark += c.lightness() < 90 ? 1 : 0;
        }
    }
    return dark;
}
} // namespace

class MemoryChartTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::initApplication(); }

    void paintsStagesWithTheHbmLineAndFollowsEdits()
    {
        test::Window w;
        w.load(test::presetScenario()); // Llama 3 70B on 64 H100: tp 8, pp 8, fits
        w.window.tabs()->setCurrentWidget(w.window.memoryTab());
        MemoryChartWidget* chart = w.window.memoryTab()->chart();
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        const auto& report = w.doc()->evaluation()->report;
        QVERIFY(chart->renderer());
        QCOMPARE(chart->renderer()->bars().size(), report.stages.size());
        QCOMPARE(chart->renderer()->hbmBytes(), report.hbmBytes);
        QCOMPARE(w.window.memoryTab()->model()->rowCount(), static_cast<int>(report.stages.size()));

        const QImage image = chart->grab().toImage();
        const auto& layout = chart->chartLayout();
        QVERIFY(layout.plot.width() > 200 && layout.plot.height() > 100);
        const int hbmY = static_cast<int>(std::round(layout.toY(report.hbmBytes)));
        QVERIFY(hbmY > layout.plot.top() && hbmY < layout.plot.bottom());
        const int onLine = darkPixelsAround(image, layout.plot, hbmY);
        const int belowLine = darkPixelsAround(image, layout.plot, (hbmY + static_cast<int>(layout.plot.bottom())) / 2);
        QVERIFY2(onLine > layout.plot.width() * 0.1, qPrintable(QStringLiteral("%1 dark pixels").arg(onLine)));
        QVERIFY(onLine > belowLine);

        // Hover: the top segment of stage 0's bar names its bytes.
        const QRectF bar = layout.bars.at(0);
        const QPointF inBar(bar.center().x(), bar.bottom() - 3); // weights sit at the bottom
        QMouseEvent move(
            QEvent::MouseMove, inBar, chart->mapToGlobal(inBar), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(chart, &move);
        QCOMPARE(chart->hovered().bar, 0);
        QVERIFY(chart->hovered().component >= 0);
        QVERIFY2(chart->toolTipAt(inBar).contains(QStringLiteral("GiB")), qPrintable(chart->toolTipAt(inBar)));

        // An edit: full recompute drops the activations, and the bars follow.
        const double before = chart->renderer()->bars().at(0).bytes[render::MemoryChartRenderer::Activations];
        w.doc()->edit(
            QStringLiteral("recompute"), [](core::Scenario& s) { s.training.recompute = core::Recompute::Full; });
        QVERIFY(w.doc()->waitForEvaluation());
        const auto& after = w.doc()->evaluation()->report;
        const double now = chart->renderer()->bars().at(0).bytes[render::MemoryChartRenderer::Activations];
        QVERIFY(now < before);
        QCOMPARE(now, after.stages.at(0).activationsBytes);
        QCOMPARE(chart->renderer()->bars().at(0).total(), after.stages.at(0).totalBytes());
    }

    // Over capacity: the bar reaches past the HBM line and the summary says by how much.
    void overCapacityIsMarked()
    {
        test::Window w;
        w.window.tabs()->setCurrentWidget(w.window.memoryTab());
        w.load(test::smallCluster(1, 8, 8)); // 70B on one HGX node: does not fit
        const auto& report = w.doc()->evaluation()->report;
        QVERIFY(report.peakMemoryBytes > report.hbmBytes);
        MemoryChartWidget* chart = w.window.memoryTab()->chart();
        QVERIFY(chart->renderer());
        QVERIFY(chart->renderer()->bars().at(0).total() > chart->renderer()->hbmBytes());
        const QString tip = chart->toolTipAt(chart->chartLayout().bars.at(0).topLeft() + QPointF(4, 2));
        QVERIFY2(tip.contains(QStringLiteral("over the HBM")), qPrintable(tip));
    }

    // A mixed cluster: the 48-layer stage on 8 H200s, the rest on 8 H100s. Each bar and table row is
    // measured against its own GPUs' HBM, so the full stage is not drawn or coloured as over capacity.
    void mixedClusterMeasuresEachStageAgainstItsGpus()
    {
        core::Scenario s = test::smallCluster(2, 8, 8);
        s.topology.domains[0].gpu = *core::PresetLibrary::instance().gpu("h200");
        s.parallel.pp = 2;
        s.parallel.dp = 1;
        s.parallel.firstStageLayers = 48;
        s.training.globalBatch = 16;
        s.training.seqLen = 4096;
        s.training.recompute = core::Recompute::Full;
        test::Window w;
        w.window.tabs()->setCurrentWidget(w.window.memoryTab());
        w.load(s);
        const auto& report = w.doc()->evaluation()->report;
        QVERIFY(report.valid);
        QVERIFY(report.fits);
        QVERIFY(report.stages.at(0).totalBytes() > report.stages.at(1).hbmBytes); // more than an H100 holds
        const auto* chart = w.window.memoryTab()->chart()->renderer();
        QVERIFY(chart);
        QVERIFY(!chart->oneCapacity());
        QCOMPARE(chart->hbmBytes(0), report.stages.at(0).hbmBytes);
        QCOMPARE(chart->hbmBytes(1), report.stages.at(1).hbmBytes);
        const StageMemoryModel* table = w.window.memoryTab()->model();
        const QModelIndex full = table->index(0, StageMemoryModel::HbmShare);
        const double share = table->data(full, StageMemoryModel::SortRole).toDouble();
        QVERIFY2(share > 0 && share < 1, qPrintable(QString::number(share)));
        QVERIFY(!table->data(full, StageMemoryModel::OverCapacityRole).toBool());
    }

    // The summary line follows the engine's verdict from its measured error, not the point estimate:
    // DeepSeek-V3's layout is under 80 GB at its estimate but its range straddles HBM.
    void summarySaysTheVerdictWithTheRange()
    {
        const struct {
            const char* preset;
            core::MemoryVerdict verdict;
            const char* words;
        } cases[] = { { "llama3-70b-64xh100", core::MemoryVerdict::Fits, "to spare at the high end" },
            { "deepseek-v3-2048xh800", core::MemoryVerdict::Tight, "tight: the range straddles HBM" },
            { "guide-70b-8xh100", core::MemoryVerdict::DoesNotFit, "does not fit: over by" } };
        for (const auto& c : cases) {
            test::Window w;
            w.load(test::presetScenario(c.preset));
            const auto& r = w.doc()->evaluation()->report;
            QCOMPARE(r.memoryVerdict, c.verdict);
            const QString summary = w.window.memoryTab()->summaryText();
            QVERIFY2(summary.contains(QString::fromLatin1(c.words)), qPrintable(summary));
            QVERIFY2(summary.contains(QStringLiteral("(%1-%2)").arg(
                         format::bytes(r.peakMemoryLowBytes), format::bytes(r.peakMemoryHighBytes))),
                qPrintable(summary));
        }
    }
};

QTEST_MAIN(MemoryChartTest)
#include "tst_memory_chart.moc"
