// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/DataParallelSyncStage.h"
#include "core/memory/PredictionBands.h"

namespace parallax::core {

// Stage 8: the step time and its parts (pipeline makespan + exposed data-parallel sync + optimizer),
// its range from the validation error of the closest family, and the communication per step on the
// busiest rank. Writes report.step, stepTime*, and comm. Returns the band it used.
StepTimeBand stepTimeStage(const Scenario& scenario, const PipelineInputs& pipeline, const LayerCostStageResult& costs,
    const DataParallelSyncResult& dp, Report& report);

} // namespace parallax::core
