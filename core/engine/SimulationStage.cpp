// SPDX-License-Identifier: Apache-2.0
#include "core/engine/SimulationStage.h"

#include "core/Limits.h"
#include "core/schedule/PipelineClosedForm.h"

#include <string>

namespace parallax::core {

namespace {
// The ops buffer of this thread's last evaluation that did not keep its timeline (releaseTimeline).
thread_local std::vector<TimedOp> t_spareOps;
} // namespace

bool simulationStage(const EvaluateOptions& options, const PipelineInputs& pipeline, Report& report)
{
    const ScheduleShape& shape = pipeline.shape;
    const long long opCount = static_cast<long long>(shape.ranks) * report.microbatches * pipeline.chunks
        * (pipeline.splitBackward ? 3 : 2);
    const bool simulateIt = options.simulateSchedule && opCount <= kMaxSimulatedOps;
    if (options.simulateSchedule && !simulateIt)
        report.notes.push_back({ "parallel.pp",
            "the schedule has " + std::to_string(opCount)
                + " ops: bubble and in-flight memory use the closed forms instead of the simulation" });
    if (simulateIt) {
        if (!options.keepTimeline && t_spareOps.capacity() > report.schedule.ops.capacity())
            report.schedule.ops = std::move(t_spareOps);
        simulate(pipeline.simulation, report.schedule);
    } else {
        report.schedule = closedFormSchedule(pipeline.simulation);
    }
    if (report.schedule.deadlock) {
        report.errors.push_back(
            { "parallel.schedule", "the schedule could not complete (internal error): choose another schedule" });
        report.valid = false;
        return false;
    }
    report.bubbleFraction = report.schedule.bubbleFraction;
    return true;
}

void releaseTimeline(Report& report)
{
    std::vector<TimedOp>& ops = report.schedule.ops;
    ops.clear();
    if (ops.capacity() > t_spareOps.capacity())
        std::swap(ops, t_spareOps);
    std::vector<TimedOp>().swap(ops); // the report holds no timeline, nor its memory
}

} // namespace parallax::core
