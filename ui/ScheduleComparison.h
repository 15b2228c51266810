// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/report/Report.h"

#include <QString>
#include <vector>

namespace parallax::core {
struct Calibration;
}

namespace parallax::ui {

// One schedule of a comparison: the scenario with that schedule and the engine's report on it
// (invalid reports carry the reason in their errors).
struct ComparedSchedule {
    core::ScheduleKind kind = core::ScheduleKind::OneFOneB;
    core::Scenario scenario;
    core::Report report;
    QString label; // "interleaved 1F1B (v=2)"
};

// The schedules the comparison offers, in the order of their checkboxes.
const std::vector<core::ScheduleKind>& comparableSchedules();

// The scenario with another schedule. Interleaving needs virtual stages: it keeps the scenario's
// v when it has one, else takes the smallest v >= 2 that divides the layers per stage; the other
// schedules place their own chunks (v = 1).
core::Scenario withSchedule(core::Scenario scenario, core::ScheduleKind kind);

// Evaluates the scenario once per schedule (the caller runs this off the UI thread).
std::vector<ComparedSchedule> evaluateSchedules(
    const core::Scenario& base, const std::vector<core::ScheduleKind>& kinds, const core::Calibration* calibration);

} // namespace parallax::ui
