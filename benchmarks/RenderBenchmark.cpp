// SPDX-License-Identifier: Apache-2.0
// Painting one frame of a 100k-op Gantt into an offscreen QImage, fully zoomed out (every op
// folds into per-pixel-column bars) and deeply zoomed in (a few dozen labelled ops per row), plus
// a mid zoom where ops are 3-6 px wide (the most individual rects) and the model build.
// Goal (issue 6): < 16 ms per frame. Run: parallax_render_benchmarks (QT_QPA_PLATFORM=offscreen
// is set when unset).
#include "core/schedule/PipelineSimulator.h"
#include "ui/render/GanttRenderer.h"
#include "ui/render/ReportPictures.h"

#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <benchmark/benchmark.h>

#include <memory>

namespace {

using parallax::core::ScheduleKind;
using namespace parallax::render;

// Interleaved 1F1B, p = 32, v = 2, m = 800: 102,400 ops over 32 rows.
std::shared_ptr<const GanttModel> bigModel()
{
    static const std::shared_ptr<const GanttModel> model = [] {
        parallax::core::SimulationInput input;
        input.shape = { ScheduleKind::Interleaved1F1B, 32, 800, 2 };
        parallax::core::ChunkDurations d;
        d.backwardInput = 2;
        d.backwardWeight = 0;
        input.durations.assign(32, std::vector<parallax::core::ChunkDurations>(2, d));
        input.p2pSeconds.assign(32, std::vector<double>(32, 0.05));
        std::vector<GanttTrack> tracks { ganttTrack(parallax::core::simulate(input), input.shape) };
        return std::make_shared<const GanttModel>(std::move(tracks));
    }();
    return model;
}

// state.range(0): visible fraction of the timeline in parts per million (1e6 = zoomed out).
void BM_GanttFrame(benchmark::State& state)
{
    const GanttRenderer renderer(bigModel());
    QImage image(1920, 1080, QImage::Format_ARGB32_Premultiplied);
    const GanttOptions options;
    const GanttLayout layout = renderer.layout(QRectF(0, 0, 1920, 1080), options);
    TimeAxis axis = renderer.initialAxis(layout);
    const double span = axis.span() * static_cast<double>(state.range(0)) / 1e6;
    const double mid = 0.5 * (axis.fullStart() + axis.fullEnd());
    axis.setView(mid - span / 2, mid + span / 2);
    for (auto _ : state) {
        image.fill(Qt::white);
        QPainter p(&image);
        renderer.paint(p, layout, axis, options);
        p.end();
        benchmark::DoNotOptimize(image.constBits());
    }
    state.counters["ops"] = static_cast<double>(renderer.model().opCount());
}
BENCHMARK(BM_GanttFrame)
    ->Arg(1000000)
    ->Arg(300000)
    ->Arg(100000)
    ->Arg(1000)
    ->ArgNames({ "view_ppm" })
    ->Unit(benchmark::kMillisecond);

// The same frame with the animation cursor mid-way (future ops faint, in-flight bars at t).
void BM_GanttFrameAnimated(benchmark::State& state)
{
    const GanttRenderer renderer(bigModel());
    QImage image(1920, 1080, QImage::Format_ARGB32_Premultiplied);
    GanttOptions options;
    const GanttLayout layout = renderer.layout(QRectF(0, 0, 1920, 1080), options);
    const TimeAxis axis = renderer.initialAxis(layout);
    options.cursorTime = 0.5 * axis.fullEnd();
    for (auto _ : state) {
        image.fill(Qt::white);
        QPainter p(&image);
        renderer.paint(p, layout, axis, options);
        p.end();
        benchmark::DoNotOptimize(image.constBits());
    }
}
BENCHMARK(BM_GanttFrameAnimated)->Unit(benchmark::kMillisecond);

// Preparing the model (sorting, p2p waits, in-flight steps): once per report, not per frame.
void BM_GanttModelBuild(benchmark::State& state)
{
    parallax::core::SimulationInput input;
    input.shape = { ScheduleKind::Interleaved1F1B, 32, 800, 2 };
    const auto result = parallax::core::simulate(input);
    for (auto _ : state) {
        GanttModel model({ ganttTrack(result, input.shape) });
        benchmark::DoNotOptimize(model.opCount());
    }
}
BENCHMARK(BM_GanttModelBuild)->Unit(benchmark::kMillisecond);

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
