// SPDX-License-Identifier: Apache-2.0
// The serving suite on a small hand-made file whose expected errors are derived here by hand, and on the
// real table (data/published_serving.json) within its stated bounds.
#include "core/validation/ServingValidation.h"
#include "core/Units.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>

using namespace parallax::core;
using nlohmann::json;

namespace {

json handFile()
{
    return json::parse(R"([
      {"id": "vllm_8b", "source": {"label": "hand vLLM", "url": "https://example.org/a"},
       "system": {"framework": "vLLM", "version": "test"}, "model": {"preset": "llama3-8b"},
       "hardware": {"gpu": "NVIDIA H100 SXM 80GB", "gpu_count": 1},
       "inference": {"tp": 1, "pp": 1, "dp": 1, "ep": 1, "weight_dtype": "bf16", "kv_dtype": "bf16",
                     "isl": 1024, "osl": 1024, "concurrency": 1, "gpu_memory_utilization": 0.9},
       "measured": {"kv_cache_tokens": 500000}},
      {"id": "sglang_8b", "source": {"label": "hand SGLang", "url": "https://example.org/b"},
       "system": {"framework": "SGLang", "version": "test"}, "model": {"preset": "llama3-8b"},
       "hardware": {"gpu": "NVIDIA H100 SXM 80GB", "gpu_count": 1},
       "inference": {"tp": 1, "pp": 1, "dp": 1, "ep": 1, "weight_dtype": "bf16", "kv_dtype": "bf16",
                     "isl": 1024, "osl": 1024, "concurrency": 1, "mem_fraction_static": 0.9},
       "measured": {"kv_cache_tokens": 350000}},
      {"id": "no_gpu", "source": {"label": "hand vLLM", "url": "https://example.org/c"},
       "system": {"framework": "vLLM", "version": "test"}, "model": {"preset": "llama3-8b"},
       "hardware": {"gpu": null, "gpu_count": 1},
       "inference": {"tp": 1, "pp": 1, "dp": 1, "ep": 1, "weight_dtype": "bf16", "kv_dtype": "bf16",
                     "isl": 1024, "osl": 1024},
       "measured": {"kv_cache_tokens": 1}}
    ])");
}

} // namespace

TEST(ServingValidation, HandMadeFileGivesTheHandDerivedErrors)
{
    // Llama 3 8B bf16 on one H100 (80 GiB): 8,030,261,248 parameters (32 layers of 218,112,000 with
    // GQA 8 x 128 and SwiGLU 14336, untied 128256 x 4096 embedding and head, final norm) = 16,060,522,496 B.
    const double weights = 2.0 * (32.0 * 218112000 + 2.0 * 525336576 + 4096);
    EXPECT_DOUBLE_EQ(weights, 16060522496.0);
    // vLLM pool: 0.9 x 80 GiB - weights - the 8192-token profile batch (2 x (2 x 4096 + 3 x 14336) B per
    // token) - 256 rows of fp32 logits - 0.5 GiB CUDA graphs - 0.75 GiB CUDA context (ServingMemoryDefaults).
    const double workspace = 8192.0 * 2 * (2 * 4096 + 3 * 14336) + 4.0 * 256 * 128256;
    const double vllmPool = 0.9 * 80 * kGiB - weights - workspace - 0.5 * kGiB - 0.75 * kGiB;
    const double perToken = 2.0 * 32 * 8 * 128 * 2; // K and V, 32 layers, 8 kv heads of 128, bf16
    const double vllmTokens = vllmPool / perToken; // 449,649.9
    // SGLang pool: 0.9 x (80 GiB - 0.75 GiB held before loading) - weights.
    const double sglangTokens = (0.9 * (80 - 0.75) * kGiB - weights) / perToken; // 461,762.3

    const ServingValidationSummary s = runServingValidation(handFile());
    ASSERT_EQ(s.rows.size(), 2u);
    EXPECT_NEAR(s.rows[0].predicted, vllmTokens, 0.5);
    EXPECT_NEAR(s.rows[0].error, vllmTokens / 500000 - 1, 1e-6); // -10.07%
    EXPECT_NEAR(s.rows[1].predicted, sglangTokens, 0.5);
    EXPECT_NEAR(s.rows[1].error, sglangTokens / 350000 - 1, 1e-6); // +31.93%
    // Never dropped silently: the record without a GPU is listed with its reason.
    ASSERT_EQ(s.notModelled.size(), 1u);
    EXPECT_EQ(s.notModelled[0].id, "no_gpu");
    EXPECT_NE(s.notModelled[0].reason.find("hardware.gpu is not printed"), std::string::npos);
    // Per source and per metric, mean and worst absolute error.
    EXPECT_NEAR(s.perSource.at("hand vLLM").meanAbs, 1 - vllmTokens / 500000, 1e-6);
    const ErrorStats& kv = s.perMetric.at("kv_cache_tokens");
    EXPECT_EQ(kv.count, 2);
    EXPECT_NEAR(kv.meanAbs, 0.5 * ((1 - vllmTokens / 500000) + (sglangTokens / 350000 - 1)), 1e-6);
    EXPECT_NEAR(kv.maxAbs, sglangTokens / 350000 - 1, 1e-6);
    EXPECT_EQ(kv.worstId, "sglang_8b");
    // A 21.0% mean > the 15% memory bound: the suite says so.
    EXPECT_FALSE(s.withinBounds());
    ASSERT_FALSE(s.failures.empty());
    EXPECT_NE(s.failures[0].find("kv_cache_tokens mean error"), std::string::npos) << s.failures[0];
    const std::string table = servingValidationTable(s);
    EXPECT_NE(table.find("no_gpu: hardware.gpu is not printed"), std::string::npos);
}

TEST(ServingValidation, EmptyFileIsNotWithinBounds)
{
    const ServingValidationSummary s = runServingValidation(json::array());
    EXPECT_FALSE(s.withinBounds());
}
