// SPDX-License-Identifier: Apache-2.0
// The kernels our probe measured on one H200 (data/probe/h200-2026-12-04), read by the tests that check
// the engine's rate models against them.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

namespace parallax::test {

inline const std::filesystem::path& h200ProbeDir()
{
    static const std::filesystem::path dir = std::filesystem::path(PARALLAX_SOURCE_DIR) / "data/probe/h200-2026-12-04";
    return dir;
}

inline nlohmann::json loadH200Probe(const char* name)
{
    std::ifstream in(h200ProbeDir() / name);
    return nlohmann::json::parse(in);
}

// The bf16 8192^3 GEMM measured in the same session (calibration.json), in TFLOP/s; 0 when absent.
inline double measuredBf16Gemm8192()
{
    const nlohmann::json calibration
        = loadH200Probe("calibration.json"); // kept: a range-for over a temporary's member dangles
    for (const auto& g : calibration.at("gemm"))
        if (g.at("dtype") == "bf16" && g.at("m") == 8192 && g.at("n") == 8192 && g.at("k") == 8192)
            return g.at("tflops_median");
    return 0;
}

// The spread of predicted-to-measured ratios: mean absolute error from 1, lowest and highest.
struct RatioFit {
    double meanAbsError = 0, lowest = 1e9, highest = 0;
    int points = 0;

    void add(double ratio)
    {
        meanAbsError += (std::abs(ratio - 1) - meanAbsError) / ++points; // running mean
        lowest = std::min(lowest, ratio);
        highest = std::max(highest, ratio);
    }
};

} // namespace parallax::test
