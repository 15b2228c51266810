// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/report/Report.h"

#include <nlohmann/json.hpp>

namespace parallax::core {

// The report as SCENARIO.md's `evaluate --json` contract (bytes, seconds, fractions).
nlohmann::json reportToJson(const Scenario& scenario, const Report& report);
nlohmann::json parallelConfigToJson(const ParallelConfig& p, const TrainingConfig& t);
nlohmann::json timelineToJson(const SimulationResult& schedule);

} // namespace parallax::core
