// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/report/Report.h"

#include <ostream>

namespace parallax::cli {

// The human-readable report of `evaluate` for a scenario in inference mode.
void printInferenceReport(std::ostream& out, const core::Scenario& scenario, const core::Report& report);

} // namespace parallax::cli
