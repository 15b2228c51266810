// SPDX-License-Identifier: Apache-2.0
#include "InferenceTestSupport.h"

#include "core/Units.h"
#include "core/inference/InferenceEngine.h"
#include "core/inference/ServingMemory.h"

#include <gtest/gtest.h>

using namespace parallax::core;
using parallax::test::servingScenario;

namespace {
const InferenceReport& inference(const Report& r)
{
    EXPECT_TRUE(r.valid) << (r.errors.empty() ? "" : r.errors.front().text);
    return *r.inference;
}
} // namespace

TEST(ServingMemory, Llama405bFp8On8H100FitsWithTheHandDerivedKvCapacity)
{
    Scenario s = servingScenario("llama3-405b", "h100-sxm", 8, 8);
    s.inference.weightFormat = WeightFormat::Fp8;
    s.inference.isl = 4096;
    s.inference.osl = 4096;
    const Report r = evaluate(s);
    const InferenceReport& in = inference(r);

    // By hand. Linears per layer: attention 16384 x (128 + 2 x 8) x 128 + 128 x 128 x 16384, SwiGLU MLP
    // 3 x 16384 x 53248; fp8 at 1 + 4/16384 B (one fp32 scale per 128 x 128 block), split 8 ways.
    const double linears = 126.0 * (16384.0 * 144 * 128 + 128.0 * 128 * 16384 + 3.0 * 16384 * 53248);
    const double embedding = 128256.0 * 16384; // and as much again for the untied LM head
    const double norms = 126.0 * 2 * 16384 + 16384;
    const double weights = linears / 8 * (1 + 4.0 / 16384) + 2.0 * (norms + 2 * embedding / 8);
    EXPECT_NEAR(in.weightsBytesPerGpu, weights, 1.0);
    // Workspace of an 8192-token prefill chunk: 2 B x (residual + norm 2 x 16384 + the MLP's
    // gate, up and product 3 x 53248 / 8) per token, plus fp32 logits of 256 rows of 128256 / 8.
    const double workspace = 8192.0 * 2 * (2 * 16384 + 3 * 53248 / 8) + 4.0 * 256 * 128256 / 8;
    EXPECT_NEAR(in.memory.workspaceBytes, workspace, 1.0);
    // gpu_memory_utilization 0.9 of 80 GiB, less CUDA graphs 0.5 GiB, CUDA context 0.75 GiB, one NCCL
    // communicator 0.25 GiB.
    const double free = 0.9 * 80 * kGiB - weights - workspace - 0.5 * kGiB - 0.75 * kGiB - 0.25 * kGiB;
    EXPECT_NEAR(in.memory.kvCacheBytes, free, 1.0);
    // One token: 126 layers x K and V x one kv head per GPU x 128 x 2 B.
    const double perToken = 126.0 * 2 * 1 * 128 * 2;
    EXPECT_DOUBLE_EQ(in.kvBytesPerTokenPerGpu, perToken);
    EXPECT_NEAR(in.kvCapacityTokens, free / perToken, 1.0);
    EXPECT_NEAR(in.kvCapacityTokens, 364913, 1); // 21.9 GiB of KV cache per GPU
    EXPECT_EQ(in.maxConcurrency, static_cast<int>(free / perToken / 8192));
    EXPECT_EQ(in.verdict, ServingVerdict::Fits);
    EXPECT_TRUE(r.fits);
}

TEST(ServingMemory, Llama405bBf16On8H100DoesNotFit)
{
    Scenario s = servingScenario("llama3-405b", "h100-sxm", 8, 8);
    s.inference.weightFormat = WeightFormat::Bf16;
    const Report r = evaluate(s);
    const InferenceReport& in = inference(r);
    EXPECT_GT(in.weightsBytesPerGpu, 0.9 * 80 * kGiB); // ~101 GB of weights per GPU alone
    EXPECT_EQ(in.verdict, ServingVerdict::DoesNotFit);
    EXPECT_FALSE(r.fits);
    ASSERT_FALSE(r.warnings.empty());
    EXPECT_NE(r.warnings.front().text.find("exceed"), std::string::npos) << r.warnings.front().text;
}

