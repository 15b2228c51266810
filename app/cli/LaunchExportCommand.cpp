#include "CliArgs.h"
#include "Commands.h"

#include "core/ScenarioIo.h"
#include "core/launch/MegatronArgsWriter.h"
#include "core/launch/NemoRecipeWriter.h"
#include "core/launch/TorchtitanTomlWriter.h"

#include <iostream>

namespace parallax::cli {

int runExportLaunch(const std::vector<std::string>& argv)
{
    const Args probe(argv, {});
    std::vector<std::string> known = scenarioFlagNames();
    known.insert(known.end(), { "launch", "out" });
    probe.allowOnly(known);
    const std::string target = probe.value("launch");
    if (target != "megatron" && target != "nemo" && target != "torchtitan")
        throw UsageError("--launch: unknown target \"" + target + "\"; use megatron, nemo or torchtitan");
    // OUT is the last positional argument (or --out); "-" writes to standard output.
    std::string out = probe.value("out");
    std::vector<std::string> rest = argv;
    if (out.empty()) {
        if (probe.positional().empty())
            throw UsageError("--launch " + target + ": give the output file after it (or - for standard output)");
        out = probe.positional().back();
        for (auto it = rest.rbegin(); it != rest.rend(); ++it) {
            if (*it == out) {
                rest.erase(std::next(it).base());
                break;
            }
        }
    }
    const Args args(rest, {});
    const core::Scenario scenario = scenarioFromArgs(args);
    std::string text;
    if (target == "megatron")
        text = core::MegatronArgsWriter::write(scenario);
    else if (target == "nemo")
        text = core::NemoRecipeWriter::write(scenario);
    else
        text = core::TorchtitanTomlWriter::write(scenario);
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
