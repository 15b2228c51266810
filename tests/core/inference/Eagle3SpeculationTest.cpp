// SPDX-License-Identifier: Apache-2.0
// Speculative decoding with an EAGLE-3 head (arXiv:2503.01840 sec. 3; vLLM method "eagle3", SGLang EAGLE3,
// TensorRT-LLM Eagle): its weights against the closed form of its shapes (one layer whose QKV reads 2h, an fc of
// 3h -> h, a head over a 32,000-token draft vocabulary, bf16), its one KV layer, its drafts' share of the step
// and of TTFT, the models it is refused for, the scenario field and the launches.
#include "InferenceTestSupport.h"

#include "core/inference/SpeculativeDecoding.h"
#include "core/io/ScenarioIo.h"
#include "core/launch/ServingLaunchWriter.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace parallax::core;
using parallax::test::servingScenario;

namespace {

// Llama 3 70B on 4 H100 (tp 4), one request of 1024 + 512 tokens, drafting with an EAGLE-3 head.
Scenario llama70WithEagle(int drafts, WeightFormat weights = WeightFormat::Bf16)
{
    return parallax::test::llama70On4H100Drafting(
        drafts > 0 ? SpeculativeMethod::Eagle3 : SpeculativeMethod::Mtp, drafts, weights);
}

InferenceReport served(const Scenario& s)
{
    const Report r = evaluate(s);
    EXPECT_TRUE(r.valid) << (r.errors.empty() ? "" : r.errors.front().field + ": " + r.errors.front().text);
    return r.inference ? *r.inference : InferenceReport {};
}

} // namespace

TEST(Eagle3Speculation, TheHeadsWeightsAreItsShapesInBf16)
{
    // Llama 3 70B: h 8192, 64 heads and 8 KV heads of 128, FFN 28,672 (SwiGLU); tp 4.
    const double h = 8192, qkv = (64 + 2 * 8) * 128, ffn = 28672, tp = 4;
    const double layer = (2 * h * qkv + 64 * 128 * h + 3 * h * ffn) / tp; // QKV over [embedding ; feature]
    const double parameters = layer + 3 * h * h + 32000 * h / tp + 4 * h; // + fc (replicated), head, norms
    for (const WeightFormat weights : { WeightFormat::Bf16, WeightFormat::Fp8 }) {
        const InferenceReport r = served(llama70WithEagle(3, weights));
        EXPECT_EQ(r.speculativeMethod, "eagle3");
        EXPECT_NEAR(r.draftWeightsBytesPerGpu, 2 * parameters, 1.0) << toString(weights); // bf16 beside fp8 too
    }
}

TEST(Eagle3Speculation, ItsOneLayerOfKvCacheAndItsDraftsShareTheStep)
{
    const InferenceReport plain = served(llama70WithEagle(0));
    const InferenceReport two = served(llama70WithEagle(2));
    const InferenceReport three = served(llama70WithEagle(3));
    // One more layer of the model's KV cache per token: the model's 80 layers become 81.
    EXPECT_NEAR(three.kvBytesPerTokenPerGpu, plain.kvBytesPerTokenPerGpu * 81.0 / 80.0, 1e-9);
    // fc once per step, then the layer and the head once per draft: the third draft adds what the second did.
    const double perDraft = three.decode.draftSeconds - two.decode.draftSeconds;
    const double fc = two.decode.draftSeconds - 2 * perDraft;
    EXPECT_GT(perDraft, 0.0);
    EXPECT_GT(fc, 0.0);
    // A draft streams one layer and a small head, not the model: far below a plain step of 80 layers.
    EXPECT_LT(perDraft, plain.decode.stepSeconds / 20);
    EXPECT_NEAR(three.decode.tokensPerStep, 1 + 0.85 + 0.85 * 0.85 + 0.85 * 0.85 * 0.85, 1e-12);
    EXPECT_LT(three.tpotSeconds, 0.5 * plain.tpotSeconds);
    // TTFT: the head's pass over the prompt, about one layer of the model's prefill, not a model's.
    const double layerOfPrefill = plain.ttftSeconds / 80;
    EXPECT_GT(three.ttftSeconds - plain.ttftSeconds, 0.5 * layerOfPrefill);
    EXPECT_LT(three.ttftSeconds - plain.ttftSeconds, 4 * layerOfPrefill);
}

TEST(Eagle3Speculation, RefusedForMoeAndMlaModels)
{
    for (const char* model : { "mixtral-8x7b", "deepseek-v3" }) {
        Scenario s = servingScenario(model, "h200", 8, 8);
        s.inference.speculativeTokens = 2;
        s.inference.speculativeMethod = SpeculativeMethod::Eagle3;
        const Report r = evaluate(s);
        EXPECT_FALSE(r.valid) << model;
        bool named = false;
        for (const Message& e : r.errors)
            named = named || e.field == "inference.speculative_method";
        EXPECT_TRUE(named) << model;
    }
}

TEST(Eagle3Speculation, ScenarioFieldRoundTripsAndContradictionsNameTheField)
{
    const nlohmann::json j = scenarioToJson(llama70WithEagle(3));
    EXPECT_EQ(j["inference"]["speculative_method"], "eagle3");
    EXPECT_FALSE(j["inference"].contains("draft_model"));
    LoadError error;
    const auto back = parseScenario(j.dump(), error);
    ASSERT_TRUE(back) << error.text();
    EXPECT_EQ(back->inference.speculativeMethod, SpeculativeMethod::Eagle3);

    nlohmann::json both = j;
    both["inference"]["draft_model"] = "llama3-8b";
    EXPECT_FALSE(parseScenario(both.dump(), error));
    EXPECT_NE(error.text().find("inference.draft_model"), std::string::npos) << error.text();
    nlohmann::json bad = j;
    bad["inference"]["speculative_method"] = "medusa";
    EXPECT_FALSE(parseScenario(bad.dump(), error));
    EXPECT_NE(error.text().find("inference.speculative_method"), std::string::npos) << error.text();
    nlohmann::json noModel = j;
    noModel["inference"]["speculative_method"] = "draft_model";
    EXPECT_FALSE(parseScenario(noModel.dump(), error));
    EXPECT_NE(error.text().find("inference.draft_model"), std::string::npos) << error.text();
}

TEST(Eagle3Speculation, ServingLaunchesRunTheHead)
{
    const Scenario s = llama70WithEagle(3);
    const std::string vllm = ServingLaunchWriter::write(s, ServingFramework::Vllm);
    EXPECT_NE(vllm.find("DRAFT_MODEL=\"${DRAFT_MODEL:-yuhuili/EAGLE3-LLaMA3.3-Instruct-70B}\""), std::string::npos)
        << vllm;
    EXPECT_NE(vllm.find(R"("{\"method\":\"eagle3\",\"model\":\"$DRAFT_MODEL\",\"num_speculative_tokens\":3}")"),
        std::string::npos)
        << vllm;
    const std::string sglang = ServingLaunchWriter::write(s, ServingFramework::Sglang);
    EXPECT_NE(sglang.find("--speculative-algorithm EAGLE3 \\\n    --speculative-draft-model-path \"$DRAFT_MODEL\""),
        std::string::npos)
        << sglang;
    const std::string trt = ServingLaunchWriter::write(s, ServingFramework::TrtLlm);
    EXPECT_NE(trt.find("decoding_type: Eagle\n  max_draft_len: 3\n"), std::string::npos) << trt;
}
