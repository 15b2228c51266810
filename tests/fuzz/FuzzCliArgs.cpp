// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the argument parser of parallax-cli and the scenario it builds from flags.
// The input is the argument list, one argument per line. Only UsageError and InvalidConfigError
// (exit codes 2 and 1 with a message) may leave the parser.
#include "app/cli/CliArgs.h"
#include "core/Engine.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace parallax;
    std::vector<std::string> argv(1);
    for (std::size_t i = 0; i < size; ++i) {
        if (data[i] == '\n')
            argv.emplace_back();
        else
            argv.back().push_back(static_cast<char>(data[i]));
    }
    try {
        const cli::Args args(argv, { "json" });
        std::vector<std::string> known = cli::scenarioFlagNames();
        known.insert(known.end(), { "json", "calibration" });
        args.allowOnly(known);
        const core::Scenario scenario = cli::scenarioFromArgs(args);
        (void)cli::calibrationFromArgs(args);
        core::EvaluateOptions options;
        options.keepTimeline = false;
        (void)core::evaluate(scenario, options);
    } catch (const cli::UsageError&) {
    } catch (const cli::InvalidConfigError&) {
    }
    return 0;
}
