// SPDX-License-Identifier: Apache-2.0
#include "core/io/HfConfigReader.h"
#include "core/model/ModelMath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace parallax::core;
using nlohmann::json;

namespace {
json readConfig(const std::string& file)
{
    std::ifstream in(std::string(PARALLAX_SOURCE_DIR) + "/tests/data/hf/" + file);
    std::stringstream s;
    s << in.rdbuf();
    return json::parse(s.str());
}

struct PublishedCase {
    const char* file;
    double total; // published totals (tests/data/hf/README.md)
    double active; // 0: dense
};
} // namespace

TEST(HfConfigReader, PublishedFilesCountTheirPublishedParameters)
{
    const PublishedCase cases[] = {
        { "llama3-70b.config.json", 70.6e9, 0 },
        { "mixtral-8x7b.config.json", 46.7e9, 12.9e9 },
        { "qwen3-30b-a3b.config.json", 30.5e9, 3.3e9 },
        { "deepseek-v3.config.json", 671e9, 37e9 },
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
            EXPECT_NEAR(activeParameters(main) / c.active, 1.0, 0.02) << activeParameters(main);
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

TEST(HfConfigReader, BadConfigsSayWhichKey)
{
    std::string error;
    EXPECT_FALSE(HfConfigReader::read(json::parse(R"({"model_type": "llama", "hidden_size": 4096})"), "x", error));
    EXPECT_NE(error.find("lacks \"num_attention_heads\""), std::string::npos) << error;
    EXPECT_FALSE(HfConfigReader::read(json::parse(R"({"model_type": "t5"})"), "x", error));
    EXPECT_NE(error.find("model_type \"t5\""), std::string::npos) << error;
    const json sparse = json::parse(R"({"model_type": "qwen2_moe", "hidden_size": 2048, "num_hidden_layers": 24,
        "num_attention_heads": 16, "intermediate_size": 5632, "vocab_size": 151936, "num_experts": 60,
        "num_experts_per_tok": 4, "moe_intermediate_size": 1408, "decoder_sparse_step": 2})");
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
