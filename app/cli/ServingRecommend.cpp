// SPDX-License-Identifier: Apache-2.0
#include "ServingRecommend.h"

#include "TextFormat.h"

#include "core/inference/ServingSearch.h"

#include <iostream>

namespace parallax::cli {

namespace {
std::string layoutText(const core::ServingCandidate& c)
{
    std::string s = "tp=" + std::to_string(c.layout.tp) + " pp=" + std::to_string(c.layout.pp)
        + " dp=" + std::to_string(c.layout.dp) + " ep=" + std::to_string(c.layout.ep);
    return c.dpAttention ? s + " DP-attention" : s;
}
} // namespace

int runServingRecommend(const Args& args, const core::Scenario& scenario, const core::Calibration* calibration)
{
    core::ServingLimits limits;
    limits.ttftSeconds = args.number("ttft-ms", 0, 0, 1e7) * 1e-3;
    limits.tpotSeconds = args.number("tpot-ms", 0, 0, 1e7) * 1e-3;
    core::EvaluateOptions options;
    options.calibration = calibration;
    const core::ServingSearchResult r
        = core::searchServingLayouts(scenario, limits, args.integer("top", 5, 1, 1000), options);
    if (args.has("json")) {
        std::cout << core::servingSearchToJson(r).dump(2) << "\n";
        return kExitOk;
    }
    auto& out = std::cout;
    out << "Serving recommendation: " << scenario.name << "\n";
    out << "  " << scenario.topology.gpuCount() << " x " << scenario.topology.domains.front().gpu.name << ", weights "
        << core::toString(scenario.inference.weightFormat) << ", KV " << core::toString(scenario.inference.kvDtype)
        << ", isl " << scenario.inference.isl << " + osl " << scenario.inference.osl << ", limits TTFT "
        << (limits.ttftSeconds > 0 ? duration(limits.ttftSeconds) : "none") << ", TPOT "
        << (limits.tpotSeconds > 0 ? duration(limits.tpotSeconds) : "none") << "\n\n";
    if (r.candidates.empty()) {
        out << "No layout meets the limits.\n";
    } else {
        out << "  #  " << padRight("layout", 30) << padLeft("conc.", 7) << padLeft("TTFT", 11) << padLeft("TPOT", 11)
            << padLeft("tok/s/GPU", 11) << "  KV cache\n";
        for (std::size_t i = 0; i < r.candidates.size(); ++i) {
            const auto& c = r.candidates[i];
            char tps[32];
            std::snprintf(tps, sizeof tps, "%.1f", c.tokensPerSecondPerGpu);
            out << padLeft(std::to_string(i + 1), 3) << "  " << padRight(layoutText(c), 30)
                << padLeft(std::to_string(c.concurrency), 7) << padLeft(duration(c.ttftSeconds), 11)
                << padLeft(duration(c.tpotSeconds), 11) << padLeft(tps, 11) << "  " << c.verdict << "\n";
        }
        out << "\nWhy #1: " << r.candidates.front().reason << "\n";
        for (std::size_t i = 1; i < r.candidates.size(); ++i)
            out << "  #" << i + 1 << ": " << r.candidates[i].reason << "\n";
    }
    if (!r.rejected.empty()) {
        out << "\nWhy not (the strongest layout of each family of losers):\n";
        for (const auto& c : r.rejected)
            out << "  " << layoutText(c) << ": " << c.reason << "\n";
    }
    return kExitOk;
}

} // namespace parallax::cli
