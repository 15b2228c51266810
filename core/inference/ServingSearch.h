// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Engine.h"
#include "core/Scenario.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace parallax::core {

// Latency limits of a serving search; 0 means no limit.
struct ServingLimits {
    double ttftSeconds = 0;
    double tpotSeconds = 0;
};

struct ServingCandidate {
    ParallelConfig layout;
    bool dpAttention = false;
    int concurrency = 0; // the best concurrency under the limits
    double ttftSeconds = 0;
    double tpotSeconds = 0;
    double tokensPerSecondPerGpu = 0;
    int maxConcurrency = 0;
    std::string verdict;
    std::string memoryNote; // the verdict's reason when the KV cache is tight
    std::string reason; // why it ranks where it does (or why it was rejected)
};

struct ServingSearchResult {
    std::vector<ServingCandidate> candidates; // best first, by output tokens/s per GPU
    std::vector<ServingCandidate> rejected; // one per reason family: invalid, memory, TTFT, TPOT
};

// Every TP / PP / EP / DP(-attention) layout of the scenario's cluster: each at the concurrency
// (a power of two up to its KV capacity, or the scenario's own) that gives the most tokens/s per GPU
// within the limits (the planning method of NVIDIA AIConfigurator and vLLM's benchmark sweeps).
ServingSearchResult searchServingLayouts(
    const Scenario& scenario, const ServingLimits& limits, int topK, const EvaluateOptions& options = {});

nlohmann::json servingSearchToJson(const ServingSearchResult& r);

} // namespace parallax::core
