// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/report/Report.h"

#include <nlohmann/json.hpp>
#include <string>

namespace parallax::core {

// The report as SCENARIO.md's `evaluate --json` contract (bytes, seconds, fractions).
// An invalid configuration keeps the contract's keys, its figures null.
nlohmann::json reportToJson(const Scenario& scenario, const Report& report);
// The same object for a file or flags that could not be read as a scenario: valid and fits false,
// `error` (the field and the fix) the one error, every figure null.
nlohmann::json invalidReportJson(const std::string& error);
nlohmann::json parallelConfigToJson(const ParallelConfig& p, const TrainingConfig& t);
nlohmann::json timelineToJson(const SimulationResult& schedule);

} // namespace parallax::core
