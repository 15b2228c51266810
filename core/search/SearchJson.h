// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/search/ConfigSearch.h"
#include "core/search/DecisionMatrix.h"

#include <nlohmann/json.hpp>

namespace parallax::core {

// SCENARIO.md's `recommend --json` contract: `candidates` best first, each with `config`,
// `step_time_s`, `mfu`, `peak_memory_bytes`, `fits`, `reasons`; `rejected` with one
// representative `config` and its `reason` per family of losers. Timings are left out so that
// the output is reproducible.
nlohmann::json searchResultToJson(const Scenario& base, const SearchResult& result);
// SCENARIO.md's `matrix --json` contract: `cells` with `model`, `gpus`, `recommended` (a config, or
// null when nothing fits), `step_time_s`, `mfu`, `peak_memory_bytes`, `why`, `fix`; and the stated
// cluster, global batch and sequence length.
nlohmann::json decisionMatrixToJson(const DecisionMatrix& matrix);
// The `config` object of a search point (the keys of parallelConfigToJson).
nlohmann::json searchPointToJson(const SearchPoint& point);

} // namespace parallax::core
