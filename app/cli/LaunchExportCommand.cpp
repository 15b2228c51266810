// SPDX-License-Identifier: Apache-2.0
#include "CliArgs.h"
#include "Commands.h"

#include "core/io/ScenarioIo.h"
#include "core/launch/ServingLaunchWriter.h"
#include "core/launch/SlurmBenchmarkWriter.h"
#include "core/launch/TrainingLaunchWriter.h"

#include <iostream>
#include <stdexcept>

namespace parallax::cli {

int runExportLaunch(const std::vector<std::string>& argv)
{
    const Args probe(argv, {});
    std::vector<std::string> known = scenarioFlagNames();
    known.insert(known.end(), { "launch", "out" });
    probe.allowOnly(known);
    const std::string target = probe.value("launch");
    const auto serving = core::parseServingFramework(target);
    const auto training = core::parseLaunchFramework(target);
    if (!training && target != "slurm" && !serving)
        throw UsageError("--launch: unknown target \"" + target
            + "\"; use megatron, nemo, torchtitan or slurm (training), vllm, sglang or trtllm (serving)");
    // OUT follows the target ("--launch megatron OUT", "-" for standard output) or comes as --out, so
    // that the scenario file is never mistaken for it.
    std::string out = probe.value("out");
    std::vector<std::string> rest = argv;
    if (out.empty()) {
        for (std::size_t i = 0; i + 1 < rest.size(); ++i) {
            if (rest[i] == "--launch" && i + 2 < rest.size()
                && (rest[i + 2] == "-" || rest[i + 2].rfind("--", 0) != 0)) {
                out = rest[i + 2];
                rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i) + 2);
                break;
            }
        }
    }
    if (out.empty())
        throw UsageError("--launch " + target + ": give the output file after it (or - for standard output)");
    if (out.size() > 14 && out.compare(out.size() - 14, 14, ".parallax.json") == 0)
        throw UsageError("--launch " + target + " " + out
            + ": that is a scenario file name; write the launch configuration to another file");
    const Args args(rest, {});
    const core::Scenario scenario = scenarioFromArgs(args);
    std::string text;
    if (serving) {
        try {
            text = core::ServingLaunchWriter::write(scenario, *serving);
        } catch (const std::invalid_argument& e) {
            throw UsageError("--launch " + target + ": " + e.what());
        }
    } else if (target == "slurm") {
        try {
            text = core::SlurmBenchmarkWriter::write(scenario);
        } catch (const std::invalid_argument& e) {
            throw UsageError("--launch slurm: " + std::string(e.what()));
        }
    } else if (scenario.mode == core::ScenarioMode::Inference) {
        throw UsageError(
            "--launch " + target + ": this is a serving design (mode inference); use --launch vllm, sglang or trtllm");
    } else {
        text = core::writeTrainingLaunch(scenario, *training);
    }
    if (out == "-") {
        std::cout << text;
        return kExitOk;
    }
    std::string error;
    if (!core::writeFileAtomically(out, text, error))
        throw UsageError("cannot write \"" + out + "\": " + error);
    std::cerr << "parallax-cli export: wrote " << target << " launch configuration to " << out << "\n";
    return kExitOk;
}

} // namespace parallax::cli
