// SPDX-License-Identifier: Apache-2.0
#include "CliArgs.h"
#include "Commands.h"

#include "core/io/BoundedRead.h"
#include "core/io/JsonText.h"
#include "core/io/ScenarioIo.h"
#include "core/validation/ValidationSuite.h"

#include <filesystem>
#include <iostream>

namespace parallax::cli {

namespace {

// The published runs: --data FILE, else the copy installed beside the binary
// (bin/../share/parallax), else the source tree's data/ (a build that was not installed). The label
// names it without machine-specific directories.
struct DataFile {
    std::string path;
    std::string label;
};

DataFile dataFile(const Args& args)
{
    if (args.has("data"))
        return { args.value("data"), args.value("data") };
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path installed = exe.parent_path().parent_path() / "share/parallax/published_runs_train.json";
        if (fs::exists(installed, ec))
            return { installed.string(), "share/parallax/published_runs_train.json" };
    }
    return { std::string(PARALLAX_SOURCE_DIR) + "/data/published_runs_train.json", "data/published_runs_train.json" };
}

} // namespace

int runValidate(const std::vector<std::string>& argv)
{
    const Args args(argv, { "json" });
    args.allowOnly({ "json", "data", "scenario" });
    const DataFile data = dataFile(args);
    const std::string& path = data.path;
    std::string text;
    std::string error;
    if (!core::io::readFileBounded(path, text, error))
        throw UsageError(error + " (give the published runs with --data FILE)");
    std::optional<nlohmann::json> parsed = core::io::parseJsonBounded(text, error);
    if (!parsed)
        throw UsageError("--data " + path + ": " + error);
    const nlohmann::json records = std::move(*parsed);
    if (!records.is_array())
        throw UsageError(path + ": expected a JSON array of published runs (data/README.md schema)");
    if (args.has("scenario")) {
        // One run as a scenario file, to open in the app or pass to evaluate.
        for (const auto& record : records) {
            if (!record.is_object() || !record.contains("id") || record["id"] != args.value("scenario"))
                continue;
            const core::PublishedRunConversion c = core::convertPublishedRun(record);
            if (!c.run) {
                std::cerr << c.id << ": not modelled: " << c.reason << "\n";
                return kExitInvalidConfig;
            }
            std::cout << core::serializeScenario(c.run->scenario);
            return kExitOk;
        }
        throw UsageError("--scenario: no run with id \"" + args.value("scenario") + "\" in " + path);
    }
    const core::ValidationSummary summary = core::runValidation(records);
    if (args.has("json"))
        std::cout << core::validationJson(summary).dump(2) << "\n";
    else
        std::cout << "Published runs (" << data.label << ") against the engine, no per-run factors\n\n"
                  << core::validationTable(summary);
    return summary.withinBounds() ? kExitOk : kExitInvalidConfig;
}

} // namespace parallax::cli
