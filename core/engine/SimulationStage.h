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

} // namespace parallax::core
