// SPDX-License-Identifier: Apache-2.0
#include "InferenceTestSupport.h"

#include "core/inference/KvCache.h"

#include <gtest/gtest.h>

using namespace parallax::core;
using parallax::test::makeScenario;

namespace {
ModelSpec preset(const std::string& id)
{
    return *PresetLibrary::instance().model(id);
}
} // namespace

TEST(KvCache, Llama3_70bBf16IsExact)
{
    // 2 (K and V) x 80 layers x 8 kv heads x 128 x 2 B.
    EXPECT_DOUBLE_EQ(kvBytesPerToken(preset("llama3-70b"), KvDtype::Bf16), 327680.0);
    EXPECT_DOUBLE_EQ(kvBytesPerToken(preset("llama3-70b"), KvDtype::Fp8), 163840.0);
}

TEST(KvCache, DeepSeekV3MlaLatentIsExact)
{
    // 61 layers x (kv_lora_rank 512 + rope 64) x 2 B.
    EXPECT_DOUBLE_EQ(kvBytesPerToken(preset("deepseek-v3"), KvDtype::Bf16), 70272.0);
}

TEST(KvCache, MlaLatentIsNotShardedByTp)
{
    const ModelSpec m = preset("deepseek-v3");
    EXPECT_DOUBLE_EQ(kvBytesPerTokenPerLayer(m, KvDtype::Bf16, 8), (512 + 64) * 2.0);
    EXPECT_DOUBLE_EQ(kvBytesPerTokenPerLayer(m, KvDtype::Bf16, 1), (512 + 64) * 2.0);
}

TEST(KvCache, GqaShardsThenReplicatesWhenTpExceedsKvHeads)
{
    const ModelSpec m = preset("llama3-70b"); // 8 kv heads of 128
    EXPECT_DOUBLE_EQ(kvBytesPerTokenPerLayer(m, KvDtype::Bf16, 4), 2.0 * 2 * 128 * 2);
    EXPECT_DOUBLE_EQ(kvBytesPerTokenPerLayer(m, KvDtype::Bf16, 8), 2.0 * 1 * 128 * 2);
    // tp=16 > 8 kv heads: every GPU still holds one whole kv head (two copies of each across the group).
    EXPECT_DOUBLE_EQ(kvBytesPerTokenPerLayer(m, KvDtype::Bf16, 16), 2.0 * 1 * 128 * 2);
    EXPECT_DOUBLE_EQ(
        16 * kvBytesPerTokenPerLayer(m, KvDtype::Bf16, 16), 2 * kvBytesPerTokenPerLayer(m, KvDtype::Bf16, 1));
}

TEST(KvCache, SlidingWindowCapsTheWindowedLayers)
{
    ModelSpec m = preset("llama3-8b"); // 32 layers, 8 kv heads of 128
    const double full = kvBytesPerRequest(m, KvDtype::Bf16, 1, 0, m.layers, 32768);
    m.slidingWindow = 4096;
    m.slidingWindowPattern = 0; // every layer windowed (Mistral 7B)
    EXPECT_DOUBLE_EQ(kvBytesPerRequest(m, KvDtype::Bf16, 1, 0, m.layers, 32768), full / 8);
    EXPECT_DOUBLE_EQ(kvBytesPerRequest(m, KvDtype::Bf16, 1, 0, m.layers, 2048), full / 16); // shorter than the window
    m.slidingWindowPattern = 2; // every second layer full (gpt-oss style alternation)
    EXPECT_DOUBLE_EQ(kvBytesPerRequest(m, KvDtype::Bf16, 1, 0, m.layers, 32768), full / 2 + full / 16);
}
