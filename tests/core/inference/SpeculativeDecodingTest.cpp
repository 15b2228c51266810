// SPDX-License-Identifier: Apache-2.0
// MTP speculative decoding in serving (arXiv:2412.19437 sec. 5.4.3): the expected tokens per step
// (arXiv:2211.17192 eq. 1), the drafter's passes, the k + 1 verified rows, its weights and KV cache, the
// scenario fields and the serving launches.
#include "InferenceTestSupport.h"

#include "core/inference/KvCache.h"
#include "core/inference/SpeculativeDecoding.h"
#include "core/inference/WeightBytes.h"
#include "core/io/ScenarioIo.h"
#include "core/launch/ServingLaunchWriter.h"
#include "core/model/ModelMath.h"
#include "core/search/LessonText.h"
#include "core/search/NumberText.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>

using namespace parallax::core;
using parallax::test::servingScenario;

namespace {

Scenario deepSeekOn8H200(int drafts)
{
    Scenario s = servingScenario("deepseek-v3", "h200", 8, 8);
    s.inference.weightFormat = WeightFormat::Fp8;
    s.inference.isl = 1024;
    s.inference.osl = 1024;
    s.inference.concurrency = 1;
    s.inference.speculativeTokens = drafts;
    return s;
}

} // namespace

TEST(SpeculativeDecoding, ExpectedTokensPerStepIsTheGeometricSum)
{
    EXPECT_DOUBLE_EQ(acceptedTokensPerStep(0, 0.85), 1.0);
    EXPECT_DOUBLE_EQ(acceptedTokensPerStep(1, 0.85), 1.85);
    EXPECT_NEAR(acceptedTokensPerStep(3, 0.85), 1 + 0.85 + 0.85 * 0.85 + std::pow(0.85, 3), 1e-12);
    EXPECT_DOUBLE_EQ(acceptedTokensPerStep(2, 1.0), 3.0);
    EXPECT_DOUBLE_EQ(acceptedTokensPerStep(4, 0.0), 1.0);
}

TEST(SpeculativeDecoding, OneDraftNearlyHalvesTheTimePerTokenOfAMemoryBoundDecode)
{
    const Report plain = evaluate(deepSeekOn8H200(0));
    const Report spec = evaluate(deepSeekOn8H200(1));
    ASSERT_TRUE(plain.valid && spec.valid) << (spec.errors.empty() ? "" : spec.errors.front().text);
    const InferenceReport& a = *plain.inference;
    const InferenceReport& b = *spec.inference;
    EXPECT_DOUBLE_EQ(a.decode.tokensPerStep, 1.0);
    EXPECT_EQ(a.decode.draftSeconds, 0.0);
    EXPECT_DOUBLE_EQ(b.decode.tokensPerStep, 1.85);
    EXPECT_GT(b.decode.draftSeconds, 0.0);
    // The step verifies two tokens per request (more rows through the same weights) and adds the draft pass.
    EXPECT_GT(b.decode.stepSeconds, a.decode.stepSeconds + b.decode.draftSeconds);
    EXPECT_NEAR(b.tpotSeconds, b.decode.stepSeconds / 1.85, 1e-12);
    // One request is bound by streaming the weights: the step grows far less than the tokens it emits, so the
    // time per token falls (DeepSeek-V3 reports 1.8x TPS, sec. 5.4.3; here at concurrency 1).
    EXPECT_LT(b.decode.stepSeconds, 1.3 * a.decode.stepSeconds);
    EXPECT_LT(b.tpotSeconds, 0.75 * a.tpotSeconds);
    EXPECT_GT(b.tokensPerSecondPerGpu, a.tokensPerSecondPerGpu);
    EXPECT_GT(b.decodeTokensPerSecondPerGpu, 1.3 * a.decodeTokensPerSecondPerGpu);
    ASSERT_FALSE(spec.notes.empty());
    bool noted = false;
    for (const Message& n : spec.notes)
        noted = noted || n.field == "inference.speculative_tokens";
    EXPECT_TRUE(noted);
}

