#include "CliArgs.h"
#include "Commands.h"
#include "InferenceTable.h"
#include "ReportTable.h"

#include "core/Engine.h"
#include "core/ReportJson.h"

#include <iostream>

namespace parallax::cli {

int runEvaluate(const std::vector<std::string>& argv)
{
    const Args args(argv, { "json" });
    std::vector<std::string> known = scenarioFlagNames();
    known.insert(known.end(), { "json", "calibration" });
    args.allowOnly(known);
    const core::Scenario scenario = scenarioFromArgs(args);
    const auto calibration = calibrationFromArgs(args);
    core::EvaluateOptions options;
    options.calibration = calibration ? &*calibration : nullptr;
    options.keepTimeline = false;
    const core::Report report = core::evaluate(scenario, options);
    if (args.has("json"))
        std::cout << core::reportToJson(scenario, report).dump(2) << "\n";
    else if (report.inference || scenario.mode == core::ScenarioMode::Inference)
        printInferenceReport(std::cout, scenario, report);
    else
        printReport(std::cout, scenario, report);
    if (!report.valid) {
        for (const auto& e : report.errors)
            std::cerr << "parallax-cli: " << e.field << ": " << e.text << "\n";
        return kExitInvalidConfig;
    }
    return kExitOk;
}

} // namespace parallax::cli
