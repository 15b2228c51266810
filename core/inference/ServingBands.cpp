// SPDX-License-Identifier: Apache-2.0
#include "core/inference/ServingBands.h"

namespace parallax::core {

namespace {

// published / predicted output tokens/s per GPU, 31 rows (TensorRT-LLM perf-overview v1.0 and performance.md
// v0.6.1): p10 0.903, p90 1.067 (min 0.875, max 1.103).
constexpr ErrorBand kThroughput { 0.10, 0.07 };
// published / predicted TTFT, the 4 rows of long prompts (TensorRT-LLM performance.md v0.5; isl 128 rows are
// not modelled): 1.060-1.243, the engine short on every one. The range starts at the engine's own number.
constexpr ErrorBand kTtft { 0.0, 0.25 };

} // namespace

ErrorBand servingThroughputBand()
{
    return kThroughput;
}

ErrorBand servingTpotBand()
{
    // In steady decode, tokens/s per GPU = requests / TPOT / GPUs: real / predicted TPOT is the inverse of
    // the throughput's ratio, so [1 / (1 + above), 1 / (1 - below)].
    return { 1.0 - 1.0 / (1.0 + kThroughput.above), 1.0 / (1.0 - kThroughput.below) - 1.0 };
}

ErrorBand servingTtftBand()
{
    return kTtft;
}

} // namespace parallax::core