TEST(SpeculativeDecoding, TheDrafterPassesOverThePromptBeforeTheFirstToken)
{
    const Report plain = evaluate(deepSeekOn8H200(0));
    const Report spec = evaluate(deepSeekOn8H200(2));
    ASSERT_TRUE(plain.valid && spec.valid);
    // One MTP block (a layer like the last one, with its KV write), its 2h -> h projection and the head, once
    // over the prompt whatever the number of drafts: about one of DeepSeek-V3's 61 layers more.
    const double extra = spec.inference->ttftSeconds - plain.inference->ttftSeconds;
    EXPECT_GT(extra, 0.5 * plain.inference->ttftSeconds / 61);
    EXPECT_LT(extra, 3.0 * plain.inference->ttftSeconds / 61);
    EXPECT_NEAR(evaluate(deepSeekOn8H200(1)).inference->ttftSeconds, spec.inference->ttftSeconds, 1e-12);
}

TEST(SpeculativeDecoding, DraftPassesGrowWithTheDraftTokens)
{
    const Report one = evaluate(deepSeekOn8H200(1));
    const Report three = evaluate(deepSeekOn8H200(3));
    ASSERT_TRUE(one.valid && three.valid);
    EXPECT_NEAR(three.inference->decode.draftSeconds, 3.0 * one.inference->decode.draftSeconds,
        1e-9 * one.inference->decode.draftSeconds);
    EXPECT_GT(three.inference->decode.computeSeconds + three.inference->decode.weightsSeconds,
        one.inference->decode.computeSeconds + one.inference->decode.weightsSeconds);
}

TEST(SpeculativeDecoding, TheDrafterHoldsItsBlockProjectionAndOneLayerOfKvCache)
{
    const Report plain = evaluate(deepSeekOn8H200(0));
    const Report spec = evaluate(deepSeekOn8H200(2));
    ASSERT_TRUE(plain.valid && spec.valid);
    const Scenario s = deepSeekOn8H200(2);
    const ModelSpec& m = s.model;
    ASSERT_EQ(m.mtpLayers, 1);
    // The MoE block split as the layers are (tp 8, experts over 8 shards) in fp8, and the 2h x h projection
    // with its norms replicated in bf16.
    const double block = servingWeightBytes(m, WeightFormat::Fp8, 8, 8, 60, 61, false, false).total();
    const double h = static_cast<double>(m.hidden);
    const double drafter = block + 2.0 * (2.0 * h * h + 3.0 * h);
    EXPECT_NEAR(spec.inference->draftWeightsBytesPerGpu, drafter, 1e-6 * drafter);
    EXPECT_NEAR(spec.inference->memory.weightsBytes - plain.inference->memory.weightsBytes, drafter, 1e-6 * drafter);
    // One more layer of MLA latent per token (replicated over tp).
    EXPECT_NEAR(spec.inference->kvBytesPerTokenPerGpu / plain.inference->kvBytesPerTokenPerGpu, 62.0 / 61.0, 1e-12);
    EXPECT_LT(spec.inference->maxConcurrency, plain.inference->maxConcurrency);
}

TEST(SpeculativeDecoding, AModelWithoutMtpNamesTheField)
{
    Scenario s = servingScenario("llama3-70b", "h100-sxm", 8, 8);
    s.inference.speculativeTokens = 2;
    const Report r = evaluate(s);
    ASSERT_FALSE(r.valid);
    ASSERT_FALSE(r.errors.empty());
    EXPECT_EQ(r.errors.front().field, "inference.speculative_tokens");
    EXPECT_NE(r.errors.front().text.find("mtp_layers"), std::string::npos) << r.errors.front().text;
}

TEST(SpeculativeDecoding, ScenarioFieldsRoundTripAndBadValuesNameTheField)
{
    const char* text = R"({ "format": "parallax-scenario", "version": 1, "mode": "inference", "model": "deepseek-v3",
      "cluster": { "gpu": "h200", "nodes": 1, "gpus_per_node": 8 }, "parallel": { "tp": 8 },
      "inference": { "weight_dtype": "fp8", "speculative_tokens": 2, "draft_acceptance": 0.7 } })";
    LoadError e;
    auto s = parseScenario(text, e);
    ASSERT_TRUE(s) << e.text();
    EXPECT_EQ(s->inference.speculativeTokens, 2);
    EXPECT_DOUBLE_EQ(s->inference.draftAcceptance, 0.7);
    const auto j = scenarioToJson(*s);
    EXPECT_EQ(j["inference"]["speculative_tokens"], 2);
    EXPECT_EQ(j["inference"]["draft_acceptance"], 0.7);
    const Report r = evaluate(*s);
    ASSERT_TRUE(r.valid);
    EXPECT_NEAR(r.inference->decode.tokensPerStep, 1 + 0.7 + 0.49, 1e-12);

    std::string bad = text;
    bad.replace(bad.find("0.7"), 3, "1.5");
    EXPECT_FALSE(parseScenario(bad, e));
    EXPECT_NE(e.text().find("draft_acceptance"), std::string::npos) << e.text();
    bad = text;
    bad.replace(bad.find("\"speculative_tokens\": 2"), 23, "\"speculative_tokens\": 99");
    EXPECT_FALSE(parseScenario(bad, e));
    EXPECT_NE(e.text().find("speculative_tokens"), std::string::npos) << e.text();
}

