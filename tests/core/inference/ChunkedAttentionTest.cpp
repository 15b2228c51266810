// SPDX-License-Identifier: Apache-2.0
// Llama 4's chunked local attention (Hugging Face attention_chunk_size; modeling_llama4.py): three of every four
// layers attend within 8192-token chunks. A query sees its own chunk up to itself (not the last 8192 tokens, as a
// sliding window would), and the KV cache holds one chunk on those layers.
#include "InferenceTestSupport.h"

#include "core/inference/InferenceEngine.h"
#include "core/inference/KvCache.h"
#include "core/inference/ServingTime.h"
#include "core/io/HfConfigReader.h"
#include "core/model/ModelMath.h"
#include "core/search/LessonText.h"

#include <gtest/gtest.h>

using namespace parallax::core;
using parallax::test::servingScenario;
using parallax::test::testData;

namespace {

ModelSpec windowed(bool chunked)
{
    ModelSpec m;
    m.layers = 8;
    m.slidingWindow = 1000;
    m.slidingWindowPattern = 4; // layers 3 and 7 full
    m.chunkedAttention = chunked;
    return m;
}

} // namespace

TEST(ChunkedAttention, KeysAndPairsPerLayer)
{
    const ModelSpec chunked = windowed(true), sliding = windowed(false);
    // Within the first chunk, every kind is plain causal attention.
    for (const ModelSpec* m : { &chunked, &sliding }) {
        EXPECT_DOUBLE_EQ(m->attendedKeys(0, 600), 600);
        EXPECT_DOUBLE_EQ(m->attentionPairs(0, 600), 600.0 * 600 / 2);
        EXPECT_DOUBLE_EQ(m->attendedKeys(3, 5000), 5000); // a full layer
        EXPECT_DOUBLE_EQ(m->attentionPairs(3, 5000), 5000.0 * 5000 / 2);
    }
    // Past it: the window's 1000 keys, half a chunk on average; 5 chunks of 1000 have 5 triangles of 1000^2 / 2.
    EXPECT_DOUBLE_EQ(sliding.attendedKeys(0, 5000), 1000);
    EXPECT_DOUBLE_EQ(chunked.attendedKeys(0, 5000), 500);
    EXPECT_DOUBLE_EQ(sliding.attentionPairs(0, 5000), 5000.0 * 1000);
    EXPECT_DOUBLE_EQ(chunked.attentionPairs(0, 5000), 5 * 1000.0 * 1000 / 2);
}

TEST(ChunkedAttention, MaverickReadsAndCachesOneChunkOnItsChunkedLayers)
{
    std::string error;
    const auto m = HfConfigReader::read(
        nlohmann::json::parse(testData("hf/llama4-maverick.config.json")), "Llama 4 Maverick", error);
    ASSERT_TRUE(m) << error;
    EXPECT_TRUE(m->chunkedAttention);
    EXPECT_EQ(m->slidingWindow, 8192);
    EXPECT_EQ(m->slidingWindowPattern, 4);
    EXPECT_TRUE(m->isSlidingWindowLayer(0));
    EXPECT_FALSE(m->isSlidingWindowLayer(3)); // every fourth layer is a NoPE layer with full attention
    // At 128K tokens the 12 full layers hold the whole context, the 36 chunked layers one chunk.
    ModelSpec full = *m;
    full.slidingWindow = 0;
    const double context = 131072;
    EXPECT_NEAR(kvBytesPerRequest(*m, KvDtype::Bf16, 1, 0, m->layers, context)
            / kvBytesPerRequest(full, KvDtype::Bf16, 1, 0, m->layers, context),
        (12 * context + 36 * 8192) / (48 * context), 1e-12);
}

