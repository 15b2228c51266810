// SPDX-License-Identifier: Apache-2.0
// Speculative decoding with a separate draft model (vLLM method "draft_model", SGLang STANDALONE, TensorRT-LLM
// DraftTarget): the draft model's k decode steps are those of the same model served alone on the same GPUs,
// its prefill joins the first token, its bf16 weights and its KV cache share the GPUs, the tokenizer must match,
// and the scenario field, the CLI-facing JSON and the serving launches carry it.
#include "InferenceTestSupport.h"

#include "core/inference/SpeculativeDecoding.h"
#include "core/inference/WeightBytes.h"
#include "core/io/ScenarioIo.h"
#include "core/launch/ServingLaunchWriter.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>

using namespace parallax::core;
using parallax::test::servingScenario;

namespace {

// Llama 3 70B on 4 H100 (tp 4), one request of 1024 + 512 tokens, drafting with `draft` (none: MTP).
Scenario llama70On4H100(const std::string& draft, int drafts, WeightFormat weights = WeightFormat::Bf16)
{
    return parallax::test::llama70On4H100Drafting(
        draft.empty() ? SpeculativeMethod::Mtp : SpeculativeMethod::DraftModel, drafts, weights, draft);
}

// The draft model served on its own on the same 4 GPUs, in bf16, with the same requests.
Report draftAlone()
{
    Scenario s = llama70On4H100("", 0);
    s.model = *PresetLibrary::instance().model("llama3-8b");
    s.modelPreset = "llama3-8b";
    return evaluate(s);
}

const InferenceReport& served(const Report& r)
{
    EXPECT_TRUE(r.valid) << (r.errors.empty() ? "" : r.errors.front().field + ": " + r.errors.front().text);
    return *r.inference;
}

bool hasMessage(const std::vector<Message>& messages, const std::string& field)
{
    for (const Message& m : messages)
        if (m.field == field)
            return true;
    return false;
}

} // namespace

TEST(DraftModelSpeculation, EachDraftIsADecodeStepOfTheDraftModelOnTheSameGpus)
{
    const Report plainReport = evaluate(llama70On4H100("", 0));
    const Report specReport = evaluate(llama70On4H100("llama3-8b", 3));
    const Report aloneReport = draftAlone();
    const InferenceReport& plain = served(plainReport);
    const InferenceReport& spec = served(specReport);
    const InferenceReport& alone = served(aloneReport);
    EXPECT_EQ(spec.speculativeTokens, 3);
    EXPECT_EQ(spec.draftModel, "Llama 3 8B");
    // Three autoregressive steps of the 8B model for the one request (arXiv:2211.17192 sec. 3).
    EXPECT_NEAR(spec.decode.draftSeconds, 3.0 * alone.decode.stepSeconds, 1e-12);
    EXPECT_GT(spec.decode.draftSeconds, 0.0);
    // The verification forward scores 4 rows through the same weights: a little more than one plain step.
    EXPECT_GT(spec.decode.stepSeconds - spec.decode.draftSeconds, plain.decode.stepSeconds);
    const double tokens = (1.0 - std::pow(0.85, 4)) / (1.0 - 0.85); // eq. 1, alpha 0.85, k 3
    EXPECT_NEAR(spec.decode.tokensPerStep, tokens, 1e-12);
    EXPECT_NEAR(spec.tpotSeconds, spec.decode.stepSeconds / tokens, 1e-12);
    // One request streams 70B of weights per step against 8B per draft: the time per token falls.
    EXPECT_LT(spec.tpotSeconds, 0.75 * plain.tpotSeconds);
    EXPECT_TRUE(hasMessage(specReport.notes, "inference.speculative_tokens"));
}

TEST(DraftModelSpeculation, TheDraftModelPrefillsThePromptBeforeTheFirstToken)
{
    const InferenceReport plain = served(evaluate(llama70On4H100("", 0)));
    const InferenceReport spec = served(evaluate(llama70On4H100("llama3-8b", 2)));
    const InferenceReport alone = served(draftAlone());
    EXPECT_NEAR(spec.ttftSeconds - plain.ttftSeconds, alone.ttftSeconds, 1e-12);
}

