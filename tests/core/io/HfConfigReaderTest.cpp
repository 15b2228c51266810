// SPDX-License-Identifier: Apache-2.0
#include "core/io/HfConfigReader.h"
#include "../TestScenarios.h"
#include "core/model/ModelMath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

using namespace parallax::core;
using nlohmann::json;

namespace {
json readConfig(const std::string& file)
{
    return json::parse(parallax::test::testData("hf/" + file));
}

struct PublishedCase {
    const char* file;
    double total; // published totals (tests/data/hf/README.md)
    double active; // 0: dense
    bool activeWithoutEmbedding = false; // the published active count leaves the token embedding (a lookup) out
};
} // namespace

TEST(HfConfigReader, PublishedFilesCountTheirPublishedParameters)
{
    const PublishedCase cases[] = {
        { "llama3-70b.config.json", 70.6e9, 0 },
        { "mixtral-8x7b.config.json", 46.7e9, 12.9e9 },
        { "qwen3-30b-a3b.config.json", 30.5e9, 3.3e9 },
        { "deepseek-v3.config.json", 671e9, 37e9 },
        // OpenAI's 5.13B active is the count without the input embedding's 0.58B (with it, 5.71B).
        { "gpt-oss-120b.config.json", 116.83e9, 5.13e9, true },
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.file);
        std::string error;
        const auto m = HfConfigReader::read(readConfig(c.file), c.file, error);
        ASSERT_TRUE(m) << error;
        // The published totals leave out multi-token-prediction modules (DeepSeek-V3: 671B, 685B with them).
        ModelSpec main = *m;
        main.mtpLayers = 0;
        EXPECT_NEAR(totalParameters(main) / c.total, 1.0, 0.01) << totalParameters(main);
        if (c.active > 0) {
            ASSERT_TRUE(m->isMoe());
            // Published active counts carry two or three significant digits.
            const double active = activeParameters(main) - (c.activeWithoutEmbedding ? embeddingParameters(main) : 0.0);
            EXPECT_NEAR(active / c.active, 1.0, 0.02) << active;
        }
    }
}

TEST(HfConfigReader, FieldsMeanWhatTheFamilyCodeMeans)
{
    std::string error;
    const auto ds = HfConfigReader::read(readConfig("deepseek-v3.config.json"), "DeepSeek-V3", error);
    ASSERT_TRUE(ds) << error;
    EXPECT_EQ(ds->layers, 61);
    EXPECT_EQ(ds->moe->firstDenseLayers, 3);
    EXPECT_EQ(ds->moe->sharedExperts, 1);
    EXPECT_EQ(ds->moe->expertFfnHidden, 2048);
    EXPECT_EQ(ds->ffnHidden, 18432);
    ASSERT_TRUE(ds->mla);
    EXPECT_EQ(ds->mla->qLoraRank, 1536);
    EXPECT_EQ(ds->mla->qkRopeHeadDim, 64);
    EXPECT_EQ(ds->seqLen, 4096); // YaRN's original_max_position_embeddings, not the 163840 context

    const auto qwen = HfConfigReader::read(readConfig("qwen3-30b-a3b.config.json"), "Qwen3-30B-A3B", error);
    ASSERT_TRUE(qwen) << error;
    EXPECT_EQ(qwen->effectiveHeadDim(), 128); // explicit head_dim, not 2048 / 32
    EXPECT_EQ(qwen->kvHeads, 4);
    EXPECT_EQ(qwen->moe->experts, 128);
    EXPECT_EQ(qwen->moe->topK, 8);

    const auto llama = HfConfigReader::read(readConfig("llama3-70b.config.json"), "Llama 3 70B", error);
    ASSERT_TRUE(llama) << error;
    EXPECT_FALSE(llama->isMoe());
    EXPECT_FALSE(llama->tiedEmbeddings);
    EXPECT_EQ(llama->activation, Activation::SwiGlu);
}

