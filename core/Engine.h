// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/report/Report.h"

namespace parallax::core {

struct Calibration;

struct EvaluateOptions {
    const Calibration* calibration = nullptr;
    bool simulateSchedule = true; // false: closed-form bubble and in-flight counts (search's cheap path)
    bool keepTimeline = true; // false drops the op list from the report (search)
    bool buildGroups = true; // false skips the rank map's group lists (search)
    bool priceAlternatives = true; // false skips notes that evaluate a variant of the scenario (search)
};

// validate -> rank map -> costs -> schedule simulation -> memory -> estimate. Never throws for bad
// input: problems are reported in Report::errors with the field and the fix.
Report evaluate(const Scenario& scenario, const EvaluateOptions& options = {});

} // namespace parallax::core
