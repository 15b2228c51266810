// SPDX-License-Identifier: Apache-2.0
// The GEMM shape model on Hopper, checked against the probe's measurements on one H200
// (data/probe/h200-2026-12-04) and on one H100 SXM (data/probe/h100-2026-12-05): 278 bf16 and 278 fp8
// shapes each, from dense TP 1/2/8 layers and the Grok-1 and DeepSeek-V3 expert GEMMs. cuBLAS runs GEMMs with fewer
// output tiles than SMs at the large-GEMM rate (stream-K, arXiv:2301.03598), and an fp8 pipeline stage spans twice the
// elements of k. Each test fails without the term it names: the wave-quantized model is 2x slow on few-tile GEMMs.
#include "core/costs/CostModel.h"
#include "core/io/PresetLibrary.h"
#include "tests/core/costs/ProbeData.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace parallax::core;

namespace {

using parallax::test::ProbeRun;

GpuSpec preset(const std::string& id, bool streamK)
{
    GpuSpec g = *PresetLibrary::instance().gpu(id);
    g.gemmStreamK = streamK;
    return g;
}

GpuSpec h200(bool streamK)
{
    return preset("h200", streamK);
}

struct Measured {
    double m, n, k, tflops;
};

std::vector<Measured> measured(const ProbeRun& run, const std::string& dtype)
{
    const std::filesystem::path dir = parallax::test::probeDir(run);
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir / "sweep"))
        files.push_back(e.path());
    files.push_back(dir / "calibration.json");
    std::vector<Measured> rows;
    for (const auto& f : files) {
        std::ifstream in(f);
        const nlohmann::json d = nlohmann::json::parse(in);
        for (const auto& g : d.at("gemm")) {
            if (g.at("dtype") != dtype)
                continue;
            const double m = g.at("m"), n = g.at("n"), k = g.at("k");
            if (m * n * k <= 1024.0 * 1024 * 1024)
                continue; // 1024^3 takes ~7 us: launch-bound, not a shape effect
            rows.push_back({ m, n, k, g.at("tflops_median") });
        }
    }
    return rows;
}

// The GEMM alone (the probe's inputs are already in the GEMM dtype: no fp8 cast pass).
double gemmOnlySeconds(const ComputeRates& r, double m, double n, double k, bool fp8)
{
    return r.gemmSeconds(m, n, k) - (fp8 ? r.memorySeconds(3.0 * m * k) : 0.0);
}

using Fit = parallax::test::RatioFit;

// The engine's rate for each shape against the measured one, with one scale for all shapes (the
// geometric mean of the ratios): the fraction of peak is calibrated elsewhere; this checks the shape.
Fit fitAgainstProbe(const ProbeRun& run, const ComputeRates& r, const std::string& dtype)
{
    const bool fp8 = dtype == "fp8";
    const std::vector<Measured> rows = measured(run, dtype);
    std::vector<double> ratios;
    double logSum = 0;
    for (const Measured& x : rows) {
        const double predicted = 2 * x.m * x.n * x.k / gemmOnlySeconds(r, x.m, x.n, x.k, fp8) / 1e12;
        ratios.push_back(predicted / x.tflops);
        logSum += std::log(ratios.back());
    }
    const double scale = std::exp(logSum / ratios.size());
    Fit fit;
    for (std::size_t i = 0; i < ratios.size(); ++i) {
        fit.add(ratios[i] / scale);
        if (std::getenv("PARALLAX_PRINT_SHAPES") && std::abs(ratios[i] / scale - 1) > 0.15)
            std::printf("  %s %.0f x %.0f x %.0f: measured %.0f TFLOP/s, engine / measured %.2f\n", dtype.c_str(),
                rows[i].m, rows[i].n, rows[i].k, rows[i].tflops, ratios[i] / scale);
    }
    return fit;
}

} // namespace

TEST(StreamK, HopperPresetsUseIt)
{
    for (const char* id : { "h100-sxm", "h200", "h800-sxm" })
        EXPECT_TRUE(PresetLibrary::instance().gpu(id)->gemmStreamK) << id;
    EXPECT_FALSE(PresetLibrary::instance().gpu("a100-sxm-80gb")->gemmStreamK);
}

TEST(StreamK, FewTileGemmRunsAtTheLargeGemmRate)
{
    // 1024 x 1024 x 8192 has 32 tiles of 128x256 (64 of 128x128) for 132 SMs: under half a wave.
    const ComputeRates streamK(h200(true), DType::Bf16, nullptr, EfficiencyDefaults {});
    const ComputeRates waves(h200(false), DType::Bf16, nullptr, EfficiencyDefaults {});
    const double big = streamK.shapeEfficiency(8192, 8192, 8192);
    // Measured: 607 TFLOP/s against 758 at 8192^3 (0.80).
    EXPECT_GT(streamK.shapeEfficiency(1024, 1024, 8192) / big, 0.7);
    EXPECT_LT(waves.shapeEfficiency(1024, 1024, 8192) / big, 0.5);
    // 8192 x 1280 x 8192 (320 tiles, 2.4 waves): measured 813 TFLOP/s, above 8192^3's rate.
    EXPECT_GT(streamK.shapeEfficiency(8192, 1280, 8192) / big, 0.97);
    EXPECT_LT(waves.shapeEfficiency(8192, 1280, 8192) / big, 0.9);
}