TEST(HfConfigReader, GptStyleConfigs)
{
    std::string error;
    // openai-community/gpt2: 124M parameters (the model card).
    const json gpt2 = json::parse(R"({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": 768,
        "n_layer": 12, "n_head": 12, "n_positions": 1024, "vocab_size": 50257, "activation_function": "gelu_new"})");
    const auto g = HfConfigReader::read(gpt2, "gpt2", error);
    ASSERT_TRUE(g) << error;
    EXPECT_TRUE(g->tiedEmbeddings);
    EXPECT_TRUE(g->learnedPositionEmbeddings);
    EXPECT_NEAR(totalParameters(*g) / 124.4e6, 1.0, 0.01) << totalParameters(*g);
    // EleutherAI/gpt-neox-20b: 20.55B parameters (arXiv:2204.06745 Table 1).
    const json neox = json::parse(R"({"model_type": "gpt_neox", "hidden_size": 6144, "num_hidden_layers": 44,
        "num_attention_heads": 64, "intermediate_size": 24576, "vocab_size": 50432, "max_position_embeddings": 2048,
        "hidden_act": "gelu_fast", "tie_word_embeddings": false})");
    const auto n = HfConfigReader::read(neox, "gpt-neox-20b", error);
    ASSERT_TRUE(n) << error;
    EXPECT_EQ(n->activation, Activation::Gelu);
    EXPECT_NEAR(totalParameters(*n) / 20.55e9, 1.0, 0.01) << totalParameters(*n);
    // use_parallel_residual defaults to true in GPTNeoXConfig; Pythia-style configs may turn it off.
    EXPECT_TRUE(n->parallelBlock);
    json serial = neox;
    serial["use_parallel_residual"] = false;
    const auto sr = HfConfigReader::read(serial, "neox-serial", error);
    ASSERT_TRUE(sr) << error;
    EXPECT_FALSE(sr->parallelBlock);
    EXPECT_FALSE(g->parallelBlock);
}

// Falcon and GPT-J run attention and MLP side by side (parallel_attn; GPTJBlock). Parameter totals: tiiuae/falcon-7b
// 6.92B (multi-query, 71 heads), EleutherAI/gpt-j-6b 6.05B (model cards); Falcon-40B's 8 KV groups.
TEST(HfConfigReader, FalconAndGptJHaveParallelBlocks)
{
    std::string error;
    const auto f7 = HfConfigReader::read(json::parse(R"({"model_type": "falcon", "hidden_size": 4544,
        "num_hidden_layers": 32, "num_attention_heads": 71, "multi_query": true, "vocab_size": 65024,
        "parallel_attn": true, "bias": false, "alibi": false, "new_decoder_architecture": false})"),
        "falcon-7b", error);
    ASSERT_TRUE(f7) << error;
    EXPECT_TRUE(f7->parallelBlock);
    EXPECT_EQ(f7->kvHeads, 1);
    EXPECT_TRUE(f7->tiedEmbeddings);
    EXPECT_NEAR(totalParameters(*f7) / 6.92e9, 1.0, 0.01) << totalParameters(*f7);
    const auto f40 = HfConfigReader::read(json::parse(R"({"model_type": "falcon", "hidden_size": 8192,
        "num_hidden_layers": 60, "num_attention_heads": 128, "num_kv_heads": 8, "new_decoder_architecture": true,
        "vocab_size": 65024, "parallel_attn": true, "bias": false})"),
        "falcon-40b", error);
    ASSERT_TRUE(f40) << error;
    EXPECT_EQ(f40->kvHeads, 8);
    EXPECT_TRUE(f40->parallelBlock);
    const auto serial = HfConfigReader::read(json::parse(R"({"model_type": "falcon", "hidden_size": 4544,
        "num_hidden_layers": 32, "num_attention_heads": 71, "vocab_size": 65024, "parallel_attn": false})"),
        "falcon-serial", error);
    ASSERT_TRUE(serial) << error;
    EXPECT_FALSE(serial->parallelBlock);
    EXPECT_FALSE(HfConfigReader::read(json::parse(R"({"model_type": "falcon", "hidden_size": 4544,
        "num_hidden_layers": 32, "num_attention_heads": 71, "vocab_size": 65024, "alibi": true})"),
        "x", error));
    EXPECT_NE(error.find("alibi"), std::string::npos) << error;

    const auto j = HfConfigReader::read(json::parse(R"({"architectures": ["GPTJForCausalLM"], "n_embd": 4096,
        "n_layer": 28, "n_head": 16, "n_positions": 2048, "vocab_size": 50400, "rotary_dim": 64})"),
        "gpt-j-6b", error);
    ASSERT_TRUE(j) << error;
    EXPECT_TRUE(j->parallelBlock);
    EXPECT_FALSE(j->tiedEmbeddings);
    EXPECT_NEAR(totalParameters(*j) / 6.05e9, 1.0, 0.01) << totalParameters(*j);
}

