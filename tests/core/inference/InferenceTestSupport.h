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

// Llama 3 70B on 4 H100 (tp 4) serving one request of 1024 + 512 tokens with `drafts` draft tokens per step by
// `method` (the speculative-decoding tests' design).
inline core::Scenario llama70On4H100Drafting(core::SpeculativeMethod method, int drafts,
    core::WeightFormat weights = core::WeightFormat::Bf16, const std::string& draftModel = "")
{
    core::Scenario s = servingScenario("llama3-70b", "h100-sxm", 4, 4);
    s.inference.weightFormat = weights;
    s.inference.isl = 1024;
    s.inference.osl = 512;
    s.inference.concurrency = 1;
    s.inference.speculativeTokens = drafts;
    s.inference.speculativeMethod = method;
    s.inference.draftModel = draftModel;
    return s;
}

} // namespace parallax::test
