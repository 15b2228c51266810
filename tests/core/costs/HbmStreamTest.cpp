// SPDX-License-Identifier: Apache-2.0
// Hopper's HBM stream rate: the presets state what the probe's streaming kernel sustained on one H200
// (data/probe/h200-2026-12-04/calibration.json), streaming kernels run at it, and the layer kernels keep
// their own share of the default stream (EfficiencyDefaults::layerKernelShareOfStream).
#include "core/costs/CostModel.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "tests/core/costs/ProbeData.h"

#include <gtest/gtest.h>

using namespace parallax::core;

TEST(HbmStream, HopperPresetsStateTheMeasuredStreamRate)
{
    const nlohmann::json calibration = parallax::test::loadProbe(parallax::test::h200Probe(), "calibration.json");
    const double measured = calibration.at("hbm").at("stream_gb_per_s_median").get<double>() * 1e9;
    const GpuSpec h200 = *PresetLibrary::instance().gpu("h200");
    EXPECT_NEAR(h200.hbmFractionOfPeak, measured / h200.hbmBytesPerSecond, 0.01); // 3896 / 4800 = 0.81
    for (const char* id : { "h100-sxm", "h800-sxm" })
        EXPECT_DOUBLE_EQ(PresetLibrary::instance().gpu(id)->hbmFractionOfPeak, h200.hbmFractionOfPeak) << id;
    // The H100 SXM's own run (2026-12-05, after the fraction was carried to it): 2786 of 3350 GB/s = 0.83.
    const nlohmann::json h100Run
        = parallax::test::loadProbe(parallax::test::hopperProbeRuns().at(1), "calibration.json");
    const GpuSpec h100 = *PresetLibrary::instance().gpu("h100-sxm");
    const double h100Measured = h100Run.at("hbm").at("stream_gb_per_s_median").get<double>() * 1e9;
    EXPECT_NEAR(h100.hbmFractionOfPeak, h100Measured / h100.hbmBytesPerSecond, 0.03);
    // GPUs the probe has not measured keep the default.
    EXPECT_EQ(PresetLibrary::instance().gpu("a100-sxm-80gb")->hbmFractionOfPeak, 0.0);
}

TEST(HbmStream, StreamingKernelsUseItAndLayerKernelsKeepTheirShare)
{
    const GpuSpec h200 = *PresetLibrary::instance().gpu("h200");
    const EfficiencyDefaults d;
    const ComputeRates r(h200, DType::Bf16, nullptr, d);
    const double bytes = 1e9;
    EXPECT_DOUBLE_EQ(r.memorySeconds(bytes), bytes / (h200.hbmBytesPerSecond * h200.hbmFractionOfPeak));
    EXPECT_DOUBLE_EQ(r.layerKernelSeconds(bytes),
        bytes / (h200.hbmBytesPerSecond * d.hbmFractionOfPeak * d.layerKernelShareOfStream));
    GpuSpec unmeasured = h200;
    unmeasured.hbmFractionOfPeak = 0;
    EXPECT_DOUBLE_EQ(ComputeRates(unmeasured, DType::Bf16, nullptr, d).memorySeconds(bytes),
        bytes / (h200.hbmBytesPerSecond * d.hbmFractionOfPeak));
}

TEST(HbmStream, ScenarioFilesCarryTheField)
{
    const GpuSpec h200 = *PresetLibrary::instance().gpu("h200");
    const nlohmann::json j = gpuSpecToJson(h200);
    ASSERT_TRUE(j.contains("hbm_fraction_of_peak"));
    LoadError error;
    const auto back = parseGpuSpec(j, "hardware.gpu", error);
    ASSERT_TRUE(back) << error.text();
    EXPECT_DOUBLE_EQ(back->hbmFractionOfPeak, h200.hbmFractionOfPeak);
    nlohmann::json bad = j;
    bad["hbm_fraction_of_peak"] = 1.5;
    EXPECT_FALSE(parseGpuSpec(bad, "hardware.gpu", error));
    EXPECT_NE(error.text().find("hbm_fraction_of_peak"), std::string::npos) << error.text();
}