TEST(HfConfigReader, BadConfigsSayWhichKey)
{
    std::string error;
    EXPECT_FALSE(HfConfigReader::read(json::parse(R"({"model_type": "llama", "hidden_size": 4096})"), "x", error));
    EXPECT_NE(error.find("lacks \"num_attention_heads\""), std::string::npos) << error;
    // A model_type that is not a string (found by the hf_config fuzz target: it threw out of the reader).
    EXPECT_FALSE(HfConfigReader::read(
        json::parse(R"({"model_type": "llama4", "text_config": {"model_type": 1, "num_hidden_layers": 48}})"), "x",
        error));
    EXPECT_NE(error.find("model_type must be a string such as \"llama\" (found number)"), std::string::npos) << error;
    EXPECT_FALSE(HfConfigReader::read(json::parse(R"({"model_type": "t5"})"), "x", error));
    EXPECT_NE(error.find("model_type \"t5\""), std::string::npos) << error;
    // A dense layer among MoE layers (layer 5 of a model with MoE on every odd layer): not a dense prefix then
    // every step-th layer.
    const json sparse = json::parse(R"({"model_type": "qwen2_moe", "hidden_size": 2048, "num_hidden_layers": 24,
        "num_attention_heads": 16, "intermediate_size": 5632, "vocab_size": 151936, "num_experts": 60,
        "num_experts_per_tok": 4, "moe_intermediate_size": 1408, "decoder_sparse_step": 2,
        "mlp_only_layers": [5]})");
    EXPECT_FALSE(HfConfigReader::read(sparse, "x", error));
    EXPECT_NE(error.find("decoder_sparse_step"), std::string::npos) << error;
    EXPECT_FALSE(HfConfigReader::read(json::parse(R"({"model_type": "llama", "hidden_size": -1})"), "x", error));
    EXPECT_NE(error.find("hidden_size"), std::string::npos) << error;
}

TEST(HfConfigReader, RecognisesConfigsButNotParallaxModels)
{
    EXPECT_TRUE(HfConfigReader::looksLikeHfConfig(readConfig("mixtral-8x7b.config.json")));
    EXPECT_FALSE(HfConfigReader::looksLikeHfConfig(json::parse(R"({"layers": 2, "hidden": 64})")));
}

