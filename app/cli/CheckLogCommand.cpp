// SPDX-License-Identifier: Apache-2.0
#include "CliArgs.h"
#include "Commands.h"

#include "core/Engine.h"
#include "core/io/BoundedRead.h"
#include "core/launch/LaunchArgsImporter.h"
#include "core/launch/MegatronArgsWriter.h"
#include "core/launch/MegatronLogReader.h"

#include <iostream>
#include <nlohmann/json.hpp>

namespace parallax::cli {

// check-log: a Megatron-LM training log against the engine's prediction for the design that ran (a scenario
// file or flags, or the launch script it ran from with --script, e.g. `export --launch slurm`).
int runCheckLog(const std::vector<std::string>& argv)
{
    const Args args(argv, { "json" });
    std::vector<std::string> known = scenarioFlagNames();
    known.insert(known.end(), { "log", "script", "warmup", "json", "calibration" });
    args.allowOnly(known);
    if (!args.has("log"))
        throw UsageError("give the Megatron-LM log with --log FILE");
    std::string text, error;
    // A long run's log outgrows the scenario cap: allow 512 MiB.
    if (!core::io::readFileBounded(args.value("log"), text, error, 512ull * 1024 * 1024))
        throw UsageError("--log: " + error);
    core::Scenario scenario;
    if (args.has("script")) {
        if (!args.positional().empty())
            throw UsageError("--script replaces the scenario file: give one or the other");
        std::string script;
        if (!core::io::readFileBounded(args.value("script"), script, error))
            throw UsageError("--script: " + error);
        const auto imported = core::LaunchArgsImporter::import(script, {});
        if (!imported.scenario)
            throw UsageError("--script " + args.value("script") + ": " + imported.error);
        scenario = *imported.scenario;
    } else {
        scenario = scenarioFromArgs(args);
    }
    const auto calibration = calibrationFromArgs(args);
    core::EvaluateOptions options;
    options.calibration = calibration ? &*calibration : nullptr;
    // The log is of what Megatron-LM ran: the design with what it lacks left out (a DualPipe design runs 1F1B).
    std::vector<std::string> changes;
    scenario = core::MegatronArgsWriter::asRun(scenario, changes);
    const core::Report report = core::evaluate(scenario, options);
    if (!report.valid) {
        std::cerr << "parallax-cli check-log: the engine rejects the design: "
                  << (report.errors.empty() ? "?" : report.errors.front().field + ": " + report.errors.front().text)
                  << "\n";
        return kExitInvalidConfig;
    }
    const core::MegatronLog log = core::readMegatronLog(text);
    const int warmup = args.integer("warmup", 2, 0, 1000000);
    const auto c = core::compareWithLog(report, log, warmup, error);
    if (!c)
        throw UsageError("--log " + args.value("log") + ": " + error);
    if (args.has("json")) {
        const nlohmann::json j { { "iterations_used", c->iterationsUsed }, { "warmup", warmup },
            { "measured_step_time_s", c->measuredSeconds },
            { "measured_step_time_range_s", { c->measuredLowSeconds, c->measuredHighSeconds } },
            { "predicted_step_time_s", c->predictedSeconds },
            { "predicted_step_time_range_s", { c->predictedLowSeconds, c->predictedHighSeconds } },
            { "step_time_error", c->stepError }, { "within_range", c->stepWithinRange },
            { "measured_max_allocated_bytes", c->measuredAllocatedBytes },
            { "predicted_max_allocated_bytes", c->predictedAllocatedBytes }, { "memory_error", c->memoryError } };
        std::cout << j.dump(2) << "\n";
    } else {
        std::cout << scenario.name << "\n";
        for (const std::string& change : changes)
            std::cout << "as Megatron-LM runs it: " << change << "\n";
        std::cout << c->summary;
    }
    return kExitOk;
}

} // namespace parallax::cli
