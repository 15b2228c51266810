// SPDX-License-Identifier: Apache-2.0
#include "core/engine/MemoryStage.h"

#include "core/cluster/StageHbm.h"
#include "core/memory/PredictionBands.h"

#include <algorithm>

namespace parallax::core {

MemoryInputs memoryInputs(
    const Scenario& scenario, const PipelineInputs& pipeline, const LayerCostStageResult& costs, const Report& report)
{
    return { scenario.model, scenario.parallel, scenario.training, pipeline.shape, pipeline.layout, report.schedule,
        pipeline.simulation, pipeline.backwardWorkingSet, costs.context };
}

void memoryStage(const MemoryInputs& memory, const Topology& topology, Report& report)
{
    report.stages = memoryPerStage(memory);
    const std::vector<double> hbm = pipelineRankHbmBytes(topology, report.rankMap, memory.parallel.pp);
    const ErrorBand memBand = memoryBand();
    bool oneHbm = true;
    for (auto& st : report.stages) {
        const double allocated = st.totalBytes() - st.runtimeBytes;
        st.lowBytes = st.runtimeBytes + memBand.low(allocated);
        st.highBytes = st.runtimeBytes + memBand.high(allocated);
        st.hbmBytes = st.stage >= 0 && st.stage < static_cast<int>(hbm.size()) ? hbm[st.stage] : report.hbmBytes;
        oneHbm = oneHbm && st.hbmBytes == report.stages.front().hbmBytes;
    }
    // The peak is the stage with the least headroom in its own HBM: in a cluster of one GPU type, the
    // fullest stage (the first of equals).
    const StageMemory* peak = nullptr;
    for (const auto& st : report.stages) {
        if (!peak || st.totalBytes() - st.hbmBytes > peak->totalBytes() - peak->hbmBytes)
            peak = &st;
    }
    report.memoryVerdict = MemoryVerdict::Fits;
    for (const auto& st : report.stages) {
        report.peakMemoryLowBytes = std::max(report.peakMemoryLowBytes, oneHbm ? st.lowBytes : 0.0);
        report.peakMemoryHighBytes = std::max(report.peakMemoryHighBytes, oneHbm ? st.highBytes : 0.0);
        report.memoryVerdict = std::max(report.memoryVerdict, memoryVerdict(st.lowBytes, st.highBytes, st.hbmBytes));
    }
    if (peak) {
        report.peakMemoryBytes = peak->totalBytes();
        report.peakMemoryStage = peak->stage;
        report.hbmBytes = peak->hbmBytes;
        if (!oneHbm) {
            report.peakMemoryLowBytes = peak->lowBytes;
            report.peakMemoryHighBytes = peak->highBytes;
        }
    } else {
        report.memoryVerdict = memoryVerdict(0, 0, report.hbmBytes);
    }
    report.fits = report.memoryVerdict != MemoryVerdict::DoesNotFit;
}

} // namespace parallax::core