TEST(SpeculativeDecoding, ServingLaunchesTurnOnTheMtpDrafter)
{
    Scenario s = deepSeekOn8H200(2);
    s.modelPreset = "deepseek-v3";
    const std::string vllm = ServingLaunchWriter::write(s, ServingFramework::Vllm);
    EXPECT_NE(vllm.find(R"(--speculative-config '{"method":"mtp","num_speculative_tokens":2}')"), std::string::npos)
        << vllm;
    const std::string sglang = ServingLaunchWriter::write(s, ServingFramework::Sglang);
    EXPECT_NE(sglang.find("--speculative-num-steps 2"), std::string::npos) << sglang;
    EXPECT_NE(sglang.find("--speculative-num-draft-tokens 3"), std::string::npos) << sglang;
    const std::string trt = ServingLaunchWriter::write(s, ServingFramework::TrtLlm);
    EXPECT_NE(trt.find("decoding_type: MTP"), std::string::npos) << trt;
    s.inference.speculativeTokens = 0;
    EXPECT_EQ(ServingLaunchWriter::write(s, ServingFramework::Vllm).find("speculative"), std::string::npos);
}

TEST(SpeculativeDecoding, PresetLessonComparesWithAndWithoutTheDrafter)
{
    const Scenario s = parallax::test::presetScenario("serve-dsv3-mtp-8xh200");
    ASSERT_EQ(s.inference.speculativeTokens, 1);
    const RenderedLesson lesson = renderLesson(s, nullptr, nullptr);
    ASSERT_TRUE(lesson.errors.empty()) << lesson.errors.front();
    EXPECT_NE(lesson.markdown.find("**1.85 tokens**"), std::string::npos) << lesson.markdown;
    // The lesson's with/without figures are the engine's for the two settings.
    Scenario one = s;
    one.inference.concurrency = 1;
    Scenario plain = one;
    plain.inference.speculativeTokens = 0;
    const Report with = evaluate(one), without = evaluate(plain);
    ASSERT_TRUE(with.valid && without.valid);
    EXPECT_NE(lesson.markdown.find(fixedText(with.inference->tpotSeconds * 1e3, 1) + " ms** from "
                  + fixedText(without.inference->tpotSeconds * 1e3, 1) + " ms"),
        std::string::npos)
        << lesson.markdown;
}

TEST(SpeculativeDecoding, AnMtpModelDecodingWithoutItIsToldWhatOneDraftWouldGive)
{
    const Report plain = evaluate(deepSeekOn8H200(0));
    const Report spec = evaluate(deepSeekOn8H200(1));
    ASSERT_TRUE(plain.valid && spec.valid);
    const Message* note = nullptr;
    for (const Message& n : plain.notes)
        if (n.field == "inference.speculative_tokens")
            note = &n;
    ASSERT_NE(note, nullptr);
    // The same requests (concurrency 1): the note's TPOT is the drafting evaluation's.
    EXPECT_NE(note->text.find("would give TPOT " + secondsText(spec.inference->tpotSeconds) + " against "
                  + secondsText(plain.inference->tpotSeconds)),
        std::string::npos)
        << note->text;
    const Report dense = evaluate(servingScenario("llama3-70b", "h100-sxm", 8, 8));
    ASSERT_TRUE(dense.valid);
    for (const Message& n : dense.notes)
        EXPECT_NE(n.field, "inference.speculative_tokens") << n.text;
    // A search candidate's notes are thrown away: the search does not pay for the variant's decode step.
    EvaluateOptions searching;
    searching.priceAlternatives = false;
    const Report candidate = evaluate(deepSeekOn8H200(0), searching);
    ASSERT_TRUE(candidate.valid);
    for (const Message& n : candidate.notes)
        EXPECT_NE(n.field, "inference.speculative_tokens") << n.text;
    EXPECT_DOUBLE_EQ(candidate.inference->tpotSeconds, plain.inference->tpotSeconds);
}
