// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/memory/PredictionBands.h"

namespace parallax::core {

// How far a serving figure may lie from the engine's prediction, as measured on the published serving
// runs of data/published_serving.json (`parallax-cli validate --serving`): real / predicted within
// [1 - below, 1 + above]. tests/validation/ServingBandsTest.cpp fails when a band no longer covers its rows.
ErrorBand servingThroughputBand(); // output tokens/s per GPU
ErrorBand servingTpotBand(); // time per output token: the throughput band inverted (a decode-bound step)
ErrorBand servingTtftBand(); // time to first token of one request (prefill)

} // namespace parallax::core
