// SPDX-License-Identifier: Apache-2.0
#include "CliArgs.h"
#include "Commands.h"

#include "core/io/ScenarioIo.h"
#include "core/launch/LaunchArgsImporter.h"

#include <fstream>
#include <iostream>
#include <sstream>

namespace parallax::cli {

int runImportArgs(const std::vector<std::string>& argv)
{
    const Args args(argv, {});
    args.allowOnly({ "gpu", "nodes", "gpus-per-node", "nic-gbps", "out" });
    if (args.positional().size() != 1)
        throw UsageError("give one file with a Megatron-LM command line or NeMo overrides (or - for standard input)");
    const std::string path = args.positional().front();
    std::ostringstream text;
    if (path == "-") {
        text << std::cin.rdbuf();
    } else {
        std::ifstream in(path, std::ios::binary);
        if (!in)
            throw UsageError("cannot open \"" + path + "\" for reading");
        text << in.rdbuf();
    }
    core::LaunchArgsImporter::Defaults defaults;
    defaults.gpu = args.value("gpu", defaults.gpu);
    defaults.nodes = args.integer("nodes", defaults.nodes, 1, 65536);
    defaults.gpusPerNode = args.integer("gpus-per-node", defaults.gpusPerNode, 1, 1024);
    defaults.nicGbps = args.number("nic-gbps", defaults.nicGbps, 1, 1e5);
    const auto result = core::LaunchArgsImporter::import(text.str(), defaults);
    for (const auto& note : result.notes)
        std::cerr << "parallax-cli import-args: note: " << note << "\n";
    if (!result.scenario) {
        std::cerr << "parallax-cli import-args: " << result.error << "\n";
        return kExitInvalidConfig;
    }
    const std::string json = core::serializeScenario(*result.scenario);
    if (!args.has("out")) {
        std::cout << json;
        return kExitOk;
    }
    std::string error;
    if (!core::writeFileAtomically(args.value("out"), json, error))
        throw UsageError("cannot write \"" + args.value("out") + "\": " + error);
    return kExitOk;
}

} // namespace parallax::cli
