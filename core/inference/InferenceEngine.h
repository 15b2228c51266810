// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Engine.h"
#include "core/Scenario.h"
#include "core/report/Report.h"

namespace parallax::core {

// The serving engine for a scenario in "inference" mode: validate the layout -> memory per GPU and KV
// capacity -> TTFT / TPOT / tokens per second. Fills Report::inference and the shared fields (valid,
// fits, errors, warnings, params, GPUs, HBM, rank map); the training fields stay zero. Never throws.
Report evaluateInference(const Scenario& scenario, const EvaluateOptions& options = {});

// Problems of a serving layout, each naming the field and the fix.
std::vector<Message> validateServingLayout(const Scenario& scenario);

// Requests of `contextLen` tokens the scenario's layout holds at once (all replicas), for the
// concurrency-against-context chart; 0 when not even one fits.
int maxConcurrencyAtContext(const Scenario& scenario, int contextLen);

} // namespace parallax::core
