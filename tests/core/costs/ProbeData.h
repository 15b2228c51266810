// SPDX-License-Identifier: Apache-2.0
// The kernels our probe measured on Hopper GPUs (data/probe/h200-2026-12-04 on one H200,
// data/probe/h100-2026-12-05 on one H100 SXM), read by the tests that check the engine's rate models
// against them: each test runs once per probe run, with that GPU's own preset.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

namespace parallax::test {

// One probe session on one GPU: its folder under data/probe and the GPU preset the engine prices it with.
struct ProbeRun {
    std::string folder;
    std::string gpuPreset;
};

inline void PrintTo(const ProbeRun& run, std::ostream* out)
{
    *out << run.folder;
}

inline const std::vector<ProbeRun>& hopperProbeRuns()
{
    static const std::vector<ProbeRun> runs = { { "h200-2026-12-04", "h200" }, { "h100-2026-12-05", "h100-sxm" } };
    return runs;
}

// A gtest parameter name: the preset id with '-' as '_'.
inline std::string probeRunName(const ProbeRun& run)
{
    std::string name = run.gpuPreset;
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

inline std::filesystem::path probeDir(const ProbeRun& run)
{
    return std::filesystem::path(PARALLAX_SOURCE_DIR) / "data/probe" / run.folder;
}

inline nlohmann::json loadProbe(const ProbeRun& run, const char* name)
{
    std::ifstream in(probeDir(run) / name);
    return nlohmann::json::parse(in);
}

inline const ProbeRun& h200Probe()
{
    return hopperProbeRuns().front();
}

// The bf16 8192^3 GEMM measured in the same session (calibration.json), in TFLOP/s; 0 when absent.
inline double measuredBf16Gemm8192(const ProbeRun& run)
{
    const nlohmann::json calibration
        = loadProbe(run, "calibration.json"); // kept: a range-for over a temporary's member dangles
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