TEST(StreamK, Fp8StageSpansTwiceTheElementsOfK)
{
    const ComputeRates bf16(h200(true), DType::Bf16, nullptr, EfficiencyDefaults {});
    const ComputeRates fp8(h200(true), DType::Fp8, nullptr, EfficiencyDefaults {});
    // A large-tile GEMM with k = 256: depth term 256 / (256 + 64) in bf16, 256 / (256 + 128) in fp8.
    const double m = 16384, n = 16384, k = 256;
    const double expected = (256.0 / 384) / (256.0 / 320);
    EXPECT_NEAR(fp8.shapeEfficiency(m, n, k) / bf16.shapeEfficiency(m, n, k), expected, 0.02);
    // The 16-bit GEMMs of an fp8 run keep the 16-bit depth.
    EXPECT_DOUBLE_EQ(fp8.sixteenBit().shapeEfficiency(m, n, k), bf16.shapeEfficiency(m, n, k));
}

class StreamKProbe : public ::testing::TestWithParam<ProbeRun> { };

INSTANTIATE_TEST_SUITE_P(Hopper, StreamKProbe, ::testing::ValuesIn(parallax::test::hopperProbeRuns()),
    [](const auto& info) { return parallax::test::probeRunName(info.param); });

TEST_P(StreamKProbe, Bf16ShapeModelMatchesTheProbe)
{
    const ProbeRun& run = GetParam();
    const Fit streamK = fitAgainstProbe(
        run, ComputeRates(preset(run.gpuPreset, true), DType::Bf16, nullptr, EfficiencyDefaults {}), "bf16");
    const Fit waves = fitAgainstProbe(
        run, ComputeRates(preset(run.gpuPreset, false), DType::Bf16, nullptr, EfficiencyDefaults {}), "bf16");
    std::printf("%s bf16: stream-K %.1f%% mean, %.2f-%.2f; waves %.1f%%, %.2f-%.2f (%d shapes)\n", run.folder.c_str(),
        100 * streamK.meanAbsError, streamK.lowest, streamK.highest, 100 * waves.meanAbsError, waves.lowest,
        waves.highest, streamK.points);
    // H200 (2026-12-04, the shapes the model was built on): 4.8% mean, 0.85-1.22; the wave model 8.3%,
    // 0.55-1.26. H100 SXM (2026-12-05, not used to build it): 5.8%, 0.87-1.36 (the worst: Grok-1's
    // 256-token GEMMs and the largest GEMMs, which the H100 runs 5-10% below the H200 at the same 700 W);
    // the wave model 7.1%, 0.56-1.28.
    EXPECT_LT(streamK.meanAbsError, 0.06);
    EXPECT_GT(streamK.lowest, 0.8);
    EXPECT_LT(streamK.highest, 1.4);
    // The wave-quantized model misses the few-tile shapes by up to 2x.
    EXPECT_GT(waves.meanAbsError, streamK.meanAbsError + 0.01);
    EXPECT_LT(waves.lowest, 0.6);
}

TEST_P(StreamKProbe, Fp8ShapeModelMatchesTheProbe)
{
    const ProbeRun& run = GetParam();
    EfficiencyDefaults sixteenBitDepth;
    sixteenBitDepth.gemmDepthOverhead /= 2; // the old model: an fp8 stage of 64 elements
    const Fit model = fitAgainstProbe(
        run, ComputeRates(preset(run.gpuPreset, true), DType::Fp8, nullptr, EfficiencyDefaults {}), "fp8");
    const Fit shallow
        = fitAgainstProbe(run, ComputeRates(preset(run.gpuPreset, true), DType::Fp8, nullptr, sixteenBitDepth), "fp8");
    const Fit old
        = fitAgainstProbe(run, ComputeRates(preset(run.gpuPreset, false), DType::Fp8, nullptr, sixteenBitDepth), "fp8");
    std::printf("%s fp8: model %.1f%% mean, %.2f-%.2f; 64-element stage %.1f%%, up to %.2f; old %.1f%%, from %.2f\n",
        run.folder.c_str(), 100 * model.meanAbsError, model.lowest, model.highest, 100 * shallow.meanAbsError,
        shallow.highest, 100 * old.meanAbsError, old.lowest);
    // H200 (2026-12-04): 6.4% mean, 0.86-1.57; the worst are fp8 weight gradients with k = 256 (expert and
    // wgrad GEMMs at 256 tokens), still priced up to 1.6x fast (the 64-element stage: 8.2%, up to 1.9x; the
    // wave model with it: 10.6%, from 0.56). H100 SXM (2026-12-05): 7.2%, 0.86-1.42 (8.1%, up to 1.51; 9.2%,
    // from 0.59).
    EXPECT_LT(model.meanAbsError, 0.075);
    EXPECT_GT(model.lowest, 0.8);
    EXPECT_LT(model.highest, 1.65);
    EXPECT_GT(shallow.meanAbsError, model.meanAbsError + 0.005);
    EXPECT_GT(shallow.highest, model.highest + 0.05); // small-k fp8 GEMMs priced too fast without the deeper stage
    EXPECT_GT(old.meanAbsError, model.meanAbsError + 0.015);
    EXPECT_LT(old.lowest, 0.6);
}
