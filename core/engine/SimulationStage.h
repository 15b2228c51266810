// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Engine.h"
#include "core/engine/PipelineInputStage.h"

namespace parallax::core {

// Stage 5: the pipeline schedule of one step, simulated event by event, or in closed form when
// asked (the search's cheap path) or when it has more than kMaxSimulatedOps ops.
// Writes report.schedule and bubbleFraction (and a note when the closed form stands in); on a
// deadlock, an error and valid = false. Returns report.valid.
bool simulationStage(const EvaluateOptions& options, const PipelineInputs& pipeline, Report& report);

// After the stages that read the timeline, when the caller does not keep it: empties report.schedule.ops and
// keeps its buffer on this thread for the next simulation (a search's evaluations do not allocate, or fault in,
// a timeline each).
void releaseTimeline(Report& report);

} // namespace parallax::core
