// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/PipelineInputStage.h"
#include "core/memory/MemoryModel.h"

namespace parallax::core {

// What the memory model reads (core/memory/MemoryModel.h), from the earlier stages' outputs.
MemoryInputs memoryInputs(
    const Scenario& scenario, const PipelineInputs& pipeline, const LayerCostStageResult& costs, const Report& report);

// Stage 6: memory per pipeline rank, its range from the model's measured error, the peak and the
// verdict against HBM. Writes report.stages, peakMemory*, memoryVerdict and fits.
void memoryStage(const MemoryInputs& memory, Report& report);

} // namespace parallax::core
