// SPDX-License-Identifier: Apache-2.0
// Issue 14's new views: compare two designs side by side, the per-GPU detail panel, and the rank
// map at scale (zoom, pan, level of detail, search box).
#include "TestSupport.h"

#include "core/launch/OwnRunRecord.h"
#include "core/search/SearchSpace.h"
#include "core/validation/ServingValidation.h"
#include "core/validation/ValidationSuite.h"
#include "ui/AccuracyDialog.h"
#include "ui/DesignCompareTab.h"
#include "ui/DesignComparisonModel.h"
#include "ui/Format.h"
#include "ui/GanttView.h"
#include "ui/GpuDetailPanel.h"
#include "ui/RankMapSearch.h"
#include "ui/RankMapView.h"
#include "ui/TopologyEditor.h"
#include "ui/TopologyItems.h"
#include "ui/render/GanttModel.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QGraphicsView>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <algorithm>

using namespace parallax;
using namespace parallax::ui;

namespace {
// Llama 3 70B on `gpus` H100 in nodes of eight, tp=8, pp=8 or 1, dp the rest.
core::Scenario atScale(int nodes)
{
    core::Scenario s = test::presetScenario();
    s.topology = core::Topology::regular(*core::PresetLibrary::instance().gpu("h100-sxm"), nodes, 8, 400);
    edits::normalizeCluster(s);
    s.parallel.pp = nodes >= 8 ? 8 : 1;
    s.parallel.vpp = s.parallel.pp > 1 ? 2 : 1;
    s.parallel.dp = nodes * 8 / (s.parallel.tp * s.parallel.pp);
    s.training.globalBatch = s.parallel.dp * 16;
    return s;
}

int rowOf(const DesignComparisonModel* m, const QString& metric)
{
    for (int r = 0; r < m->rowCount(); ++r)
        if (m->data(m->index(r, DesignComparisonModel::Metric)).toString().trimmed() == metric)
            return r;
    return -1;
}
} // namespace

class NewViewsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::initApplication(); }

    // Pin A, edit into B (TP8 PP8 -> TP2 CP4 PP8): figures side by side with the differences
    // marked, both schedules on one time axis, and an export for a review.
    void compareTwoDesigns()
    {
        test::Window w;
        w.load(test::presetScenario());
        DesignCompareTab* tab = w.window.compareTab();
        QVERIFY(tab);
        QAbstractItemModelTester tester(tab->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        tab->pinCurrent();
        QVERIFY(tab->hasPin());
        const EvaluationPtr a = w.doc()->evaluation();
        w.doc()->edit(QStringLiteral("B"), [](core::Scenario& s) {
            s.parallel.tp = 2;
            s.parallel.cp = 4;
        });
        QVERIFY(w.doc()->waitForEvaluation());
        const EvaluationPtr b = w.doc()->evaluation();
        QVERIFY(b->report.valid);
        const DesignComparisonModel* m = tab->model();
        QCOMPARE(m->designA(), a);
        QCOMPARE(m->designB(), b);
        QVERIFY(m->headerData(DesignComparisonModel::A, Qt::Horizontal, Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("TP=8")));
        QVERIFY(m->headerData(DesignComparisonModel::B, Qt::Horizontal, Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("CP=4")));
        const int step = rowOf(m, QStringLiteral("Step time"));
        QVERIFY(step >= 0);
        QCOMPARE(
            m->data(m->index(step, DesignComparisonModel::A)).toString(), format::seconds(a->report.stepTimeSeconds));
        QCOMPARE(
            m->data(m->index(step, DesignComparisonModel::B)).toString(), format::seconds(b->report.stepTimeSeconds));
        QVERIFY(m->data(m->index(step, 0), DesignComparisonModel::DiffersRole).toBool());
        const int better = m->data(m->index(step, 0), DesignComparisonModel::BetterRole).toInt();
        QCOMPARE(better, b->report.stepTimeSeconds < a->report.stepTimeSeconds ? 1 : -1);
        // Memory per stage, one row each.
        for (std::size_t s = 0; s < a->report.stages.size(); ++s)
            QVERIFY(rowOf(m, QStringLiteral("memory, stage %1").arg(s)) >= 0);
        // TP communication differs (tp 8 -> 2), the MFU row is there.
        QVERIFY(m->data(m->index(rowOf(m, QStringLiteral("TP communication")), 0), DesignComparisonModel::DiffersRole)
                    .toBool());
        QVERIFY(tab->verdictText().contains(QStringLiteral("B runs a step")));
        // One Gantt model with two lanes: one time axis for both.
        QVERIFY(tab->ganttModel());
        QCOMPARE(tab->ganttModel()->trackCount(), 2);
        QCOMPARE(tab->ganttModel()->endTime(), std::max(a->report.schedule.makespan, b->report.schedule.makespan));

        QTemporaryDir dir;
        QStringList written;
        QString error;
        QVERIFY2(tab->exportComparison(dir.path(), QStringLiteral("review"), &written, &error), qPrintable(error));
        QCOMPARE(written.size(), 2);
        QFile md(dir.filePath(QStringLiteral("review-comparison.md")));
        QVERIFY(md.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(md.readAll());
        QVERIFY(text.contains(QStringLiteral("**Step time**")));
        QVERIFY(text.contains(QStringLiteral("review-comparison-gantt.svg")));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("review-comparison-gantt.svg"))));

        // Same GPU count on another GPU: the comparison follows (B on H200).
        w.doc()->edit(QStringLiteral("H200"), [](core::Scenario& s) {
            for (auto& d : s.topology.domains)
                d.gpu = *core::PresetLibrary::instance().gpu("h200");
        });
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(m->headerData(DesignComparisonModel::B, Qt::Horizontal, Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("H200")));
    }

    // Click a GPU (rank map or topology): its rank, every group with members and links, memory,
    // busy and idle time.
    void gpuDetailPanelShowsEverythingAboutOneGpu()
    {
        test::Window w;
        w.load(test::presetScenario()); // TP8 PP8 on 8 x 8 H100: rank r on GPU r
        RankMapView* map = w.window.rankMapView();
        map->clickGpu(13);
        GpuDetailPanel* panel = map->detailPanel();
        QCOMPARE(panel->gpu(), 13);
        const QString text = panel->plainText();
        const auto& report = w.doc()->evaluation()->report;
        const core::RankCoords& c = report.rankMap.coords(13);
        QVERIFY2(text.contains(QStringLiteral("Rank 13")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("pp %1").arg(c.pp)));
        QVERIFY2(
            text.contains(QStringLiteral("TP group 1: ranks 8–15 (8 ranks); NVLink inside node1")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("PP group")) && text.contains(QStringLiteral("crosses InfiniBand")),
            qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("DP group")));
        QVERIFY(text.contains(QStringLiteral("Memory on this GPU (pipeline stage %1").arg(c.pp)));
        QVERIFY(text.contains(format::bytes(report.stages[static_cast<std::size_t>(c.pp)].totalBytes())));
        QVERIFY(text.contains(QStringLiteral("busy ")) && text.contains(QStringLiteral("idle ")));
        QVERIFY(text.contains(format::seconds(report.schedule.busySecondsPerRank[static_cast<std::size_t>(c.pp)])));

        // A click on a GPU cell in the topology editor shows the same panel for that GPU.
        TopologyEditor* editor = w.window.topologyEditor();
        auto* view = editor->findChild<QGraphicsView*>();
        DomainItem* node2 = nullptr;
        for (QGraphicsItem* item : view->scene()->items())
            if (auto* d = qgraphicsitem_cast<DomainItem*>(item); d && d->domainIndex() == 2)
                node2 = d;
        QVERIFY(node2);
        editor->selectAt(node2->mapToScene(node2->gpuCenter(3)));
        QCOMPARE(panel->gpu(), 2 * 8 + 3);
        QCOMPARE(GpuDetailPanel::rankList({ 0, 8, 16, 24, 32, 40, 48, 56, 64, 72 }),
            QStringLiteral("0, 8, 16, 24, …, 72, every 8 (10 ranks)"));
    }

    // 1024 and 16,384 GPUs: zoom (anchored, clamped), pan, level of detail, and the search box.
    void rankMapAtScale()
    {
        for (int nodes : { 128, 2048 }) {
            test::Window w;
            w.load(atScale(nodes));
            RankMapView* map = w.window.rankMapView();
            w.window.tabs()->setCurrentWidget(map);
            QApplication::processEvents();
            QCOMPARE(map->mapLayout().cells.size(), std::size_t(nodes * 8));
            const double fitted = map->mapLayout().cellSize;
            const QSize fittedCanvas = map->canvas()->size();
            map->setZoom(4);
            QApplication::processEvents();
            QCOMPARE(map->zoom(), 4.0);
            QVERIFY2(map->mapLayout().cellSize > fitted * 2,
                qPrintable(QStringLiteral("%1 -> %2").arg(fitted).arg(map->mapLayout().cellSize)));
            QVERIFY(map->canvas()->width() > fittedCanvas.width() * 2); // pans: wider than the view
            QVERIFY(map->scrollArea()->horizontalScrollBar()->maximum() > 0);
            map->setZoom(1000);
            QCOMPARE(map->zoom(), RankMapView::kMaxZoom);
            map->setZoom(0.1);
            QCOMPARE(map->zoom(), 1.0);

            // Search: a rank, a domain, nonsense.
            QVERIFY(map->find(QStringLiteral("rank 517")));
            QCOMPARE(map->foundGpus(), std::vector<int> { 517 });
            QCOMPARE(map->detailPanel()->gpu(), 517);
            QVERIFY(map->cellRect(517).width() >= 15); // zoomed until the cell can be seen
            const QRect visible(QPoint(map->scrollArea()->horizontalScrollBar()->value(),
                                    map->scrollArea()->verticalScrollBar()->value()),
                map->scrollArea()->viewport()->size());
            QVERIFY(visible.intersects(map->cellRect(517).toAlignedRect()));
            QVERIFY(map->find(QStringLiteral("node77")));
            QCOMPARE(map->foundGpus().size(), std::size_t(8));
            QCOMPARE(map->foundGpus().front(), 77 * 8);
            QVERIFY(!map->find(QStringLiteral("rack nine")));
            QVERIFY(map->foundGpus().empty());
            // Typed into the box.
            auto* box = map->findChild<QLineEdit*>(QStringLiteral("rankMapSearch"));
            box->setText(QStringLiteral("gpu 1000"));
            QTest::keyClick(box, Qt::Key_Return);
            QCOMPARE(map->foundGpus(), std::vector<int> { 1000 });
        }
        const core::Topology t = core::Topology::regular(*core::PresetLibrary::instance().gpu("h100-sxm"), 2, 8, 400);
        QVERIFY(!findInRankMap(QStringLiteral("rank 16"), t, 16).found());
        QVERIFY(findInRankMap(QStringLiteral("rank 16"), t, 16).error.contains(QStringLiteral("0 to 15")));
        QCOMPARE(findInRankMap(QStringLiteral("NODE1"), t, 16).gpus.front(), 8);
        QCOMPARE(findInRankMap(QStringLiteral("5"), t, 16).gpus.front(), 5);
    }

    // Help > Accuracy on Published Runs: the engine against the training file compiled into the app, the
    // same rows and families as core::runValidation on data/published_runs_train.json, the design's family
    // marked, a family's runs listed, and a run opened as the design.
    void accuracyDialogShowsTheValidation()
    {
        QFile file(QStringLiteral(PARALLAX_SOURCE_DIR "/data/published_runs_train.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const core::ValidationSummary direct = core::runValidation(nlohmann::json::parse(file.readAll().toStdString()));
        test::Window w;
        w.load(test::presetScenario());
        AccuracyDialog* d = w.window.showAccuracy();
        QTRY_VERIFY_WITH_TIMEOUT(d->finished(), 60000);
        QCOMPARE(w.window.showAccuracy(), d); // one dialog, raised again
        QCOMPARE(d->runTable()->rowCount(), static_cast<int>(direct.rows.size()));
        QCOMPARE(d->familyTable()->rowCount(),
            static_cast<int>(direct.perFamily.size() + direct.familiesNotCompared.size()));
        QVERIFY2(d->headline().contains(format::percent(direct.stepTime.meanAbs)), qPrintable(d->headline()));
        // The serving figures beside them, as validate --serving gives them.
        QFile servingFile(QStringLiteral(PARALLAX_SOURCE_DIR "/data/published_serving.json"));
        QVERIFY(servingFile.open(QIODevice::ReadOnly));
        const core::ServingValidationSummary serving
            = core::runServingValidation(nlohmann::json::parse(servingFile.readAll().toStdString()));
        QCOMPARE(d->servingTable()->rowCount(), static_cast<int>(serving.rows.size()));
        QVERIFY2(d->headline().contains(format::percent(serving.all.meanAbs)), qPrintable(d->headline()));
        // The default design (Llama 3 70B on H100) is of the H100 dense family: marked, with its figures.
        const auto marked = [d] {
            for (int r = 0; r < d->familyTable()->rowCount(); ++r)
                if (d->familyTable()->item(r, 0)->text().contains(QStringLiteral("(this design)")))
                    return r;
            return -1;
        };
        QVERIFY(marked() >= 0);
        QCOMPARE(
            d->familyTable()->item(marked(), 0)->data(Qt::UserRole).toString(), QStringLiteral("h100-sxm x dense"));
        QCOMPARE(d->familyTable()->item(marked(), 2)->text(),
            format::percent(direct.perFamily.at("h100-sxm x dense").meanAbs));
        // Its bias and its weak-scaling trend, as validate prints them, and the GPU counts its runs span.
        const core::FamilyTrend& trend = direct.familyTrends.at("h100-sxm x dense");
        QCOMPARE(d->familyTable()->item(marked(), 1)->text(),
            QStringLiteral("%1 (%2-%3 GPUs)").arg(trend.rows).arg(trend.rowsFewestGpus).arg(trend.rowsMostGpus));
        QVERIFY(trend.series > 0);
        QCOMPARE(d->familyTable()->item(marked(), 6)->data(Qt::UserRole).toDouble(), trend.meanSignedError);
        QVERIFY2(d->familyTable()
                     ->item(marked(), 7)
                     ->text()
                     .startsWith(QString::asprintf("%+.2f (%d series", 100 * trend.slopePerDoubling, trend.series)),
            qPrintable(d->familyTable()->item(marked(), 7)->text()));
        // A family's runs only.
        // Sorted by the size of the error: the worst run first.
        const auto worst = std::max_element(
            direct.rows.begin(), direct.rows.end(), [](const core::ValidationRow& a, const core::ValidationRow& b) {
                return std::abs(a.error) < std::abs(b.error);
            });
        QCOMPARE(d->runTable()->item(0, 0)->text(), QString::fromStdString(worst->run.id));
        d->filterRuns(QStringLiteral("gb200 x dense"));
        int shown = 0;
        int gb200Row = -1;
        for (int r = 0; r < d->runTable()->rowCount(); ++r) {
            if (!d->runTable()->isRowHidden(r)) {
                ++shown;
                gb200Row = r;
            }
        }
        QCOMPARE(shown, direct.perFamily.at("gb200 x dense").count);
        // Opened as the design: the run's scenario, as the engine read it.
        d->runTable()->selectRow(gb200Row);
        const QString id = d->runTable()->item(gb200Row, 0)->text();
        d->openSelectedRun();
        QVERIFY(w.doc()->waitForEvaluation());
        const auto run = std::find_if(direct.rows.begin(), direct.rows.end(),
            [&](const core::ValidationRow& row) { return QString::fromStdString(row.run.id) == id; });
        QVERIFY(run != direct.rows.end());
        QCOMPARE(test::serialized(w.doc()->scenario()), test::serialized(run->run.scenario));
        QCOMPARE(w.doc()->evaluation()->report.stepTimeFamily, std::string("gb200 x dense"));
        // The status bar's design now is a GB200 one: the dialog marks that family.
        QTRY_COMPARE(d->familyTable()->item(std::max(0, marked()), 0)->data(Qt::UserRole).toString(),
            QStringLiteral("gb200 x dense"));
        QVERIFY(w.errors.isEmpty());
    }

    // Help > Accuracy > Your Runs File…: a runs file check-log --record wrote, evaluated apart from the published
    // runs, each run opening as the design it ran as.
    void accuracyDialogShowsYourRuns()
    {
        QTemporaryDir dir;
        const std::string runs = dir.filePath(QStringLiteral("runs.json")).toStdString();
        QFile log(QStringLiteral(PARALLAX_SOURCE_DIR "/tests/data/megatron/synthetic-training.log"));
        QVERIFY(log.open(QIODevice::ReadOnly));
        std::string error;
        const auto check = core::checkTrainingLog(
            test::presetScenario("llama3-70b-64xh100"), log.readAll().toStdString(), 2, {}, error);
        QVERIFY2(check, error.c_str());
        const nlohmann::json record = core::ownRunRecord(*check, "run-17.out", "2026-12-06");
        QVERIFY2(core::addRunRecord(runs, record, error), error.c_str());

        test::Window w;
        w.load(test::presetScenario("deepseek-v3-2048xh800"));
        AccuracyDialog* d = w.window.showAccuracy();
        QTRY_VERIFY_WITH_TIMEOUT(d->finished(), 60000);
        const int published = d->runTable()->rowCount();
        QVERIFY(
            !d->loadOwnRuns(QStringLiteral(PARALLAX_SOURCE_DIR "/presets/scenarios/llama3-70b-64xh100.parallax.json")));
        QVERIFY2(d->ownHeadline().contains(QStringLiteral("is not a runs file")), qPrintable(d->ownHeadline()));
        QVERIFY(d->loadOwnRuns(QString::fromStdString(runs)));
        QTRY_VERIFY_WITH_TIMEOUT(d->ownRunsShown(), 30000);
        QCOMPARE(d->ownRunTable()->rowCount(), 1);
        QCOMPARE(d->ownRunTable()->item(0, 0)->text(), QString::fromStdString(record["id"].get<std::string>()));
        QCOMPARE(d->ownRunTable()->item(0, 5)->text(), format::percent(check->comparison.stepError));
        QVERIFY2(d->ownHeadline().contains(
                     QStringLiteral("h100-sxm x dense: ") + format::percent(std::abs(check->comparison.stepError))),
            qPrintable(d->ownHeadline()));
        QCOMPARE(d->runTable()->rowCount(), published); // the published runs stay apart
        d->ownRunTable()->selectRow(0);
        d->openSelectedRun();
        QVERIFY(w.doc()->waitForEvaluation());
        QCOMPARE(test::serialized(w.doc()->scenario()), test::serialized(check->run));
        QVERIFY(w.errors.isEmpty());
    }
};

QTEST_MAIN(NewViewsTest)
#include "tst_new_views.moc"
