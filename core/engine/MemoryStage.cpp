// SPDX-License-Identifier: Apache-2.0
#include "core/engine/MemoryStage.h"

#include "core/memory/PredictionBands.h"

#include <algorithm>

namespace parallax::core {

MemoryInputs memoryInputs(
    const Scenario& scenario, const PipelineInputs& pipeline, const LayerCostStageResult& costs, const Report& report)
{
    return { scenario.model, scenario.parallel, scenario.training, pipeline.shape, pipeline.layout, report.schedule,
        pipeline.simulation, pipeline.backwardWorkingSet, costs.context };
}

void memoryStage(const MemoryInputs& memory, Report& report)
{
    report.stages = memoryPerStage(memory);
    const ErrorBand memBand = memoryBand();
    for (auto& st : report.stages) {
        const double allocated = st.totalBytes() - st.runtimeBytes;
        st.lowBytes = st.runtimeBytes + memBand.low(allocated);
        st.highBytes = st.runtimeBytes + memBand.high(allocated);
        report.peakMemoryLowBytes = std::max(report.peakMemoryLowBytes, st.lowBytes);
        report.peakMemoryHighBytes = std::max(report.peakMemoryHighBytes, st.highBytes);
        if (st.totalBytes() > report.peakMemoryBytes) {
            report.peakMemoryBytes = st.totalBytes();
            report.peakMemoryStage = st.stage;
        }
    }
    report.memoryVerdict = memoryVerdict(report.peakMemoryLowBytes, report.peakMemoryHighBytes, report.hbmBytes);
    report.fits = report.memoryVerdict != MemoryVerdict::DoesNotFit;
}

} // namespace parallax::core
