// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/schedule/PipelineSimulator.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace parallax::core {

// A simulated timeline in the Chrome trace event format (the JSON object form, which Perfetto
// and chrome://tracing open): one complete event (ph "X") per op, ts and dur in microseconds,
// pid = the pipeline group (a process), tid = the pipeline rank (a thread), args with the
// micro-batch, chunk, direction and kind; metadata events (ph "M") name the processes and threads.
// https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU
struct TraceProcess {
    std::string name; // "pipeline group 0: 1F1B"
    const SimulationResult* schedule = nullptr;
    // Seconds per simulator time unit: 1 for engine timelines (seconds); uniform unit-time runs
    // may choose any scale (1 unit = 1 s by default).
    double secondsPerUnit = 1;
};

nlohmann::json chromeTrace(const std::vector<TraceProcess>& processes);
nlohmann::json chromeTrace(const SimulationResult& schedule, const std::string& processName);

// Writes the trace atomically; false with `error` set ("cannot write ...") when it cannot.
bool writeChromeTrace(const nlohmann::json& trace, const std::string& filePath, std::string& error);

} // namespace parallax::core
