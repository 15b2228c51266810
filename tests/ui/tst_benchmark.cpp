// SPDX-License-Identifier: Apache-2.0
// Time from an edit of a 1024-GPU topology to the updated rank map on screen: the undo command,
// the editor's scene rebuild, the engine run off the UI thread, the rank map's layout and paint.
// Goal: under 50 ms.
#include "TestSupport.h"

#include "ui/RankMapView.h"
#include "ui/RecommendationsTab.h"
#include "ui/TopologyEditor.h"

#include <QElapsedTimer>

#include <algorithm>
#include <vector>

using namespace parallax;
using namespace parallax::ui;

class BenchmarkTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::initApplication(); }

    void editOf1024GpuTopologyToRankMap()
    {
        test::Window w;
        w.load(test::presetScenario("guide-70b-1024xh100"));
        QCOMPARE(w.doc()->scenario().topology.gpuCount(), 1024);
        TopologyEditor* editor = w.window.topologyEditor();
        QWidget* canvas = w.window.rankMapView()->canvas();
        int iteration = 0;
        double engineMs = 0;
        double editMs = 0; // undo command: scene rebuild, panels
        double waitMs = 0; // until the result is delivered and the views updated
        double paintMs = 0; // the rank map's paint
        int runs = 0;
        QElapsedTimer phase;
        // Move one GPU from node1 to node0 and back: each drop is one undo step and one engine run.
        auto edit = [&] {
            const bool forward = iteration++ % 2 == 0;
            phase.start();
            QVERIFY(editor->drop(
                { TopologyDrag::Kind::Gpu, {}, forward ? 1 : 0, 0 }, editor->domainScenePos(forward ? 0 : 1)));
            editMs += static_cast<double>(phase.nsecsElapsed()) / 1e6;
            phase.start();
            QVERIFY(w.doc()->waitForEvaluation());
            waitMs += static_cast<double>(phase.nsecsElapsed()) / 1e6;
            phase.start();
            canvas->repaint(); // paints synchronously
            paintMs += static_cast<double>(phase.nsecsElapsed()) / 1e6;
            engineMs += w.doc()->evaluation()->elapsedMilliseconds;
            ++runs;
        };
        QElapsedTimer once;
        once.start();
        edit();
        const double firstMs = static_cast<double>(once.nsecsElapsed()) / 1e6;
        QCOMPARE(w.doc()->evaluation()->report.rankMap.worldSize(), 1024);
        QBENCHMARK
        {
            edit();
        }
        qInfo("edit -> rank map, 1024 GPUs: first %.1f ms; per edit: command %.1f ms, until delivered %.1f ms (engine "
              "%.1f ms of it, off the UI thread), rank map paint %.1f ms; %d runs",
            firstMs, editMs / runs, waitMs / runs, engineMs / runs, paintMs / runs, runs);
        QVERIFY2(firstMs < 1000, "far over the 50 ms goal"); // generous: shared CI machines
    }

    // Time from an edit of a 1024-GPU scenario (its global batch) to the refreshed recommendation
    // shown in the Recommendations tab: the debounce, the whole search off the UI thread, the
    // models' reset. Goal (issue 17): under 100 ms. Printed, not asserted: the machine is shared.
    void editOf1024GpuScenarioToRecommendation()
    {
        test::Window w;
        RecommendationsTab* tab = w.window.recommendationsTab();
        w.load(test::presetScenario("guide-70b-1024xh100"));
        QCOMPARE(w.doc()->scenario().topology.gpuCount(), 1024);
        QTRY_VERIFY_WITH_TIMEOUT(tab->resultGeneration() > 0 && !tab->isSearching() && !tab->refreshPending(), 120000);
        const long long batch = w.doc()->scenario().training.globalBatch;
        std::vector<double> ms;
        for (int i = 0; i < 6; ++i) {
            const std::uint64_t before = tab->resultGeneration();
            QElapsedTimer timer;
            timer.start();
            w.doc()->edit(QStringLiteral("batch"),
                [&](core::Scenario& s) { s.training.globalBatch = i % 2 == 0 ? batch * 2 : batch; });
            // Wakes on each event (the debounce timer, the posted result): QTRY's 50 ms polling would
            // blur the figure.
            while (!(tab->resultGeneration() > before && !tab->isSearching()) && timer.elapsed() < 120000)
                QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
            QVERIFY(tab->resultGeneration() > before);
            ms.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
            QVERIFY(!tab->isStale());
        }
        std::sort(ms.begin(), ms.end());
        qInfo("edit -> refreshed recommendation, 1024 GPUs: min %.1f ms, median %.1f ms over %d edits (debounce %d ms "
              "included; %lld configurations simulated in the last search)",
            ms.front(), ms[ms.size() / 2], static_cast<int>(ms.size()), RecommendationsTab::refreshDelayMs(),
            tab->result()->stats.simulated);
    }
};

QTEST_MAIN(BenchmarkTest)
#include "tst_benchmark.moc"
