// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/LayoutStage.h"
#include "core/engine/MemoryStage.h"

namespace parallax::core {

// The slowest pipeline rank's data-parallel and optimizer time, which decides the step.
struct DataParallelSyncResult {
    double exposedSeconds = 0; // gradient sync and parameter gathers not hidden behind compute
    double totalSeconds = 0; // before overlap
    double optimizerSeconds = 0; // optimizer step and fixed per-step work (core/costs/StepOverheads.h)
};

// Stage 7: data-parallel gradient sync and optimizer step per pipeline rank, from the memory
// stage's per-rank gradient and optimizer bytes (report.stages).
DataParallelSyncResult dataParallelSyncStage(const MemoryInputs& memory, const PipelineInputs& pipeline,
    const LayoutStageResult& layout, const LayerCostStageResult& costs, const Report& report);

} // namespace parallax::core
