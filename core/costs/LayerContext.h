// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/costs/CostModel.h"
#include "core/memory/ActivationMemory.h"

namespace parallax::core {

// The degrees a layer's costs and activations depend on: the scenario's own in the engine (layerDegreesOf), each
// candidate's in the search (ClosedFormScorer).
struct LayerDegrees {
    int microBatch = 1;
    int tp = 1;
    bool sp = false;
    int cp = 1;
    CpCommType cpCommType = CpCommType::P2p;
    int cpA2aSize = 0;
    int etp = 1;
    Recompute recompute = Recompute::None;
};

LayerDegrees layerDegreesOf(const Scenario& s);

// The activation context of the scenario's layers at `d`, at `seqLen` tokens; the rest (recompute modules, fused
// attention, TP overlap, fp8, the expert load) from the scenario's settings. The MoE dispatch fields stay unset
// (setDispatch, core/costs/MoeCosts.h).
ActivationContext activationContextAt(
    const Scenario& s, int seqLen, const LayerDegrees& d, const EfficiencyDefaults& defaults);

} // namespace parallax::core