TEST(ServingMemory, MoE1tInt4IsTightOnH100AndFitsOnH200)
{
    // int4 weights at 0.53125 B per linear parameter: 62.2 GiB per GPU of 8, leaving 7.8 GiB of KV cache
    // per H100 (4 requests of 64K, fewer than one per GPU) against 62.7 GiB per H200 (32 requests).
    auto run = [](const std::string& gpu) {
        Scenario s = servingScenario("moe-1t", gpu, 8, 8);
        s.inference.weightFormat = WeightFormat::Int4;
        s.inference.isl = 63488;
        s.inference.osl = 2048; // 64K context
        return evaluate(s);
    };
    const Report h100 = run("h100-sxm");
    const Report h200 = run("h200");
    const InferenceReport& a = inference(h100);
    const InferenceReport& b = inference(h200);
    EXPECT_NEAR(a.weightsBytesPerGpu, b.weightsBytesPerGpu, 1.0);
    // The arithmetic: the free pool per GPU is the budget less the same loads.
    EXPECT_NEAR(b.memory.kvCacheBytes - a.memory.kvCacheBytes, 0.9 * (141 - 80) * kGiB, 1.0);
    const double perRequest = 65536.0 * 61 * 2 * 1 * 128 * 2; // one kv head per GPU
    EXPECT_EQ(a.maxConcurrency, static_cast<int>(a.memory.kvCacheBytes / perRequest));
    EXPECT_LT(a.maxConcurrency, 8);
    EXPECT_EQ(a.verdict, ServingVerdict::Tight);
    EXPECT_GE(b.maxConcurrency, 8);
    EXPECT_EQ(b.verdict, ServingVerdict::Fits);
    // bf16 does not fit on either.
    const Report bf16 = evaluate(servingScenario("moe-1t", "h200", 8, 8));
    EXPECT_EQ(inference(bf16).verdict, ServingVerdict::DoesNotFit);
}

TEST(ServingMemory, RequestedConcurrencyBeyondTheCacheIsTightAndSaysByHowMuch)
{
    Scenario s = servingScenario("llama3-70b", "h100-sxm", 4, 4);
    s.inference.weightFormat = WeightFormat::Bf16;
    s.inference.isl = 30720;
    s.inference.osl = 2048;
    s.inference.concurrency = 32;
    const Report r = evaluate(s);
    const InferenceReport& in = inference(r);
    EXPECT_EQ(in.verdict, ServingVerdict::Tight);
    EXPECT_LT(in.maxConcurrency, 32);
    const double perRequest = 32768.0 * 80 * 2 * 2 * 128 * 2; // 2 kv heads per GPU at tp=4
    const double ratio = 32 * perRequest / in.memory.kvCacheBytes;
    EXPECT_NE(in.verdictReason.find("KV cache for 32 requests of 32K needs"), std::string::npos) << in.verdictReason;
    char expected[32];
    std::snprintf(expected, sizeof expected, "%.1fx the free HBM", ratio);
    EXPECT_NE(in.verdictReason.find(expected), std::string::npos) << in.verdictReason;
}

TEST(ServingMemory, DpAttentionMultipliesTheMlaCache)
{
    Scenario tp8 = servingScenario("deepseek-v3", "h200", 8, 8);
    tp8.inference.weightFormat = WeightFormat::Fp8;
    Scenario dpa = servingScenario("deepseek-v3", "h200", 8, 1, 1, 8, 8);
    dpa.inference.weightFormat = WeightFormat::Fp8;
    const Report ra = evaluate(tp8);
    const InferenceReport& a = inference(ra);
    const Report rb = evaluate(dpa);
    const InferenceReport& b = inference(rb);
    EXPECT_TRUE(b.dpAttention);
    // TP8 keeps the whole latent on every GPU: the pool of one GPU is the replica's capacity.
    EXPECT_NEAR(a.kvCapacityTokens, a.memory.kvCacheBytes / 70272.0, 1.0);
    // DP-attention: each of the 8 GPUs caches its own requests.
    EXPECT_NEAR(b.kvCapacityTokens, 8 * b.memory.kvCacheBytes / 70272.0, 8.0);
    EXPECT_GT(b.kvCapacityTokens, 4 * a.kvCapacityTokens);
}

TEST(ServingMemory, LayoutErrorsNameTheField)
{
    Scenario s = servingScenario("llama3-70b", "h100-sxm", 8, 8);
    s.parallel.tp = 3;
    Report r = evaluate(s);
    ASSERT_FALSE(r.valid);
    bool named = false;
    for (const auto& e : r.errors)
        named = named || (e.field == "parallel.tp" && e.text.find("heads=64") != std::string::npos);
    EXPECT_TRUE(named);
    s = servingScenario("llama3-70b", "h100-sxm", 8, 8, 1, 1, 2);
    r = evaluate(s);
    ASSERT_FALSE(r.valid);
    EXPECT_EQ(r.errors.front().field, "parallel.ep");
}
