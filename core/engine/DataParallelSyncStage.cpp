// SPDX-License-Identifier: Apache-2.0
#include "core/engine/DataParallelSyncStage.h"

#include "core/costs/StepOverheads.h"
#include "core/parallel/ParameterShard.h"

#include <algorithm>

namespace parallax::core {

DataParallelSyncResult dataParallelSyncStage(const MemoryInputs& memory, const PipelineInputs& pipeline,
    const LayoutStageResult& layout, const LayerCostStageResult& costs, const Report& report)
{
    const ParallelConfig& par = memory.parallel;
    const EngineCommGroups& comm = layout.comm;
    DataParallelSyncResult out;
    // Optimizer step and the fixed per-step work around it (core/costs/StepOverheads): the same
    // communicators and batch on every pipeline rank, so their collectives are priced once.
    StepOverheadInputs fixed;
    fixed.microbatches = report.microbatches;
    fixed.tokensPerMicrobatch = costs.context.seqLen / costs.context.cp * costs.context.microBatch;
    fixed.tp = comm.tp;
    fixed.dp = comm.dp;
    fixed.optimizer = memory.training.optimizer;
    const StepOverheadCollectives collectives = stepOverheadCollectives(fixed);
    for (int r = 0; r < par.pp; ++r) {
        const StageMemory& st = report.stages[r];
        double fwd = 0, bwd = 0;
        for (int c = 0; c < pipeline.chunks; ++c) {
            fwd += pipeline.simulation.durations[r][c].forward;
            bwd += pipeline.simulation.durations[r][c].backward();
        }
        // Without --overlap-grad-reduce / --overlap-param-gather the collectives run after the backward.
        const ParameterShard params { st.denseParameters, st.expertParameters };
        const DpSyncTimes dp = dpSyncSeconds(
            memory, r, comm.dp, comm.edp, par.dpOverlap ? fwd : 0.0, par.dpOverlap ? bwd : 0.0, &params);
        out.exposedSeconds = std::max(out.exposedSeconds, dp.exposedSeconds);
        out.totalSeconds = std::max(out.totalSeconds, dp.totalSeconds);
        fixed.optimizerShardParams = st.optimizerBytes / optimizerStateBytesPerParam(fixed.optimizer);
        fixed.gradBufferBytes = st.gradsBytes;
        out.optimizerSeconds = std::max(out.optimizerSeconds, stepOverheads(fixed, costs.rates, collectives).total());
    }
    return out;
}

} // namespace parallax::core
