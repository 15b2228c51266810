// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/report/Report.h"
#include "ui/render/GanttRenderer.h"
#include "ui/render/MemoryChartRenderer.h"
#include "ui/render/Picture.h"
#include "ui/render/RankMapRenderer.h"
#include "ui/render/TitleBlock.h"

#include <memory>
#include <optional>

namespace parallax::render {

// "1F1B", "interleaved 1F1B (v=2)", "DualPipe", ...
QString scheduleName(core::ScheduleKind kind, int virtualStages = 1);

// The schedule the engine simulated for a scenario (pipeline group 0): engine op times in
// seconds, in-flight activations in bytes, the scenario's shape for p2p waits and labels.
GanttTrack ganttTrack(const core::Scenario& scenario, const core::Report& report, const QString& label = {});
// A uniform-time run (`parallax-cli schedule`): unit times, in-flight counted in chunks.
GanttTrack ganttTrack(
    const core::SimulationResult& result, const core::ScheduleShape& shape, const QString& label = {});

// Default picture widths in logical pixels.
inline constexpr double kGanttWidth = 1600;
inline constexpr double kRankMapWidth = 1400;
inline constexpr double kMemoryWidth = 1200;

// Whole pictures: the title block (when given) over the chart, sized for `width`. The renderers
// are shared, so a picture stays valid after the caller's copies go.
// A Gantt `timeRange` (model time units, [start, end]) draws only that part of the step, with the
// time axis of that range; none: the whole step.
struct GanttTimeRange {
    double start = 0;
    double end = 0;
};
Picture ganttPicture(std::shared_ptr<const GanttModel> model, const std::optional<TitleBlock>& title,
    double width = kGanttWidth, const GanttOptions& options = {}, std::optional<GanttTimeRange> timeRange = {});
Picture rankMapPicture(std::shared_ptr<const RankMapRenderer> renderer, const std::optional<TitleBlock>& title,
    const RankMapRenderer::Options& options, double width = kRankMapWidth);
Picture memoryPicture(std::shared_ptr<const MemoryChartRenderer> renderer, const std::optional<TitleBlock>& title,
    double width = kMemoryWidth);

} // namespace parallax::render