TEST(DraftModelSpeculation, ItsBf16WeightsAndKvCacheShareTheGpus)
{
    for (const WeightFormat weights : { WeightFormat::Bf16, WeightFormat::Fp8 }) {
        const InferenceReport plain = served(evaluate(llama70On4H100("", 0, weights)));
        const InferenceReport spec = served(evaluate(llama70On4H100("llama3-8b", 2, weights)));
        const InferenceReport alone = served(draftAlone());
        // The 8B drafter stays bf16 beside an fp8 model (its own checkpoint), split over the model's tp.
        EXPECT_NEAR(spec.draftWeightsBytesPerGpu, alone.weightsBytesPerGpu, 1.0) << toString(weights);
        EXPECT_NEAR(spec.weightsBytesPerGpu - plain.weightsBytesPerGpu, alone.weightsBytesPerGpu, 1.0);
        // Every token the request holds is cached by both models: the 8B's 32 layers join the 70B's 80.
        EXPECT_NEAR(spec.kvBytesPerTokenPerGpu - plain.kvBytesPerTokenPerGpu, alone.kvBytesPerTokenPerGpu, 1e-9);
        EXPECT_LT(spec.kvCapacityTokens, plain.kvCapacityTokens);
    }
}

TEST(DraftModelSpeculation, TheDraftModelMustShareTheTokenizer)
{
    // Llama 3's 128,256-token vocabulary against GPT-3's 51,200 (megatron-gpt-1.7b).
    const Report r = evaluate(llama70On4H100("megatron-gpt-1.7b", 2));
    EXPECT_FALSE(r.valid);
    ASSERT_TRUE(hasMessage(r.errors, "inference.draft_model"));
    // Without a draft model Llama 3 has nothing to draft with; with one it has.
    const Report noDrafter = evaluate(llama70On4H100("", 2));
    EXPECT_FALSE(noDrafter.valid);
    EXPECT_TRUE(hasMessage(noDrafter.errors, "inference.speculative_tokens"));
    EXPECT_TRUE(evaluate(llama70On4H100("llama3-8b", 2)).valid);
}

TEST(DraftModelSpeculation, ScenarioFieldRoundTripsAndAnUnknownPresetNamesTheField)
{
    const Scenario s = llama70On4H100("llama3-8b", 3);
    const nlohmann::json j = scenarioToJson(s);
    EXPECT_EQ(j["inference"]["draft_model"], "llama3-8b");
    LoadError error;
    const auto back = parseScenario(j.dump(), error);
    ASSERT_TRUE(back) << error.text();
    EXPECT_EQ(back->inference.draftModel, "llama3-8b");
    EXPECT_EQ(back->inference.speculativeTokens, 3);

    nlohmann::json bad = j;
    bad["inference"]["draft_model"] = "llama3-1b";
    EXPECT_FALSE(parseScenario(bad.dump(), error));
    EXPECT_NE(error.text().find("inference.draft_model"), std::string::npos) << error.text();
    EXPECT_NE(error.text().find("llama3-8b"), std::string::npos) << error.text(); // the known presets
}

TEST(DraftModelSpeculation, ServingLaunchesRunTheDraftModel)
{
    const Scenario s = llama70On4H100("llama3-8b", 3);
    const std::string vllm = ServingLaunchWriter::write(s, ServingFramework::Vllm);
    EXPECT_NE(vllm.find("DRAFT_MODEL=\"${DRAFT_MODEL:-meta-llama/Llama-3.1-8B-Instruct}\""), std::string::npos) << vllm;
    EXPECT_NE(vllm.find(R"(--speculative-config "{\"method\":\"draft_model\",\"model\":\"$DRAFT_MODEL\",)"
                        R"(\"num_speculative_tokens\":3}")"),
        std::string::npos)
        << vllm;
    const std::string sglang = ServingLaunchWriter::write(s, ServingFramework::Sglang);
    EXPECT_NE(sglang.find("--speculative-algorithm STANDALONE"), std::string::npos) << sglang;
    EXPECT_NE(sglang.find("--speculative-draft-model-path \"$DRAFT_MODEL\""), std::string::npos) << sglang;
    EXPECT_NE(sglang.find("--speculative-num-draft-tokens 4"), std::string::npos) << sglang;
    const std::string trt = ServingLaunchWriter::write(s, ServingFramework::TrtLlm);
    EXPECT_NE(trt.find("decoding_type: DraftTarget\n  max_draft_len: 3\n"), std::string::npos) << trt;
    // The MTP launch is unchanged without a draft model.
    EXPECT_EQ(vllm.find("\"method\":\"mtp\""), std::string::npos);
}
