// SPDX-License-Identifier: Apache-2.0
#include "TestScenarios.h"

#include "core/Engine.h"
#include "core/calibration/Calibration.h"
#include "core/costs/CostModel.h"

#include <gtest/gtest.h>

using namespace parallax::core;
using namespace parallax::test;

namespace {
Scenario singleStage()
{
    // One pipeline stage, no DP: the step is compute + TP collectives + optimizer.
    return makeScenario("llama3-8b", "h100-sxm", 1, 8, degrees(8, 1, 1), batch(1, 16, 4096));
}

Scenario dataParallel()
{
    // No tensor parallelism: the busy time is GEMMs, attention and element-wise work only.
    return makeScenario("llama3-8b", "h100-sxm", 1, 8, degrees(1, 1, 8), batch(1, 16, 4096));
}

Calibration gemmAt(double flopsPerSecond)
{
    Calibration c;
    c.path = "test-calibration.json";
    Calibration::GemmPoint g;
    g.m = g.n = g.k = 8192;
    g.flopsPerSecond = flopsPerSecond;
    g.spread = 0.01;
    c.gemm.push_back(g);
    return c;
}

double pipelineCompute(const Report& r)
{
    return r.step.computeSeconds;
}
} // namespace

// A probe's GEMM rate replaces the datasheet fraction: halving it roughly doubles the GEMM-bound
// compute (attention and element-wise work keep their rates, so a little less than 2x).
TEST(CalibrationEngine, HalvingGemmThroughputRoughlyDoublesCompute)
{
    const Scenario s = dataParallel();
    const Report datasheet = evaluate(s);
    const GpuSpec& gpu = s.topology.domains[0].gpu;
    const double defaultRate = gpu.gemmFractionOfPeak * gpu.bf16FlopsPerSecond;
    const Calibration same = gemmAt(defaultRate);
    const Calibration half = gemmAt(defaultRate / 2);
    EvaluateOptions o;
    o.calibration = &same;
    const Report calibratedSame = evaluate(s, o);
    o.calibration = &half;
    const Report calibratedHalf = evaluate(s, o);
    ASSERT_TRUE(datasheet.valid && calibratedSame.valid && calibratedHalf.valid);
    // A measured rate replaces the default curve (waves, depth), which sits a few percent under
    // the flat large-GEMM rate: the same nominal rate lands close, and half the rate roughly doubles.
    EXPECT_NEAR(pipelineCompute(calibratedSame) / pipelineCompute(datasheet), 1.0, 0.15);
    const double ratio = pipelineCompute(calibratedHalf) / pipelineCompute(calibratedSame);
    EXPECT_GT(ratio, 1.6);
    EXPECT_LT(ratio, 2.0);
    EXPECT_LT(calibratedHalf.mfu, datasheet.mfu);
    ASSERT_FALSE(calibratedHalf.calibrated.empty());
    EXPECT_NE(calibratedHalf.calibrated.front().find("test-calibration.json"), std::string::npos);
    EXPECT_TRUE(datasheet.calibrated.empty());
}

// Measured HBM bandwidth drives the memory-bound optimizer step: half the bandwidth, twice the time
// (within the latency-bound batch broadcast and scalar reductions of the fixed per-step work, which
// do not scale with HBM).
TEST(CalibrationEngine, HbmBandwidthScalesTheOptimizerStep)
{
    const Scenario s = singleStage();
    const Report datasheet = evaluate(s);
    Calibration c;
    // Half the stream rate the preset states (its hbm_fraction_of_peak of the datasheet).
    const GpuSpec& gpu = s.topology.domains[0].gpu;
    c.hbmBytesPerSecond = ComputeRates(gpu, DType::Bf16, nullptr, EfficiencyDefaults {}).hbmBytesPerSecond() / 2;
    EvaluateOptions o;
    o.calibration = &c;
    const Report slow = evaluate(s, o);
    const double ratio = slow.step.optimizerSeconds / datasheet.step.optimizerSeconds;
    EXPECT_GT(ratio, 1.9);
    EXPECT_LT(ratio, 2.0);
}

// A measured intra-node all-reduce bus bandwidth replaces NVLink's datasheet number for TP.
TEST(CalibrationEngine, CollectiveBusBandwidthScalesTpCommunication)
{
    const Scenario s = singleStage();
    const Report datasheet = evaluate(s);
    Calibration c;
    Calibration::CollectivePoint allReduce;
    allReduce.ranks = 8;
    allReduce.bytes = 64e6;
    allReduce.busBytesPerSecond = 225e9; // half of NVLink 4's 450 GB/s
    c.collectives.push_back(allReduce);
    EvaluateOptions o;
    o.calibration = &c;
    const Report slow = evaluate(s, o);
    // The bandwidth term doubles; the per-hop latency terms (2 (n-1) alpha per all-reduce) do not:
    // for 33 MB collectives over 8 GPUs that is (28 + 256) / (28 + 128) us ~ 1.8x.
    const double ratio = slow.comm.tpSeconds / datasheet.comm.tpSeconds;
    EXPECT_GT(ratio, 1.7);
    EXPECT_LT(ratio, 2.0);
    EXPECT_GT(slow.stepTimeSeconds, datasheet.stepTimeSeconds);
}
