// SPDX-License-Identifier: Apache-2.0
#include "CliArgs.h"
#include "Commands.h"
#include "TextFormat.h"

#include "core/Engine.h"
#include "core/Limits.h"
#include "core/report/ReportJson.h"
#include "core/schedule/PipelineSimulator.h"

#include <iostream>
#include <optional>
#include <sstream>

namespace parallax::cli {

namespace {
void printSchedule(std::ostream& out, const core::SimulationResult& s, const std::string& title, bool unitTimes)
{
    auto t = [&](double v) { return unitTimes ? std::to_string(v).substr(0, 8) : duration(v); };
    out << title << "\n";
    out << "makespan " << t(s.makespan) << ", bubble " << percent(s.bubbleFraction) << "\n\n";
    out << "  rank  bubble  busy        peak in-flight  parameter copies\n";
    for (std::size_t r = 0; r < s.bubbleFractionPerRank.size(); ++r) {
        out << "  " << padLeft(std::to_string(r), 4) << "  " << padLeft(percent(s.bubbleFractionPerRank[r]), 6) << "  "
            << padRight(t(s.busySecondsPerRank[r]), 12) << padLeft(std::to_string(s.peakInflightChunks[r]), 14) << "  "
            << padLeft(std::to_string(s.parameterCopies[r]), 16) << "\n";
    }
}
// The timeline as timelineToJson(...).dump(1) prints it, with the ops streamed one at a time: a
// tree of millions of small JSON objects would take gigabytes (issue 16).
void printTimelineJson(std::ostream& out, core::SimulationResult result)
{
    std::vector<core::TimedOp> ops;
    ops.swap(result.ops);
    const std::string marker = "@@parallax-streamed-ops@@"; // plain ASCII: dump() keeps it as is
    nlohmann::json head = core::timelineToJson(result);
    head["ops"] = marker;
    const std::string text = head.dump(1);
    const auto at = text.find("\"" + marker + "\"");
    out << text.substr(0, at);
    if (ops.empty()) {
        out << "[]";
    } else {
        out << "[\n";
        core::SimulationResult one;
        for (std::size_t i = 0; i < ops.size(); ++i) {
            one.ops.assign(1, ops[i]);
            std::string op = core::timelineToJson(one)["ops"][0].dump(1);
            for (std::size_t p = op.find('\n'); p != std::string::npos; p = op.find('\n', p + 1))
                op.insert(p + 1, "  ");
            out << "  " << op << (i + 1 < ops.size() ? ",\n" : "\n");
        }
        out << " ]";
    }
    out << text.substr(at + marker.size() + 2);
}
} // namespace

int runSchedule(const std::vector<std::string>& argv)
{
    const Args args(argv, { "json" });
    std::vector<std::string> known = scenarioFlagNames();
    known.insert(known.end(), { "json", "microbatches", "f", "b", "w", "overlap", "calibration", "out", "scale" });
    args.allowOnly(known);
    const double scale = args.number("scale", 1, 0.25, 8);

    core::SimulationResult result;
    core::ScheduleShape shape;
    std::string title;
    std::string timesNote;
    bool unitTimes = false;
    std::optional<core::Scenario> scenario;
    core::Report report;
    if (!args.positional().empty()) {
        scenario = scenarioFromArgs(args);
        const auto calibration = calibrationFromArgs(args);
        core::EvaluateOptions options;
        options.calibration = calibration ? &*calibration : nullptr;
        report = core::evaluate(*scenario, options);
        if (!report.valid) {
            for (const auto& e : report.errors)
                std::cerr << "parallax-cli schedule: " << e.field << ": " << e.text << "\n";
            return kExitInvalidConfig;
        }
        result = report.schedule;
        title = scenario->name + ": " + core::toString(scenario->parallel.schedule) + ", engine op times";
    } else {
        if (!args.has("pp") || !args.has("microbatches") || !args.has("schedule"))
            throw UsageError("give a scenario FILE, or --pp, --microbatches and --schedule");
        if (!core::parseSchedule(args.value("schedule"), shape.kind))
            throw UsageError("--schedule: unknown schedule \"" + args.value("schedule")
                + "\"; use gpipe, 1f1b, interleaved-1f1b, zb-h1, zb-h2, zb-v, dualpipe or dualpipev");
        shape.ranks = args.integer("pp", 1, 1, 4096);
        shape.microbatches = args.integer("microbatches", 1, 1, static_cast<int>(core::kMaxMicrobatchesPerStep));
        shape.virtualStages = args.integer("vpp", 1, 1, 64);
        const std::string problem = core::checkShape(shape);
        if (!problem.empty())
            throw UsageError(problem);
        const core::ScheduleKind kind = shape.kind;
        const long long ops = static_cast<long long>(shape.ranks) * shape.microbatches * core::chunksPerRank(shape)
            * (core::scheduleSplitsBackward(kind) ? 3 : 2);
        // The engine's cap on simulated ops (Limits.h) holds here too: beyond it the simulation alone
        // takes gigabytes.
        if (ops > core::kMaxSimulatedOps)
            throw UsageError("the schedule has " + std::to_string(ops) + " ops (pp x microbatches x chunks x ops per "
                + "chunk); the simulator's limit is " + std::to_string(core::kMaxSimulatedOps)
                + ": use fewer --microbatches or a smaller --pp");
        core::SimulationInput input;
        input.shape = shape;
        core::ChunkDurations d;
        d.forward = args.number("f", 1, 1e-9, 1e9);
        d.backwardInput = args.number("b", 1, 1e-9, 1e9);
        d.backwardWeight = args.number("w", 1, 0, 1e9);
        d.forwardBackward = args.number("overlap", -1, -1, 1e9);
        if (!core::scheduleSplitsBackward(shape.kind)) {
            // Schedules that do not split the backward run b + w as one op.
            d.backwardInput += d.backwardWeight;
            d.backwardWeight = 0;
        }
        input.durations.assign(shape.ranks, std::vector<core::ChunkDurations>(core::chunksPerRank(shape), d));
        result = core::simulate(input);
        title = std::string(core::toString(shape.kind)) + ", p=" + std::to_string(shape.ranks)
            + ", m=" + std::to_string(shape.microbatches)
            + (shape.virtualStages > 1 ? ", v=" + std::to_string(shape.virtualStages) : "");
        unitTimes = true;
        std::ostringstream note;
        note << "Uniform op times in simulator units: F = " << d.forward;
        if (core::scheduleSplitsBackward(shape.kind))
            note << ", B = " << d.backwardInput << ", W = " << d.backwardWeight;
        else
            note << ", B = " << d.backwardInput << " (backward not split: b + w)";
        if (d.forwardBackward >= 0)
            note << ", F&B = " << d.forwardBackward;
        note << "; free p2p.";
        timesNote = note.str();
    }
    if (args.has("out")) {
        const int rc = writeSchedulePicture(args.value("out"), scale, result, shape, timesNote,
            scenario ? &*scenario : nullptr, scenario ? &report : nullptr);
        if (rc != kExitOk)
            return rc;
    }
    if (args.has("json")) {
        printTimelineJson(std::cout, std::move(result));
        std::cout << "\n";
    } else {
        printSchedule(std::cout, result, title, unitTimes);
    }
    return kExitOk;
}

} // namespace parallax::cli
