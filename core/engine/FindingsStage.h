// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/LayerCostStage.h"
#include "core/engine/LayoutStage.h"
#include "core/memory/PredictionBands.h"

namespace parallax::core {

// Stage 10: warnings and notes a reader acts on: communicators that leave their NVLink domain
// (TP over IB is the cardinal one), memory over or near HBM with the fixes that apply, and a step
// time band from no measured family. Appends to report.warnings and report.notes.
// busiestEpSeconds: the EP all-to-all seconds per step of the pipeline rank with the most of them.
void findingsStage(const Scenario& scenario, const LayoutStageResult& layout, const LayerCostStageResult& costs,
    const StepTimeBand& timeBand, double busiestEpSeconds, Report& report);

} // namespace parallax::core
