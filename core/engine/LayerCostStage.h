// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/costs/CostModel.h"
#include "core/engine/LayoutStage.h"
#include "core/memory/ActivationMemory.h"

namespace parallax::core {

// Per-layer times and activation sizes, computed once per distinct layer kind (dense / MoE).
struct LayerCosts {
    LayerTimes dense, moe;
    double denseActivation = 0, moeActivation = 0;
    double moeRoutedActivation = 0; // the routed copies' part of moeActivation (routedActivationBytes)
    double denseActivationFull = 0, moeActivationFull = 0;
    double denseWPending = 0, moeWPending = 0;
    const LayerTimes& times(const ModelSpec& m, int layer) const { return m.isMoeLayer(layer) ? moe : dense; }
};

struct LayerCostStageResult {
    const GpuSpec& gpu; // the slowest GPU type of the cluster, which sets the pace (the scenario's)
    ComputeRates rates;
    ActivationContext context;
    LayerCosts layers;
    HeadTimes head; // LM head and loss, on the last model stage
    HeadTimes mtpProjection; // one MTP depth's projection and norms (0 without MTP), on the last model stage
};

// Stage 3: compute rates of the slowest GPU and the cost of one layer of each kind and of the head.
// Writes report.hbmBytes, peakFlopsPerSecond and calibrated.
// `topology` is TopologySummary::of(scenario.topology).
LayerCostStageResult layerCostStage(const Scenario& scenario, const TopologySummary& topology,
    const EvaluateOptions& options, const LayoutStageResult& layout, const EfficiencyDefaults& defaults,
    Report& report);

} // namespace parallax::core
