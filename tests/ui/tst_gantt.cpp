// SPDX-License-Identifier: Apache-2.0
// The Schedule tab's Gantt: zoom anchored under the mouse (animated), hover, playback and stepping,
// and compare mode stacking several schedules of one scenario.
#include "TestSupport.h"

#include "core/schedule/PipelineSimulator.h"
#include "ui/GanttView.h"
#include "ui/ScheduleTab.h"
#include "ui/render/GanttModel.h"
#include "ui/render/ReportPictures.h"

#include <QApplication>
#include <QMouseEvent>
#include <QTabWidget>
#include <QWheelEvent>

using namespace parallax;
using namespace parallax::ui;

namespace {
// 1F1B with p = 4, m = 8 at unit op times: a small fixed schedule (forward 1, backward 2).
std::shared_ptr<const render::GanttModel> smallSchedule()
{
    core::SimulationInput input;
    input.shape = { core::ScheduleKind::OneFOneB, 4, 8, 1 };
    core::ChunkDurations d;
    d.backwardInput = 2;
    d.backwardWeight = 0;
    input.durations.assign(4, std::vector<core::ChunkDurations>(1, d));
    input.p2pSeconds.assign(4, std::vector<double>(4, 0.0));
    std::vector<render::GanttTrack> tracks { render::ganttTrack(core::simulate(input), input.shape) };
    return std::make_shared<const render::GanttModel>(std::move(tracks));
}

void wheel(QWidget* w, QPointF at, int delta, Qt::KeyboardModifiers modifiers = Qt::NoModifier)
{
    QWheelEvent e(
        at, w->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton, modifiers, Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &e);
}

void moveMouse(QWidget* w, QPointF at)
{
    QMouseEvent e(QEvent::MouseMove, at, w->mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(w, &e);
}
} // namespace

class GanttTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::initApplication(); }

    void wheelZoomKeepsTheTimeUnderTheMouse()
    {
        GanttView view;
        view.resize(1000, 400);
        view.setModel(smallSchedule());
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const double x = view.chartLayout().plot.left() + 0.3 * view.chartLayout().plot.width();
        const double t0 = view.axis().toTime(x);
        const double span0 = view.axis().span();
        const double tolerance = 1e-9 * view.model()->endTime();

        wheel(&view, QPointF(x, 100), 240); // two notches in: x2
        QVERIFY(view.isAnimatingZoom());
        QCOMPARE(view.targetAxis().span(), span0 / 2);
        QVERIFY(std::abs(view.targetAxis().toTime(x) - t0) < tolerance);
        // Mid-animation the anchor holds too (linear interpolation of the view keeps it).
        QTest::qWait(40);
        QVERIFY(std::abs(view.axis().toTime(x) - t0) < tolerance);
        QTRY_VERIFY(!view.isAnimatingZoom());
        QCOMPARE(view.axis().span(), span0 / 2);
        QVERIFY(std::abs(view.axis().toTime(x) - t0) < tolerance);

        // Out again, clamped at the full range; Shift+wheel pans.
        wheel(&view, QPointF(x, 100), -480);
        QTRY_VERIFY(!view.isAnimatingZoom());
        QVERIFY(view.axis().isFullyZoomedOut());
        view.zoomAt(x, 4, false);
        const double start = view.axis().viewStart();
        wheel(&view, QPointF(x, 100), -120, Qt::ShiftModifier);
        QVERIFY(view.axis().viewStart() > start);
        QCOMPARE(view.axis().span(), span0 / 4);
    }

    void hoverFindsTheOpUnderTheCursor()
    {
        GanttView view;
        view.resize(1000, 400);
        view.setModel(smallSchedule());
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const render::GanttModel& m = *view.model();
        // Rank 2's third op.
        const render::OpRef ref { 0, m.rankBegin(0, 2) + 2 };
        const QRectF r = view.renderer()->opRect(view.chartLayout(), view.axis(), ref);
        QVERIFY(r.width() > 4);
        moveMouse(&view, r.center());
        QCOMPARE(view.hoveredOp(), ref);
        const QString tip = view.toolTipAt(r.center());
        QVERIFY2(tip.contains(QStringLiteral("rank 2"), Qt::CaseInsensitive), qPrintable(tip));
        QVERIFY2(tip.contains(QString::number(m.op(ref).microbatch)), qPrintable(tip));
        moveMouse(&view, QPointF(view.chartLayout().plot.left() - 40, r.center().y())); // the label column
        QVERIFY(!view.hoveredOp().valid());
    }

    void playAdvancesTheCursorAndStepMovesToTheNextEvent()
    {
        GanttView view;
        view.resize(1000, 400);
        view.setModel(smallSchedule());
        view.show();
        const double end = view.model()->endTime();
        QCOMPARE(view.cursorTime(), -1.0);

        // Deterministic: one wall second at 1x sweeps 1/kSweepSeconds of the timeline; 4x four times that.
        view.setCursorTime(0);
        view.advance(1.0);
        QVERIFY(std::abs(view.cursorTime() - end / GanttView::kSweepSeconds) < 1e-9);
        view.setSpeed(4);
        view.advance(1.0);
        QVERIFY(std::abs(view.cursorTime() - 5 * end / GanttView::kSweepSeconds) < 1e-9);
        view.setSpeed(100);
        QCOMPARE(view.speed(), 8.0); // clamped to 0.25 .. 8

        // The timer: playing moves the cursor on its own, pause holds it.
        view.setSpeed(1);
        view.setCursorTime(0);
        view.play();
        QVERIFY(view.isPlaying());
        QTRY_VERIFY(view.cursorTime() > 0);
        view.pause();
        const double held = view.cursorTime();
        QTest::qWait(60);
        QCOMPARE(view.cursorTime(), held);

        // Step: from 0 the next event is the end of rank 0's first forward (t = 1).
        view.setCursorTime(0);
        view.stepForward();
        QCOMPARE(view.cursorTime(), 1.0);
        view.stepForward();
        QVERIFY(view.cursorTime() > 1.0);
        view.stepBackward();
        QCOMPARE(view.cursorTime(), 1.0);

        // Ops after the cursor are hidden: nothing to hover there.
        view.setCursorTime(0.5);
        const render::OpRef late { 0, view.model()->rankBegin(0, 3) + 4 };
        const QRectF r = view.renderer()->opRect(view.chartLayout(), view.axis(), late);
        moveMouse(&view, r.center());
        QVERIFY(!view.hoveredOp().valid());

        // Playing to the end stops there.
        view.setCursorTime(end * 0.99);
        view.play();
        QTRY_VERIFY(!view.isPlaying());
        QCOMPARE(view.cursorTime(), end);
    }

    void compareModeStacksTheCheckedSchedules()
    {
        test::Window w;
        w.load(test::presetScenario()); // Llama 3 70B on 64 H100, pp 8
        ScheduleTab* tab = w.window.scheduleTab();
        w.window.tabs()->setCurrentWidget(tab);
        QCOMPARE(tab->gantt()->model()->trackCount(), 1);
        QCOMPARE(tab->gantt()->model()->rankCount(0), w.doc()->scenario().parallel.pp);

        const std::vector<core::ScheduleKind> kinds { core::ScheduleKind::OneFOneB, core::ScheduleKind::Interleaved1F1B,
            core::ScheduleKind::DualPipe };
        tab->setComparedSchedules(kinds);
        tab->setCompareMode(true);
        QVERIFY(tab->comparisonPending()); // evaluated off the UI thread
        QTRY_VERIFY_WITH_TIMEOUT(!tab->comparisonPending(), 60000);
        QCOMPARE(tab->comparison().size(), kinds.size());
        for (const ComparedSchedule& c : tab->comparison())
            QVERIFY2(c.report.valid, qPrintable(c.label + QStringLiteral(": ") + tab->compareStatus()));
        const render::GanttModel* m = tab->gantt()->model();
        QCOMPARE(m->trackCount(), 3);
        QCOMPARE(m->track(0).label, QStringLiteral("1F1B"));
        QVERIFY(m->track(1).label.startsWith(QStringLiteral("interleaved 1F1B")));
        QCOMPARE(m->track(2).label, QStringLiteral("DualPipe"));
        for (int t = 0; t < 3; ++t)
            QVERIFY(m->track(t).peakMemoryBytes > 0); // shown in the lane header with the bubble
        QVERIFY(tab->compareStatus().contains(QStringLiteral("DualPipe</b> step")));
        // One time axis: the model's end is the longest makespan.
        double longest = 0;
        for (const ComparedSchedule& c : tab->comparison())
            longest = std::max(longest, c.report.schedule.makespan);
        QCOMPARE(m->endTime(), longest);

        // Two schedules, then an edit: the comparison follows the scenario.
        tab->setComparedSchedules({ core::ScheduleKind::OneFOneB, core::ScheduleKind::ZbH1 });
        QTRY_VERIFY_WITH_TIMEOUT(!tab->comparisonPending(), 60000);
        QCOMPARE(tab->gantt()->model()->trackCount(), 2);
        w.doc()->edit(QStringLiteral("batch"), [](core::Scenario& s) { s.training.globalBatch *= 2; });
        QVERIFY(w.doc()->waitForEvaluation());
        QTRY_VERIFY_WITH_TIMEOUT(!tab->comparisonPending(), 60000);
        QCOMPARE(tab->comparison().front().scenario.training.globalBatch, w.doc()->scenario().training.globalBatch);

        tab->setCompareMode(false);
        QCOMPARE(tab->gantt()->model()->trackCount(), 1);
    }

    // The tabs' controls must not widen the central area beyond what the docks leave it at the
    // default 1600 px window (topology 470 px, configuration 390 px).
    void tabsLeaveTheDocksTheirWidth()
    {
        test::Window w;
        w.load(test::presetScenario());
        QTabWidget* tabs = w.window.tabs();
        for (int i = 0; i < tabs->count(); ++i) {
            const int width = tabs->widget(i)->minimumSizeHint().width();
            QVERIFY2(width <= 680, qPrintable(QStringLiteral("%1: %2 px").arg(tabs->tabText(i)).arg(width)));
        }
    }
};

QTEST_MAIN(GanttTest)
#include "tst_gantt.moc"