// Serving Maverick at a long context: chunked layers hold and read one chunk, so more requests fit and a decode
// step is faster than if every layer attended to the whole context.
TEST(ChunkedAttention, LongContextServingFitsMoreAndDecodesFaster)
{
    Scenario s = servingScenario("llama4-maverick", "h200", 8, 8);
    ASSERT_TRUE(s.model.chunkedAttention);
    s.inference.weightFormat = WeightFormat::Fp8;
    s.inference.isl = 120000;
    s.inference.osl = 2000;
    Scenario full = s;
    full.model.slidingWindow = 0;
    full.model.chunkedAttention = false;
    const Report chunked = evaluate(s), whole = evaluate(full);
    ASSERT_TRUE(chunked.valid && whole.valid);
    EXPECT_GT(chunked.inference->maxConcurrency, 2 * whole.inference->maxConcurrency);
    // The report's per-request KV is the windowed one (12 full layers of 48, 36 holding one chunk); per token stays
    // every layer's.
    const InferenceReport& ci = *chunked.inference;
    const double context = ci.contextLen;
    EXPECT_NEAR(ci.kvBytesPerRequestPerGpu, ci.kvBytesPerTokenPerGpu * (12 * context + 36 * 8192.0) / 48,
        1e-6 * ci.kvBytesPerRequestPerGpu);
    EXPECT_NEAR(whole.inference->kvBytesPerRequestPerGpu, whole.inference->kvBytesPerTokenPerGpu * context,
        1e-6 * whole.inference->kvBytesPerRequestPerGpu);
    full.inference.concurrency = s.inference.concurrency = 4;
    const Report c4 = evaluate(s), w4 = evaluate(full);
    EXPECT_LT(c4.inference->tpotSeconds, w4.inference->tpotSeconds);
    EXPECT_LT(c4.inference->ttftSeconds, w4.inference->ttftSeconds);
}

// The Maverick serving preset's lesson compares the requests that fit with what full attention would allow; both
// numbers are the engine's.
TEST(ChunkedAttention, TheServingLessonComparesWithFullAttention)
{
    Scenario s = parallax::test::presetScenario("serve-maverick-fp8-8xh200");
    s.description = "{{max_concurrency}}|{{max_concurrency_full_attention}}";
    const Report r = evaluate(s);
    ASSERT_TRUE(r.valid && r.inference);
    Scenario whole = s;
    whole.model.slidingWindow = 0;
    whole.model.chunkedAttention = false;
    const int full = maxConcurrencyAtContext(whole, 131072);
    EXPECT_LT(2 * full, r.inference->maxConcurrency);
    const RenderedLesson lesson = renderLesson(s, nullptr, nullptr);
    ASSERT_TRUE(lesson.errors.empty()) << lesson.errors.front();
    EXPECT_EQ(lesson.markdown, std::to_string(r.inference->maxConcurrency) + "|" + std::to_string(full));
}

// Prefill prices a windowed layer's kernel as training does: its own (query, key) pairs at the rate of its span,
// 2W for a sliding window (a query visits W keys) and W for chunks (W / 2 on average). A sliding window and chunks
// of one size cache the same W tokens and run the same GEMMs, so the prefills differ by exactly the attention.
TEST(ChunkedAttention, PrefillPaysEachWindowsPairsAtItsSpan)
{
    const ComputeRates rates(*PresetLibrary::instance().gpu("h100-sxm"), DType::Bf16, nullptr, EfficiencyDefaults {});
    ModelSpec sliding = *PresetLibrary::instance().model("llama3-8b");
    sliding.slidingWindow = 4096;
    sliding.slidingWindowPattern = 0;
    ModelSpec chunked = sliding;
    chunked.chunkedAttention = true;
    const InferenceConfig config;
    const CommGroup none;
    const double s = 32768, w = 4096;
    const double perPair = 2.0 * sliding.heads * (queryKeyHeadDim(sliding) + valueHeadDim(sliding));
    const double slidingAttention = rates.causalAttentionSeconds(perPair * s * w, 2 * w);
    const double chunkedAttention = rates.causalAttentionSeconds(perPair * s * w / 2, w);
    const PrefillTime a = prefill(ServingTimeInputs { sliding, config, {}, rates, none, none }, s);
    const PrefillTime b = prefill(ServingTimeInputs { chunked, config, {}, rates, none, none }, s);
    EXPECT_NEAR(a.computeSeconds - b.computeSeconds, sliding.layers * (slidingAttention - chunkedAttention),
        1e-9 * a.computeSeconds);
    // The span matters: priced at W keys (the rule serving had before) the sliding window's kernel pays more per-tile
    // overhead than at its 2W, and the difference above would not hold.
    EXPECT_GT(rates.causalAttentionSeconds(perPair * s * w, w), 1.05 * slidingAttention);
}
