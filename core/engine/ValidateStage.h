// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/cluster/TopologySummary.h"
#include "core/report/Report.h"

namespace parallax::core {

// Stage 1: the scenario's headline numbers and whether it can be evaluated at all.
// Writes report.paramsTotal, paramsActive, gpus, seqLen, microbatches, errors, notes and valid;
// returns report.valid. `topology` is TopologySummary::of(scenario.topology).
bool validateStage(const Scenario& scenario, const TopologySummary& topology, Report& report);

} // namespace parallax::core
