// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the scenario reader, then the engine on whatever it accepts. Any crash,
// sanitizer report, exception or unbounded allocation is a finding.
#include "core/Engine.h"
#include "core/io/ScenarioIo.h"
#include "core/report/ReportJson.h"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace parallax::core;
    const std::string text(reinterpret_cast<const char*>(data), size);
    LoadError error;
    auto scenario = parseScenario(text, error);
    if (!scenario)
        return 0;
    // A saved file must read back (unknown keys included).
    LoadError again;
    if (!parseScenario(serializeScenario(*scenario), again))
        __builtin_trap();
    EvaluateOptions options;
    options.keepTimeline = false;
    const Report report = evaluate(*scenario, options);
    (void)reportToJson(*scenario, report).dump();
    return 0;
}
