// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "../TestScenarios.h"

#include "core/Engine.h"

namespace parallax::test {

// A serving scenario: one regular cluster of `gpus` GPUs (8 per node) in inference mode.
inline core::Scenario servingScenario(
    const std::string& model, const std::string& gpu, int gpus, int tp, int pp = 1, int dp = 1, int ep = 1)
{
    core::Scenario s = makeScenario(
        model, gpu, (gpus + 7) / 8, std::min(gpus, 8), degrees(tp, pp, dp, 1, ep), core::TrainingConfig {});
    s.mode = core::ScenarioMode::Inference;
    return s;
}

} // namespace parallax::test
