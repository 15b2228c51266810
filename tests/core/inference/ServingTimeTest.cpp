// SPDX-License-Identifier: Apache-2.0
#include "InferenceTestSupport.h"

#include "core/cluster/CommGroups.h"
#include "core/inference/InferenceEngine.h"
#include "core/inference/ServingTime.h"
#include "core/model/ModelMath.h"

#include <gtest/gtest.h>

using namespace parallax::core;
using parallax::test::servingScenario;

TEST(ServingTime, DenseDecodeAtBatchOneIsWeightsOverHbmPlusTpCollectives)
{
    Scenario s = servingScenario("llama3-70b", "h100-sxm", 8, 8);
    s.inference.isl = 128;
    s.inference.osl = 128;
    s.inference.concurrency = 1;
    const Report r = evaluate(s);
    ASSERT_TRUE(r.valid);
    const InferenceReport& in = *r.inference;
    // By hand: every weight of a GPU is read once per token at the datasheet 3.35 TB/s, and each of the
    // 80 layers all-reduces one token's 8192 bf16 activations twice over the 8 NVLink GPUs.
    const double weightSeconds = in.weightsBytesPerGpu / 3.35e12;
    const RankMap map = RankMap::build(s.parallel, &s.topology);
    const CommGroup tp = commGroupFor(map.groups(Dim::Tp).front().ranks, s.topology, map);
    const double allReduces = 80 * 2 * ringCollectiveSeconds(CollectiveKind::AllReduce, 8, 2.0 * 8192, tp.intra);
    const double byHand = weightSeconds + allReduces;
    EXPECT_NEAR(in.tpotSeconds, byHand, 0.2 * byHand) << in.tpotSeconds << " vs " << byHand;
    EXPECT_GT(in.decode.weightsSeconds, 0.8 * (in.tpotSeconds - in.decode.tpSeconds));
}

TEST(ServingTime, TimePerTokenFallsWithConcurrencyUntilComputeBound)
{
    Scenario s = servingScenario("llama3-70b", "h100-sxm", 8, 8);
    s.inference.isl = 128;
    s.inference.osl = 128;
    double previousPerToken = 1e9;
    double lastTpot = 0;
    bool computeBound = false;
    for (int c = 1; c <= 4096; c *= 2) {
        s.inference.concurrency = c;
        const Report r = evaluate(s);
        ASSERT_TRUE(r.valid);
        const InferenceReport& in = *r.inference;
        ASSERT_EQ(in.concurrency, c);
        const double perToken = in.tpotSeconds / c;
        EXPECT_LE(perToken, previousPerToken * 1.0001) << "concurrency " << c;
        EXPECT_GE(in.tpotSeconds, lastTpot) << "a step never gets faster with more requests";
        previousPerToken = perToken;
        lastTpot = in.tpotSeconds;
        if (c == 1) {
            EXPECT_EQ(in.decode.computeSeconds, 0.0) << "batch 1 is bound by HBM";
        }
        if (in.decode.computeSeconds > 0.5 * in.tpotSeconds)
            computeBound = true;
    }
    EXPECT_TRUE(computeBound);
    // Once compute-bound, doubling the requests nearly doubles the step.
    s.inference.concurrency = 2048;
    const double at2048 = evaluate(s).inference->tpotSeconds;
    s.inference.concurrency = 4096;
    const double at4096 = evaluate(s).inference->tpotSeconds;
    EXPECT_GT(at4096 / at2048, 1.8);
}

TEST(ServingTime, PrefillIsComputeBoundAndGrowsWithThePrompt)
{
    Scenario s = servingScenario("llama3-70b", "h100-sxm", 8, 8);
    s.inference.isl = 8192;
    s.inference.osl = 256;
    const InferenceReport a = *evaluate(s).inference;
    // 2 x active parameters x tokens FLOPs over 8 GPUs at no more than the dense bf16 peak.
    const double floor = 2.0 * activeParameters(s.model) * 8192 / 8 / 989.4e12;
    EXPECT_GT(a.ttftSeconds, floor);
    EXPECT_LT(a.ttftSeconds, 4 * floor);
    s.inference.isl = 16384;
    const InferenceReport b = *evaluate(s).inference;
    EXPECT_GT(b.ttftSeconds, 2 * a.ttftSeconds); // causal attention grows quadratically
}

TEST(ServingTime, MoeDecodeAddsAllToAllWithExpertParallelism)
{
    Scenario s = servingScenario("deepseek-v3", "h200", 8, 1, 1, 8, 8);
    s.inference.weightFormat = WeightFormat::Fp8;
    s.inference.concurrency = 64;
    const InferenceReport in = *evaluate(s).inference;
    EXPECT_GT(in.decode.epSeconds, 0);
    EXPECT_EQ(in.decode.tpSeconds, 0); // attention is not tensor-parallel under DP-attention
    Scenario t = servingScenario("deepseek-v3", "h200", 8, 8);
    t.inference.weightFormat = WeightFormat::Fp8;
    t.inference.concurrency = 64;
    const InferenceReport tp = *evaluate(t).inference;
    EXPECT_EQ(tp.decode.epSeconds, 0);
    EXPECT_GT(tp.decode.tpSeconds, 0);
}