// Sliding windows: Mistral's one window on every layer, layer_types (Gemma 3, gpt-oss, Qwen2), Qwen2's
// use_sliding_window from max_window_layers on; a placement the engine cannot hold is refused by key.
TEST(HfConfigReader, SlidingWindowsFromEachFamilysKeys)
{
    std::string error;
    // An 8-layer config of `type` with the given window keys.
    auto read = [&error](const std::string& type, const std::string& keys) {
        return HfConfigReader::read(json::parse(R"({"model_type": ")" + type + "\", " + keys
                                        + R"(, "hidden_size": 4096, "num_hidden_layers": 8, "num_attention_heads": 32,
                "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000})"),
            type, error);
    };
    // layer_types with full attention on every n-th layer (0: none).
    auto layerTypes = [](int n) {
        json kinds = json::array();
        for (int l = 0; l < 8; ++l)
            kinds.push_back(n > 0 && (l + 1) % n == 0 ? "full_attention" : "sliding_attention");
        return "\"layer_types\": " + kinds.dump();
    };
    const auto mistral = read("mistral", R"("sliding_window": 4096)");
    ASSERT_TRUE(mistral) << error;
    EXPECT_EQ(mistral->slidingWindow, 4096);
    EXPECT_EQ(mistral->slidingWindowPattern, 0);
    EXPECT_TRUE(mistral->isSlidingWindowLayer(7));
    const auto noWindow = read("mistral", R"("sliding_window": null)");
    ASSERT_TRUE(noWindow) << error;
    EXPECT_EQ(noWindow->slidingWindow, 0);

    // Every other layer full (gpt-oss style) and every fourth (Llama 4 style): patterns 2 and 4.
    const auto alternating = read("qwen3", R"("sliding_window": 128, )" + layerTypes(2));
    ASSERT_TRUE(alternating) << error;
    EXPECT_EQ(alternating->slidingWindow, 128);
    EXPECT_EQ(alternating->slidingWindowPattern, 2);
    EXPECT_FALSE(alternating->isSlidingWindowLayer(1));
    EXPECT_TRUE(alternating->isSlidingWindowLayer(2));
    const auto fourth = read("llama", R"("sliding_window": 1024, )" + layerTypes(4));
    ASSERT_TRUE(fourth) << error;
    EXPECT_EQ(fourth->slidingWindowPattern, 4);

    // Qwen2: windows from max_window_layers on; from 0 that is every layer, from the middle no pattern holds.
    const auto qwenAll
        = read("qwen2", R"("use_sliding_window": true, "sliding_window": 32768, "max_window_layers": 0)");
    ASSERT_TRUE(qwenAll) << error;
    EXPECT_EQ(qwenAll->slidingWindow, 32768);
    EXPECT_EQ(qwenAll->slidingWindowPattern, 0);
    EXPECT_FALSE(read("qwen2", R"("use_sliding_window": true, "sliding_window": 32768, "max_window_layers": 4)"));
    EXPECT_NE(error.find("max_window_layers"), std::string::npos) << error;
    EXPECT_FALSE(read("llama", R"("sliding_window": 1024, "layer_types": ["sliding_attention", "full_attention"])"));
    EXPECT_NE(error.find("\"layer_types\" lists 2 layers of 8"), std::string::npos) << error;
    std::string linear = layerTypes(0);
    linear.replace(linear.find("sliding_attention"), 17, "linear_attention");
    EXPECT_FALSE(read("llama", R"("sliding_window": 1024, )" + linear));
    EXPECT_NE(error.find("\"layer_types\"[0] is \"linear_attention\""), std::string::npos) << error;
    const auto qwenOff
        = read("qwen2", R"("use_sliding_window": false, "sliding_window": 32768, "max_window_layers": 4)");
    ASSERT_TRUE(qwenOff) << error;
    EXPECT_EQ(qwenOff->slidingWindow, 0);

    // gpt-oss: 128-token windows on the even layers, full attention on the odd ones; pre-trained at 4096 tokens.
    const auto oss = HfConfigReader::read(readConfig("gpt-oss-120b.config.json"), "gpt-oss-120b", error);
    ASSERT_TRUE(oss) << error;
    EXPECT_EQ(oss->slidingWindow, 128);
    EXPECT_EQ(oss->slidingWindowPattern, 2);
    EXPECT_EQ(oss->moe->experts, 128);
    EXPECT_EQ(oss->moe->topK, 4);
    EXPECT_EQ(oss->seqLen, 4096);
    EXPECT_EQ(oss->effectiveHeadDim(), 64);
}
