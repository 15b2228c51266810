// SPDX-License-Identifier: Apache-2.0
#include "CliArgs.h"
#include "Commands.h"

#include "core/Engine.h"
#include "core/io/BoundedRead.h"
#include "core/launch/LaunchArgsImporter.h"
#include "core/launch/OwnRunRecord.h"
#include "core/launch/TrainingLogReader.h"

#include <iostream>
#include <nlohmann/json.hpp>

namespace parallax::cli {

// check-log: a Megatron-LM, NeMo or torchtitan training log against the engine's prediction for the design that
// ran (a scenario file or flags, or the launch script it ran from with --script, e.g. `export --launch slurm`).
int runCheckLog(const std::vector<std::string>& argv)
{
    const Args args(argv, { "json" });
    std::vector<std::string> known = scenarioFlagNames();
    known.insert(known.end(), { "log", "script", "warmup", "json", "calibration", "record" });
    args.allowOnly(known);
    if (!args.has("log"))
        throw UsageError("give the training log (Megatron-LM, NeMo or torchtitan) with --log FILE");
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
    const int warmup = args.integer("warmup", 2, 0, 1000000);
    const auto check = core::checkTrainingLog(scenario, text, warmup, options, error);
    if (!check && error.rfind("the engine rejects", 0) == 0)
        throw InvalidConfigError(error);
    if (!check)
        throw UsageError("--log " + args.value("log") + ": " + error);
    const core::LogComparison& c = check->comparison;
    std::string recordId;
    if (args.has("record")) {
        const auto id = core::recordRun(*check, args.value("log"), args.value("record"), error);
        if (!id)
            throw UsageError("--record: " + error);
        recordId = *id;
    }
    if (args.has("json")) {
        nlohmann::json j { { "framework", core::frameworkName(check->framework) },
            { "iterations_used", c.iterationsUsed }, { "warmup", warmup },
            { "as_the_framework_runs_it", check->changes }, { "measured_step_time_s", c.measuredSeconds },
            { "measured_step_time_range_s", { c.measuredLowSeconds, c.measuredHighSeconds } },
            { "predicted_step_time_s", c.predictedSeconds },
            { "predicted_step_time_range_s", { c.predictedLowSeconds, c.predictedHighSeconds } },
            { "step_time_error", c.stepError }, { "within_range", c.stepWithinRange },
            { "memory_counted", c.memoryIsReserved ? "max reserved" : "max allocated" },
            { "measured_peak_memory_bytes", c.measuredAllocatedBytes },
            { "predicted_peak_memory_bytes", c.predictedAllocatedBytes }, { "memory_error", c.memoryError } };
        if (!recordId.empty())
            j["recorded_as"] = recordId;
        std::cout << j.dump(2) << "\n";
    } else {
        std::cout << check->text();
        if (!recordId.empty())
            std::cout << "recorded as \"" << recordId << "\" in " << args.value("record")
                      << " (parallax-cli validate --data " << args.value("record") << " measures the engine on it)\n";
    }
    return kExitOk;
}

} // namespace parallax::cli
