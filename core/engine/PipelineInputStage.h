// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/LayerCostStage.h"
#include "core/parallel/StageLayout.h"
#include "core/schedule/PipelineSimulator.h"

#include <vector>

namespace parallax::core {

struct PipelineInputs {
    ScheduleShape shape; // the schedule as run (pp = 1 runs as 1F1B)
    int chunks = 1; // model chunks per pipeline rank
    StageLayout layout { 1, 1 }; // layers per model stage
    bool splitBackward = false; // the schedule splits B and W (zero-bubble family)
    SimulationInput simulation; // op durations, p2p times and activation weights per rank and chunk
    // Per pipeline rank and micro-batch: TP, CP and EP seconds, and the largest one-layer backward
    // working set.
    std::vector<double> tpSecondsPerMb, cpSecondsPerMb, epSecondsPerMb, backwardWorkingSet;
};

// Stage 4: what the schedule simulation needs: the layers of each model stage, op durations per
// (pipeline rank, chunk) from the layer costs, and the point-to-point time between pipeline ranks
// over the GPUs of the first pipeline group. Writes report.comm.ppSeconds when sends block.
// Every field of `out` is written; a PipelineInputs reused from an earlier call keeps only its tables'
// capacity.
void pipelineInputStage(const Scenario& scenario, const LayoutStageResult& layout, const LayerCostStageResult& costs,
    const EfficiencyDefaults& defaults, Report& report, PipelineInputs& out);

// Per micro-batch and chunk, the pipeline rank whose forward send (to the next rank) plus backward
// send (to the previous one) takes longest.
double busiestRankSendSeconds(const std::vector<std::vector<double>>& p2p);

} // namespace parallax::core
