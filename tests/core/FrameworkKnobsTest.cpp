// SPDX-License-Identifier: Apache-2.0
// How the framework runs (the scenario's kernel and overlap switches) and the GEMM shape curve:
// each switch moves the engine's numbers the way its physics says, and no further.
#include "core/Engine.h"
#include "core/costs/CostModel.h"
#include "core/io/PresetLibrary.h"
#include "core/report/ReportMarkdown.h"

#include "TestScenarios.h"

#include <gtest/gtest.h>

using namespace parallax::core;
using namespace parallax::test;

namespace {

Report run(const Scenario& s)
{
    EvaluateOptions o;
    o.keepTimeline = false;
    const Report r = evaluate(s, o);
    EXPECT_TRUE(r.valid);
    return r;
}

} // namespace

// Tile/wave quantization (NVIDIA "Matrix Multiplication Background"): on the A100's 108 SMs a
// 1024 x 6144 output is 192 tiles of 128x256, two waves of which the second is 84/108 full, so the
// GEMM runs at 192/216 of the rate of one that fills its waves; the depth term k/(k+64) on top.
TEST(GemmCurve, WaveQuantizationAndDepth)
{
    const GpuSpec a100 = *PresetLibrary::instance().gpu("a100-sxm-80gb");
    const ComputeRates rates(a100, DType::Bf16, nullptr, EfficiencyDefaults {});
    EXPECT_NEAR(rates.waveEfficiency(1024, 6144), 192.0 / 216.0, 1e-12);
    EXPECT_NEAR(rates.waveEfficiency(6144, 6912), 1.0, 1e-12); // 1296 tiles = 12 full waves
    const double peak = a100.gemmFractionOfPeak * a100.bf16FlopsPerSecond;
    const double k = 8192;
    const double seconds = rates.gemmSeconds(6144, 6912, k);
    EXPECT_NEAR(seconds, 2.0 * 6144 * 6912 * k / (peak * k / (k + 64)), 1e-12 * seconds);
    // A GPU without an SM count keeps a flat curve.
    GpuSpec flat = a100;
    flat.smCount = 0;
    EXPECT_DOUBLE_EQ(ComputeRates(flat, DType::Bf16, nullptr, EfficiencyDefaults {}).waveEfficiency(1024, 6144), 1.0);
}

// Unfused attention stores the s x s scores and spends memory-bound passes on them: more memory
// and more time than the fused kernel.
TEST(FrameworkKnobs, UnfusedAttentionCostsMemoryAndTime)
{
    Scenario s = makeScenario("llama3-8b", "h100-sxm", 1, 8, degrees(1, 1, 8), batch(1, 64, 4096, Recompute::None));
    const Report fused = run(s);
    s.training.flashAttention = false;
    const Report unfused = run(s);
    EXPECT_GT(unfused.stages[0].activationsBytes, 1.5 * fused.stages[0].activationsBytes);
    EXPECT_GT(unfused.stepTimeSeconds, 1.05 * fused.stepTimeSeconds);
}

// TP communication overlap hides TP collectives behind the GEMMs: less exposed TP time, never more.
TEST(FrameworkKnobs, TpCommOverlapHidesTpCollectives)
{
    Scenario s = makeScenario("llama3-70b", "h100-sxm", 8, 8, degrees(8, 8, 1), batch(1, 64, 4096));
    const Report plain = run(s);
    s.parallel.tpCommOverlap = true;
    const Report overlapped = run(s);
    EXPECT_LT(overlapped.comm.tpSeconds, 0.5 * plain.comm.tpSeconds);
    EXPECT_LT(overlapped.stepTimeSeconds, plain.stepTimeSeconds);
}

// Without DP overlap the whole gradient sync is exposed; fp32 gradients double its bytes.
TEST(FrameworkKnobs, DpOverlapAndGradientPrecision)
{
    Scenario s = makeScenario("llama3-8b", "h100-sxm", 8, 8, degrees(1, 1, 64), batch(1, 128, 4096, Recompute::Full));
    s.parallel.zero = 1;
    const Report overlapped = run(s);
    s.parallel.dpOverlap = false;
    const Report exposed = run(s);
    EXPECT_NEAR(exposed.comm.dpSeconds, exposed.comm.dpTotalSeconds, 1e-12);
    EXPECT_GT(exposed.comm.dpSeconds, overlapped.comm.dpSeconds);
    s.parallel.gradReduceInFp32 = false;
    const Report bf16 = run(s);
    EXPECT_LT(bf16.comm.dpTotalSeconds, 0.8 * exposed.comm.dpTotalSeconds);
}

// Blocking pipeline sends put every send on its stage's timeline.
TEST(FrameworkKnobs, BlockingSendsLengthenThePipeline)
{
    Scenario s = makeScenario("llama3-70b", "h100-sxm", 8, 8, degrees(8, 8, 1), batch(1, 64, 4096));
    const Report overlapped = run(s);
    s.parallel.p2pOverlap = false;
    const Report blocking = run(s);
    EXPECT_GT(blocking.step.pipelineSeconds, overlapped.step.pipelineSeconds);
    EXPECT_GT(blocking.comm.ppSeconds, 0);
}

// Exports and reports say when a scenario runs with non-default framework switches.
TEST(FrameworkKnobs, ConfigurationLineNamesNonDefaultSwitches)
{
    Scenario s = makeScenario("llama3-70b", "h100-sxm", 8, 8, degrees(8, 8, 1), batch(1, 64, 4096));
    const std::string plain = describeConfiguration(s);
    EXPECT_EQ(plain.find("overlap"), std::string::npos) << plain;
    s.training.flashAttention = false;
    s.parallel.tpCommOverlap = true;
    s.parallel.p2pOverlap = false;
    const std::string knobs = describeConfiguration(s);
    EXPECT_NE(knobs.find("unfused attention"), std::string::npos) << knobs;
    EXPECT_NE(knobs.find("TP comm overlap"), std::string::npos) << knobs;
    EXPECT_NE(knobs.find("blocking p2p"), std::string::npos) << knobs;
}

// The report's config line names a set --ddp-bucket-size in millions of parameters, and only with DP overlap.
TEST(FrameworkKnobs, DdpBucketSizeReadsInMillions)
{
    parallax::core::ParallelConfig p;
    p.ddpBucketSize = 100000000;
    const parallax::core::TrainingConfig t;
    const auto has = [&](const std::string& text) {
        for (const std::string& s : parallax::core::nonDefaultSwitches(p, t))
            if (s == text)
                return true;
        return false;
    };
    EXPECT_TRUE(has("DDP buckets of 100M parameters"));
    p.ddpBucketSize = 2500000;
    EXPECT_TRUE(has("DDP buckets of 2.5M parameters"));
    p.dpOverlap = false;
    EXPECT_FALSE(has("DDP buckets of 2.5M parameters"));
}
