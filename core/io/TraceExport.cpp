// SPDX-License-Identifier: Apache-2.0
#include "core/io/TraceExport.h"

#include "core/io/ScenarioIo.h"

namespace parallax::core {

using nlohmann::json;

namespace {
// "F3", "B3", "W3", "F3 B5" (an overlapped pair), as the Gantt labels them.
std::string eventName(const TimedOp& op)
{
    const std::string mb = std::to_string(op.microbatch);
    switch (op.kind) {
    case OpKind::Forward:
        return "F" + mb;
    case OpKind::BackwardWeight:
        return "W" + mb;
    case OpKind::ForwardBackward:
        return "F" + mb + " B" + std::to_string(op.microbatch2);
    default:
        return "B" + mb;
    }
}
} // namespace

json chromeTrace(const std::vector<TraceProcess>& processes)
{
    json events = json::array();
    for (std::size_t pid = 0; pid < processes.size(); ++pid) {
        const TraceProcess& proc = processes[pid];
        if (!proc.schedule)
            continue;
        const double us = proc.secondsPerUnit * 1e6;
        events.push_back({ { "ph", "M" }, { "name", "process_name" }, { "pid", pid }, { "tid", 0 },
            { "args", { { "name", proc.name } } } });
        events.push_back({ { "ph", "M" }, { "name", "process_sort_index" }, { "pid", pid }, { "tid", 0 },
            { "args", { { "sort_index", pid } } } });
        int ranks = static_cast<int>(proc.schedule->bubbleFractionPerRank.size());
        for (const TimedOp& op : proc.schedule->ops)
            ranks = std::max(ranks, op.rank + 1);
        for (int r = 0; r < ranks; ++r) {
            events.push_back({ { "ph", "M" }, { "name", "thread_name" }, { "pid", pid }, { "tid", r },
                { "args", { { "name", "rank " + std::to_string(r) } } } });
            events.push_back({ { "ph", "M" }, { "name", "thread_sort_index" }, { "pid", pid }, { "tid", r },
                { "args", { { "sort_index", r } } } });
        }
        for (const TimedOp& op : proc.schedule->ops) {
            json args { { "kind", longName(op.kind) }, { "microbatch", op.microbatch }, { "chunk", op.chunk },
                { "direction", op.direction } };
            if (op.kind == OpKind::ForwardBackward) {
                args["microbatch2"] = op.microbatch2;
                args["chunk2"] = op.chunk2;
                args["direction2"] = op.direction2;
            }
            events.push_back({ { "name", eventName(op) }, { "cat", longName(op.kind) }, { "ph", "X" },
                { "ts", op.start * us }, { "dur", (op.end - op.start) * us }, { "pid", pid }, { "tid", op.rank },
                { "args", std::move(args) } });
        }
    }
    return json { { "traceEvents", std::move(events) }, { "displayTimeUnit", "ms" },
        { "otherData", { { "generator", std::string("Parallax ") + PARALLAX_VERSION } } } };
}

json chromeTrace(const SimulationResult& schedule, const std::string& processName)
{
    return chromeTrace(std::vector<TraceProcess> { { processName, &schedule, 1.0 } });
}

bool writeChromeTrace(const json& trace, const std::string& filePath, std::string& error)
{
    return writeFileAtomically(filePath, trace.dump() + "\n", error);
}

} // namespace parallax::core
