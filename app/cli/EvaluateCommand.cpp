// SPDX-License-Identifier: Apache-2.0
#include "CliArgs.h"
#include "Commands.h"
#include "InferenceTable.h"
#include "ReportTable.h"

#include "core/Engine.h"
#include "core/io/PresetLibrary.h"
#include "core/launch/RankGroupsJson.h"
#include "core/report/ReportJson.h"

#include <iostream>
#include <optional>

namespace parallax::cli {

int runEvaluate(const std::vector<std::string>& argv)
{
    const Args args(argv, { "json", "no-groups" });
    std::vector<std::string> known = scenarioFlagNames();
    known.insert(known.end(), { "json", "calibration", "no-groups" });
    args.allowOnly(known);
    std::optional<core::Scenario> read;
    try {
        read = scenarioFromArgs(args);
    } catch (const InvalidConfigError& e) {
        // With --json a script still gets the object SCENARIO.md promises, saying why (and stderr the line).
        if (args.has("json"))
            std::cout << core::invalidReportJson(e.what()).dump(2) << "\n";
        throw;
    }
    const core::Scenario& scenario = *read;
    const auto calibration = calibrationFromArgs(args);
    core::EvaluateOptions options;
    options.calibration = calibration ? &*calibration : nullptr;
    options.keepTimeline = false;
    const core::Report report = core::evaluate(scenario, options);
    const bool serving = report.inference || scenario.mode == core::ScenarioMode::Inference;
    if (args.has("json")) {
        nlohmann::json j = core::reportToJson(scenario, report);
        // rank_map.groups and rank_map.ranks (SCENARIO.md): materialised here, for the output only, never by
        // evaluate() itself; --no-groups leaves them out (they grow with the GPU count).
        if (!serving && !args.has("no-groups")) {
            std::string error;
            if (const auto groups = core::RankGroups::build(scenario.parallel, scenario.model.isMoe(), error)) {
                j["rank_map"]["groups"] = core::rankGroupsJson(*groups);
                j["rank_map"]["ranks"] = core::rankPlacementJson(*groups, scenario.topology);
            } else {
                j["rank_map"]["groups_error"] = error;
            }
        }
        std::cout << j.dump(2) << "\n";
    } else if (serving)
        printInferenceReport(std::cout, scenario, report);
    else
        printReport(std::cout, scenario, report);
    if (!report.valid) {
        for (const auto& e : report.errors)
            std::cerr << "parallax-cli: " << e.field << ": " << e.text << "\n";
        if (args.positional().empty())
            std::cerr << "parallax-cli: (no FILE: the fields no flag sets are the default scenario's, "
                      << core::kDefaultScenarioPreset << ": tp " << scenario.parallel.tp << ", pp "
                      << scenario.parallel.pp << ", vpp " << scenario.parallel.vpp << ", cp " << scenario.parallel.cp
                      << ", global batch " << scenario.training.globalBatch << ")\n";
        return kExitInvalidConfig;
    }
    return kExitOk;
}

} // namespace parallax::cli