TEST(ServingTime, PipelineAddsAHopPerStage)
{
    Scenario s = servingScenario("llama3-70b", "h100-sxm", 8, 4, 2);
    s.inference.concurrency = 1;
    const InferenceReport in = *evaluate(s).inference;
    EXPECT_GT(in.decode.ppSeconds, 0);
    EXPECT_GT(in.ttftSeconds, 0);
}

TEST(ServingTime, DecodeKernelsRunOneAfterAnotherNearTheRidge)
{
    // Llama 3 70B fp8 on one H200 at 160 requests of ~1.2K tokens: the GEMMs' math and weight stream are
    // about equal, and the attention kernel reads the KV cache after them, not under them.
    Scenario s = servingScenario("llama3-70b", "h200", 1, 1);
    s.inference.weightFormat = WeightFormat::Fp8;
    s.inference.kvDtype = KvDtype::Fp8;
    s.inference.isl = 128;
    s.inference.osl = 2048;
    s.inference.concurrency = 160;
    const InferenceReport in = *evaluate(s).inference;
    const ComputeRates rates(s.topology.gpuSpec(0), DType::Fp8, nullptr, EfficiencyDefaults {});
    const double hbm = s.topology.gpuSpec(0).hbmBytesPerSecond * EfficiencyDefaults {}.hbmFractionOfPeak;
    const double kvBytes = 160 * in.kvBytesPerTokenPerGpu * (128 + 1024);
    const double gemmFlops = 2.0 * activeParameters(s.model) * 160;
    // One roofline over the whole layer: max(all bytes / HBM, all FLOPs / the large-GEMM rate).
    const double roofline
        = std::max((in.weightsBytesPerGpu + kvBytes) / hbm, gemmFlops / sustainedGemmFlopsPerSecond(rates));
    EXPECT_GT(in.tpotSeconds, 1.25 * roofline) << in.tpotSeconds << " vs " << roofline;
    EXPECT_LT(in.tpotSeconds, 2.0 * roofline);
    EXPECT_GT(in.decode.kvSeconds, 0.9 * kvBytes / hbm); // the attention kernel is bound by its reads
}

TEST(ServingTime, ShortPromptsArePrefilledTogether)
{
    // 256 prompts of 128 tokens: prefilled one by one, each would stream all weights for 128 rows;
    // batched up to max_num_batched_tokens (8192), 64 share one pass.
    Scenario s = servingScenario("llama3-8b", "h100-sxm", 1, 1);
    s.inference.weightFormat = WeightFormat::Fp8;
    s.inference.isl = 128;
    s.inference.osl = 128;
    s.inference.concurrency = 256;
    const InferenceReport in = *evaluate(s).inference;
    ASSERT_EQ(in.concurrency, 256);
    const double oneByOne = 256.0 * 128 / (256 * in.ttftSeconds + 128 * in.tpotSeconds);
    EXPECT_GT(in.tokensPerSecondPerGpu, 1.15 * oneByOne) << in.tokensPerSecondPerGpu << " vs " << oneByOne;
    EXPECT_LT(in.tokensPerSecondPerGpu, in.decodeTokensPerSecondPerGpu); // prefill still costs something
}

TEST(ServingTime, PrefillAttentionPaysTheMeasuredPerTileCost)
{
    // A 2048-token prompt's causal kernel visits (2048 + 128) / 2 keys per 128-row query tile and pays the
    // H100 preset's 730-key tile cost: 0.6 of the long-sequence attention rate (ComputeRates).
    Scenario s = servingScenario("llama3-8b", "h100-sxm", 1, 1);
    s.inference.isl = 2048;
    s.inference.osl = 16;
    s.inference.concurrency = 1;
    const double withTileCost = evaluate(s).inference->ttftSeconds;
    GpuSpec g = s.topology.gpuSpec(0);
    ASSERT_GT(g.attentionKeyOverhead, 0);
    g.attentionKeyOverhead = 0;
    s.topology = Topology::regular(g, 1, 1, 400);
    const double flat = evaluate(s).inference->ttftSeconds;
    // Attention is about 4.5% of this prefill (bf16 on Llama 3 8B); the tile cost adds two thirds of it.
    EXPECT_GT(withTileCost, 1.02 * flat) << withTileCost << " vs " << flat;
    EXPECT_LT(withTileCost, 1.06 * flat);
}
