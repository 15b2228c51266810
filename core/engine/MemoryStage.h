// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/PipelineInputStage.h"
#include "core/memory/MemoryModel.h"

namespace parallax::core {

// What the memory model reads (core/memory/MemoryModel.h), from the earlier stages' outputs.
MemoryInputs memoryInputs(
    const Scenario& scenario, const PipelineInputs& pipeline, const LayerCostStageResult& costs, const Report& report);

// Stage 6: memory per pipeline rank, its range from the model's measured error, the peak and the
// verdict, each stage against the HBM of the GPUs that hold it (core/cluster/StageHbm.h). The peak is
// the stage with the least headroom; report.hbmBytes becomes its HBM (in a cluster of one GPU type,
// the GPU's). Reads report.rankMap; writes report.stages, peakMemory*, hbmBytes, memoryVerdict and fits.
void memoryStage(const MemoryInputs& memory, const Topology& topology, Report& report);

} // namespace parallax::core
