// SPDX-License-Identifier: Apache-2.0
// Fused causal attention on Hopper, checked against the kernels measured on one H200
// (data/probe/h200-2026-12-04/kernels.json: scaled_dot_product_attention's cuDNN backend, forward and
// backward, 2K-16K tokens). The engine's rate relative to its large-GEMM rate is compared with the measured
// attention rate relative to the 8192^3 GEMM measured in the same session (calibration.json), so the
// sustained-clock fraction cancels. Each test fails without the term it names.
#include "core/costs/CostModel.h"
#include "core/io/PresetLibrary.h"
#include "tests/core/costs/ProbeData.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace parallax::core;

namespace {

using parallax::test::loadH200Probe;
using parallax::test::measuredBf16Gemm8192;

using Fit = parallax::test::RatioFit;

// Every cuDNN point: forward + backward (2.5x the forward's FLOPs, as the engine prices it) against the engine.
Fit fitAgainstProbe(const GpuSpec& gpu)
{
    const ComputeRates r(gpu, DType::Bf16, nullptr, EfficiencyDefaults {});
    const double engineGemm = 2.0 * 8192.0 * 8192 * 8192 / r.gemmSeconds(8192, 8192, 8192);
    const double gemm = measuredBf16Gemm8192();
    EXPECT_GT(gemm, 0);
    Fit fit;
    const nlohmann::json kernels = loadH200Probe("kernels.json");
    for (const auto& a : kernels.at("attention")) {
        if (a.at("backend") != "cudnn" || !a.contains("fwd_tflops"))
            continue;
        const double fwd = a.at("fwd_tflops"), bwd = a.at("bwd_tflops"), seq = a.at("seq");
        const double measured = 3.5 / (1.0 / fwd + 2.5 / bwd) / gemm;
        const double flops = 1e12;
        const double engine = 3.5 * flops / (3.5 * r.causalAttentionSeconds(flops, seq)) / engineGemm;
        const double ratio = engine / measured;
        fit.add(ratio);
    }
    return fit;
}

GpuSpec h200()
{
    return *PresetLibrary::instance().gpu("h200");
}

} // namespace

TEST(AttentionRate, HopperPresetsStateTheMeasuredRate)
{
    for (const char* id : { "h100-sxm", "h200", "h800-sxm" }) {
        const GpuSpec g = *PresetLibrary::instance().gpu(id);
        EXPECT_GT(g.attentionFractionOfPeak, 0) << id;
        EXPECT_GT(g.attentionKeyOverhead, 0) << id;
    }
    // Not measured: the flat default rate.
    EXPECT_EQ(PresetLibrary::instance().gpu("a100-sxm-80gb")->attentionKeyOverhead, 0);
}

TEST(AttentionRate, FallsAtShortSequences)
{
    const ComputeRates r(h200(), DType::Bf16, nullptr, EfficiencyDefaults {});
    // Measured (Llama 3 70B heads at TP 1): 420 TFLOP/s at 2048 tokens, 503 at 8192, 532 at 16384.
    EXPECT_LT(r.causalAttentionEfficiency(2048), 0.65);
    EXPECT_GT(r.causalAttentionEfficiency(2048), 0.55);
    EXPECT_GT(r.causalAttentionEfficiency(16384) / r.causalAttentionEfficiency(2048), 1.4);
    EXPECT_DOUBLE_EQ(
        r.causalAttentionSeconds(1e12, 8192), r.attentionSeconds(1e12) / r.causalAttentionEfficiency(8192));
}

TEST(AttentionRate, MatchesTheH200Probe)
{
    const Fit model = fitAgainstProbe(h200());
    // Measured 2026-12-04: 12 points (3 head layouts x 4 lengths).
    ASSERT_EQ(model.points, 12);
    EXPECT_LT(model.meanAbsError, 0.06);
    EXPECT_GT(model.lowest, 0.85);
    EXPECT_LT(model.highest, 1.15);
    // The flat default (0.5 of peak at every length) misses the short sequences.
    GpuSpec flat = h200();
    flat.attentionFractionOfPeak = 0;
    flat.attentionKeyOverhead = 0;
    const Fit old = fitAgainstProbe(flat);
    EXPECT_GT(old.meanAbsError, 0.15);
    EXPECT_GT(old.highest, 1.3);
}
