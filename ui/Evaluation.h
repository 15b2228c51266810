// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/report/Report.h"

#include <cstdint>
#include <memory>

namespace parallax::core {
struct Calibration;
}

namespace parallax::ui {

// One engine run: the scenario it saw and the report it produced, immutable once built, shared by
// every view (a view never pairs a report with a newer scenario).
struct Evaluation {
    std::uint64_t generation = 0;
    core::Scenario scenario;
    core::Report report;
    // The probe calibration the engine used (null: datasheet numbers); views that run the engine
    // again (schedule comparison, search) use the same one.
    std::shared_ptr<const core::Calibration> calibration;
    double elapsedMilliseconds = 0;
};

using EvaluationPtr = std::shared_ptr<const Evaluation>;

} // namespace parallax::ui
