// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the launch importer (a Megatron-LM command line or NeMo 2.0 recipe overrides, as a user pastes
// or imports them), then the engine on what it accepts. The importer reports bad input as Result::error; a crash,
// a sanitizer report or a hang is a finding, and so is a valid design whose own Megatron-LM export does not import
// back.
#include "core/Engine.h"
#include "core/launch/LaunchArgsImporter.h"
#include "core/launch/MegatronArgsWriter.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace parallax::core;
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto imported = LaunchArgsImporter::import(text, {});
    if (!imported.scenario)
        return 0;
    EvaluateOptions options;
    options.keepTimeline = false;
    const Report report = evaluate(*imported.scenario, options);
    if (!report.valid)
        return 0;
    const auto again = LaunchArgsImporter::import(MegatronArgsWriter::write(*imported.scenario), {});
    if (!again.scenario)
        __builtin_trap();
    return 0;
}
