// SPDX-License-Identifier: Apache-2.0
// Painting one frame of the Schedule tab's Gantt widget with 100k+ ops (interleaved 1F1B, p = 32,
// v = 2, m = 800: 102,400 ops), fully zoomed out (every op folds into per-pixel-column bars) and
// deeply zoomed in (a few labelled ops per row), with the animation cursor mid-way. Goal: < 16 ms.
#include "TestSupport.h"

#include "core/schedule/PipelineSimulator.h"
#include "ui/GanttView.h"
#include "ui/render/GanttModel.h"
#include "ui/render/ReportPictures.h"

using namespace parallax;
using namespace parallax::ui;

namespace {
std::shared_ptr<const render::GanttModel> bigModel()
{
    core::SimulationInput input;
    input.shape = { core::ScheduleKind::Interleaved1F1B, 32, 800, 2 };
    core::ChunkDurations d;
    d.backwardInput = 2;
    d.backwardWeight = 0;
    input.durations.assign(32, std::vector<core::ChunkDurations>(2, d));
    input.p2pSeconds.assign(32, std::vector<double>(32, 0.05));
    std::vector<render::GanttTrack> tracks { render::ganttTrack(core::simulate(input), input.shape) };
    return std::make_shared<const render::GanttModel>(std::move(tracks));
}
} // namespace

class GanttBenchmarkTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        test::initApplication();
        m_model = bigModel();
        QVERIFY(m_model->opCount() >= 100000);
    }

    void paintFrame_data()
    {
        QTest::addColumn<double>("visibleFraction");
        QTest::newRow("zoomed out") << 1.0;
        QTest::newRow("zoomed in (1/1000)") << 1e-3;
    }

    void paintFrame()
    {
        QFETCH(double, visibleFraction);
        GanttView view;
        view.resize(1920, 1080);
        view.setModel(m_model);
        const double end = m_model->endTime();
        const double mid = end / 2;
        view.setView(mid - visibleFraction * end / 2, mid + visibleFraction * end / 2, false);
        view.setCursorTime(mid + visibleFraction * end / 4);
        QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
        // One frame as the widget paints it (paintEvent) into an offscreen image; QtTest reports the
        // milliseconds per iteration ("RESULT").
        QBENCHMARK
        {
            view.render(&image);
        }
    }

private:
    std::shared_ptr<const render::GanttModel> m_model;
};

QTEST_MAIN(GanttBenchmarkTest)
#include "tst_gantt_benchmark.moc"
