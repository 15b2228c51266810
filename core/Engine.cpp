// SPDX-License-Identifier: Apache-2.0
#include "core/Engine.h"

#include "core/engine/EvaluateWithSummary.h"
#include <algorithm>

#include "core/engine/DataParallelSyncStage.h"
#include "core/engine/FindingsStage.h"
#include "core/engine/FlopsStage.h"
#include "core/engine/LayerCostStage.h"
#include "core/engine/LayoutStage.h"
#include "core/engine/MemoryStage.h"
#include "core/engine/PipelineInputStage.h"
#include "core/engine/SimulationStage.h"
#include "core/engine/StepTimeStage.h"
#include "core/engine/ValidateStage.h"
#include "core/inference/InferenceEngine.h"

#include <optional>

namespace parallax::core {

// The training pipeline, one stage per file under core/engine/. Each stage reads the scenario and
// the results of the stages before it, and writes its own part of the report.
Report evaluate(const Scenario& scenario, const EvaluateOptions& options)
{
    if (scenario.mode == ScenarioMode::Inference)
        return evaluateInference(scenario, options);
    // The one pass over the topology's domains and fabrics that the stages share.
    return evaluate(scenario, options, TopologySummary::of(scenario.topology));
}

Report evaluate(const Scenario& scenario, const EvaluateOptions& options, const TopologySummary& topology)
{
    if (scenario.mode == ScenarioMode::Inference)
        return evaluateInference(scenario, options);
    if (!topology.describes(scenario.topology))
        return evaluate(scenario, options);
    Report report;
    const EfficiencyDefaults defaults;

    // 1. Headline numbers, errors and notes; nothing else runs on an invalid scenario.
    if (!validateStage(scenario, topology, report))
        return report;

    // 2. Rank map, groups leaving their domain / fabric / rail, communicators.
    const LayoutStageResult layout = layoutStage(scenario, topology, options, report);

    // 3. Compute rates of the slowest GPU; one dense layer, one MoE layer and the LM head.
    const LayerCostStageResult costs = layerCostStage(scenario, topology, options, layout, defaults, report);

    // 4. Op durations per pipeline rank and chunk, p2p between pipeline ranks.
    // The per-rank tables are reused between calls on this thread: their rows keep their capacity (about
    // 40 allocations a call otherwise). A nested evaluate on the same thread would get fresh ones.
    thread_local PipelineInputs t_reused;
    thread_local bool t_reusedBusy = false;
    std::optional<PipelineInputs> fresh; // built only for a nested call
    const bool reuse = !t_reusedBusy;
    PipelineInputs& pipeline = reuse ? t_reused : fresh.emplace();
    struct Release {
        bool held;
        ~Release()
        {
            if (held)
                t_reusedBusy = false;
        }
    } release { reuse };
    t_reusedBusy = true;
    pipelineInputStage(scenario, layout, costs, defaults, report, pipeline);

    // 5. The schedule: simulated, or in closed form.
    if (!simulationStage(options, pipeline, report))
        return report;

    // 6. Memory per pipeline rank against HBM.
    const MemoryInputs memory = memoryInputs(scenario, pipeline, costs, report);
    memoryStage(memory, scenario.topology, report);

    // 7. Data-parallel sync and optimizer step of the slowest rank.
    const DataParallelSyncResult dp = dataParallelSyncStage(memory, pipeline, layout, costs, report);
    // The DP sync places its collectives on the simulated timeline; the report keeps it only when asked.
    if (!options.keepTimeline)
        releaseTimeline(report);

    // 8. Step time, its band and the communication breakdown.
    const StepTimeBand timeBand = stepTimeStage(scenario, pipeline, costs, dp, report);

    // 9. FLOPs, MFU, HFU, tokens per second.
    flopsStage(scenario, report);

    // 10. Warnings and notes.
    const double busiestEpSeconds = report.microbatches
        * (pipeline.epSecondsPerMb.empty()
                ? 0.0
                : *std::max_element(pipeline.epSecondsPerMb.begin(), pipeline.epSecondsPerMb.end()));
    findingsStage(scenario, layout, costs, timeBand, busiestEpSeconds, report);
    return report;
}

} // namespace parallax::core
