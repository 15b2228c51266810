// SPDX-License-Identifier: Apache-2.0
#include "CliArgs.h"
#include "Commands.h"
#include "TextFormat.h"

#include "core/Units.h"
#include "core/io/PresetLibrary.h"
#include "core/model/ModelMath.h"

#include <iostream>
#include <nlohmann/json.hpp>

namespace parallax::cli {

int runPresets(const std::vector<std::string>& argv)
{
    const Args args(argv, { "json" });
    args.allowOnly({ "json" });
    const auto& lib = core::PresetLibrary::instance();
    if (args.has("json")) {
        nlohmann::json j;
        for (const auto& g : lib.gpus())
            j["gpus"].push_back({ { "id", g.id }, { "name", g.name }, { "hbm_bytes", g.hbmBytes },
                { "bf16_flops_per_s", g.bf16FlopsPerSecond }, { "fp8_flops_per_s", g.fp8FlopsPerSecond },
                { "nvlink_bytes_per_s_per_direction", g.nvlinkBytesPerSecond },
                { "nvlink_domain_size", g.nvlinkDomainSize } });
        for (const auto& m : lib.models())
            j["models"].push_back({ { "id", m.id }, { "name", m.name }, { "params_total", core::totalParameters(m) },
                { "params_active", core::activeParameters(m) }, { "layers", m.layers }, { "hidden", m.hidden } });
        for (const auto& s : lib.scenarios())
            j["scenarios"].push_back({ { "id", s.id }, { "name", s.name }, { "summary", s.summary } });
        std::cout << j.dump(2) << "\n";
        return kExitOk;
    }
    std::cout << "GPUs\n";
    for (const auto& g : lib.gpus())
        std::cout << "  " << padRight(g.id, 16) << g.name << ": " << gib(g.hbmBytes, 0) << ", "
                  << g.bf16FlopsPerSecond / core::kTera << " TFLOP/s bf16 dense, NVLink "
                  << g.nvlinkBytesPerSecond / core::kGB << " GB/s per direction, domain of " << g.nvlinkDomainSize
                  << "\n";
    std::cout << "\nModels\n";
    for (const auto& m : lib.models()) {
        std::cout << "  " << padRight(m.id, 20) << m.name << ": " << billions(core::totalParameters(m));
        if (m.isMoe())
            std::cout << " (" << billions(core::activeParameters(m)) << " active, " << m.moe->experts
                      << " experts, top-" << m.moe->topK << ")";
        if (m.mtpLayers > 0)
            std::cout << " with " << billions(core::mtpParameters(m)) << " of multi-token prediction";
        std::cout << ", " << m.layers << " layers\n";
    }
    std::cout << "\nScenarios\n";
    for (const auto& s : lib.scenarios())
        std::cout << "  " << padRight(s.id, 26) << s.name << (s.summary.empty() ? "" : ": " + s.summary) << "\n";
    return kExitOk;
}

} // namespace parallax::cli
