// SPDX-License-Identifier: Apache-2.0
#include "core/engine/StepTimeStage.h"

#include <algorithm>

namespace parallax::core {

StepTimeBand stepTimeStage(const Scenario& scenario, const PipelineInputs& pipeline, const LayerCostStageResult& costs,
    const DataParallelSyncResult& dp, Report& report)
{
    const ParallelConfig& par = scenario.parallel;
    report.step.pipelineSeconds = report.schedule.makespan;
    report.step.dpExposedSeconds = dp.exposedSeconds;
    report.step.optimizerSeconds = dp.optimizerSeconds;
    report.step.stepSeconds = report.schedule.makespan + dp.exposedSeconds + dp.optimizerSeconds;
    double busiest = 0;
    for (double b : report.schedule.busySecondsPerRank)
        busiest = std::max(busiest, b);
    report.step.computeSeconds = busiest;
    report.step.bubbleSeconds = report.schedule.makespan * report.bubbleFraction;
    report.stepTimeSeconds = report.step.stepSeconds;
    const GpuSpec& gpu = costs.gpu;
    StepTimeBand timeBand = stepTimeBand(gpu.id.empty() ? gpu.name : gpu.id, scenario.model.isMoe(), par.worldSize());
    report.stepTimeLowSeconds = timeBand.band.low(report.stepTimeSeconds);
    report.stepTimeHighSeconds = timeBand.band.high(report.stepTimeSeconds);
    report.stepTimeFamily = timeBand.family;
    report.stepTimeFamilyFewestGpus = timeBand.fewestGpus;
    report.stepTimeFamilyMostGpus = timeBand.mostGpus;

    const int worst = report.peakMemoryStage;
    const double m = report.microbatches;
    report.comm.tpSeconds = m * pipeline.tpSecondsPerMb[worst];
    report.comm.cpSeconds = m * pipeline.cpSecondsPerMb[worst];
    report.comm.epSeconds = m * pipeline.epSecondsPerMb[worst];
    if (par.p2pOverlap)
        report.comm.ppSeconds
            = par.pp > 1 ? m * pipeline.chunks * busiestRankSendSeconds(pipeline.simulation.p2pSeconds) : 0.0;
    report.comm.dpSeconds = dp.exposedSeconds;
    report.comm.dpTotalSeconds = dp.totalSeconds;
    return timeBand;
}

} // namespace parallax::core
