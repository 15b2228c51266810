// SPDX-License-Identifier: Apache-2.0
#include "core/engine/ValidateStage.h"

#include "core/Validation.h"
#include "core/cluster/TopologySummary.h"
#include "core/model/ModelMath.h"

namespace parallax::core {

bool validateStage(const Scenario& scenario, const TopologySummary& topology, Report& report)
{
    report.paramsTotal = totalParameters(scenario.model);
    report.paramsActive = activeParameters(scenario.model);
    report.gpus = topology.gpus;
    report.seqLen = scenario.seqLen();

    ValidationResult v = validateScenario(scenario, topology);
    report.errors = std::move(v.errors);
    report.notes = std::move(v.notes);
    report.microbatches = microbatchesPerStep(scenario.parallel, scenario.training);
    report.valid = report.errors.empty();
    return report.valid;
}

} // namespace parallax::core
