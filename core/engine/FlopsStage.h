// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/report/Report.h"

namespace parallax::core {

// Stage 9: model and hardware FLOPs per step and what they give at the step time: TFLOP/s per GPU,
// MFU, HFU and tokens per second. Writes those report fields.
void flopsStage(const Scenario& scenario, Report& report);

} // namespace parallax::core
