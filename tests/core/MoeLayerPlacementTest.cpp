// SPDX-License-Identifier: Apache-2.0
// MoE on every N-th layer (Llama 4 Maverick alternates dense and MoE layers): which layers are MoE, how many a
// pipeline stage holds, Megatron-Core's --moe-layer-freq written and read back, Hugging Face's
// interleave_moe_layer_step and decoder_sparse_step, and the engine costing both kinds of layer.
#include "TestScenarios.h"

#include "core/Engine.h"
#include "core/io/HfConfigReader.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/launch/LaunchArgsImporter.h"
#include "core/launch/MegatronArgsWriter.h"
#include "core/launch/NemoRecipeWriter.h"
#include "core/launch/TorchtitanTomlWriter.h"
#include "core/model/LayerListFlag.h"
#include "core/model/ModelMath.h"
#include "core/model/MoeLayerPattern.h"

#include <gtest/gtest.h>

using namespace parallax::core;
using parallax::test::batch;
using parallax::test::degrees;
using parallax::test::makeScenario;
using parallax::test::testData;

namespace {

ModelSpec moeModel(int layers, int firstDense, int step)
{
    ModelSpec m;
    m.layers = layers;
    m.moe = MoeSpec {
        .experts = 8, .topK = 2, .expertFfnHidden = 1024, .firstDenseLayers = firstDense, .layerStep = step
    };
    return m;
}

nlohmann::json hfConfig(const std::string& file)
{
    return nlohmann::json::parse(testData("hf/" + file));
}

} // namespace

TEST(MoeLayerPlacement, CountsMatchTheLayerRule)
{
    for (int layers : { 1, 7, 12, 48, 61 }) {
        for (int first = 0; first < std::min(layers, 4); ++first) {
            for (int step = 1; first + step <= layers && step <= 4; ++step) {
                const ModelSpec m = moeModel(layers, first, step);
                for (int begin = 0; begin <= layers; ++begin) {
                    for (int end = begin; end <= layers; ++end) {
                        int brute = 0;
                        for (int l = begin; l < end; ++l)
                            brute += (l >= first && (l - first + 1) % step == 0) ? 1 : 0;
                        ASSERT_EQ(m.moeLayersIn(begin, end), brute) << layers << " " << first << " " << step;
                    }
                }
                EXPECT_TRUE(m.isMoeLayer(m.firstMoeLayer()));
                EXPECT_EQ(m.hasDenseLayer(), first > 0 || step > 1);
                if (m.hasDenseLayer()) {
                    EXPECT_FALSE(m.isMoeLayer(m.firstDenseLayer()));
                }
            }
        }
    }
}

TEST(MoeLayerPlacement, MegatronLayerFreqRoundTrips)
{
    const auto maverick = PresetLibrary::instance().model("llama4-maverick");
    ASSERT_TRUE(maverick);
    EXPECT_EQ(moeLayerFreqPattern(*maverick), "([0,1]*24)");
    EXPECT_EQ(moeLayerFreqPattern(*PresetLibrary::instance().model("deepseek-v3")), "([0]*3+[1]*58)");
    EXPECT_EQ(moeLayerFreqPattern(*PresetLibrary::instance().model("mixtral-8x7b")), ""); // the default, 1
    EXPECT_EQ(moeLayerFreqPattern(moeModel(7, 1, 2)), "([0]*1+[0,1]*3)");
    EXPECT_EQ(moeLayerFreqPattern(moeModel(8, 0, 3)), "([0,0,1]*2+[0]*2)");
    for (int layers : { 6, 13, 48 }) {
        for (int first = 0; first < 3; ++first) {
            for (int step = 1; first + step <= layers && step <= 4; ++step) {
                const ModelSpec m = moeModel(layers, first, step);
                std::string error;
                const std::vector<int> pattern
                    = expandMoeLayerFreq(m.moeLayerCount() == layers ? "1" : moeLayerFreqPattern(m), layers, error);
                ASSERT_EQ(static_cast<int>(pattern.size()), layers) << error;
                // The same layers (one MoE layer reads as a dense prefix of any step).
                const auto back = moePlacementOf(pattern);
                ASSERT_TRUE(back) << layers << " " << first << " " << step;
                const ModelSpec read = moeModel(layers, back->firstDenseLayers, back->layerStep);
                for (int l = 0; l < layers; ++l)
                    EXPECT_EQ(read.isMoeLayer(l), m.isMoeLayer(l)) << layers << " " << first << " " << step;
            }
        }
    }
    std::string error;
    // Megatron's integer frequency puts MoE on layers 0, N, 2N: an MoE layer first, which no dense prefix
    // and step describe.
    const std::vector<int> everySecond = expandMoeLayerFreq("2", 8, error);
    EXPECT_EQ(everySecond, (std::vector<int> { 1, 0, 1, 0, 1, 0, 1, 0 }));
    EXPECT_FALSE(moePlacementOf(everySecond));
    EXPECT_TRUE(expandMoeLayerFreq("([0,1]*23)", 48, error).empty());
    EXPECT_NE(error.find("covers 46 layers"), std::string::npos) << error;
    EXPECT_TRUE(expandMoeLayerFreq("([0,2]*24)", 48, error).empty());
    EXPECT_NE(error.find("list of 0/1"), std::string::npos) << error;
    // A repeated group, as arguments.py's help writes it ("([1]*3+[0]*1)*3"), nested, and unbalanced.
    EXPECT_EQ(
        expandMoeLayerFreq("([1]*3+[0]*1)*3", 12, error), (std::vector<int> { 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0 }));
    EXPECT_EQ(expandLayerList("--window-attn-skip-freq", "[0]+(([1]*2+[0])*2)*2", 13, error),
        (std::vector<int> { 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0 }));
    EXPECT_TRUE(expandLayerList("--window-attn-skip-freq", "([1]*3+[0]*1)*3)", 12, error).empty());
    EXPECT_NE(error.find("--window-attn-skip-freq ([1]*3+[0]*1)*3): expected"), std::string::npos) << error;
    EXPECT_TRUE(expandLayerList("--moe-layer-freq", "([1]*3+[0]*1)*99999999", 12, error).empty());
}

TEST(MoeLayerPlacement, HuggingFaceConfigsPlaceTheirMoeLayers)
{
    std::string error;
    const auto m = HfConfigReader::read(hfConfig("llama4-maverick.config.json"), "Maverick", error);
    ASSERT_TRUE(m) << error;
    ASSERT_TRUE(m->isMoe());
    EXPECT_EQ(m->moe->layerStep, 2);
    EXPECT_EQ(m->moe->firstDenseLayers, 0);
    EXPECT_EQ(m->moe->sharedExperts, 1);
    EXPECT_EQ(m->ffnHidden, 16384);
    EXPECT_EQ(m->moe->expertFfnHidden, 8192);
    EXPECT_FALSE(m->isMoeLayer(0));
    EXPECT_TRUE(m->isMoeLayer(1));
    EXPECT_EQ(m->moeLayerCount(), 24);
    // Meta's model card: 400B total, 17B active.
    EXPECT_NEAR(totalParameters(*m) / 400e9, 1.0, 0.01) << totalParameters(*m);
    EXPECT_NEAR(activeParameters(*m) / 17e9, 1.0, 0.02) << activeParameters(*m);

    // Qwen2-MoE's decoder_sparse_step: MoE where (i + 1) % step == 0.
    const nlohmann::json qwen
        = nlohmann::json::parse(R"({"model_type": "qwen2_moe", "hidden_size": 2048, "num_hidden_layers": 24,
        "num_attention_heads": 16, "intermediate_size": 5632, "vocab_size": 151936, "num_experts": 60,
        "num_experts_per_tok": 4, "moe_intermediate_size": 1408, "decoder_sparse_step": 2})");
    const auto q = HfConfigReader::read(qwen, "q", error);
    ASSERT_TRUE(q) << error;
    EXPECT_EQ(q->moe->layerStep, 2);
    EXPECT_EQ(q->moeLayerCount(), 12);
    EXPECT_TRUE(q->isMoeLayer(23));
    // With three dense layers listed first: MoE on 3, 5, 7, ..., a dense prefix of 2 and step 2.
    nlohmann::json prefixed = qwen;
    prefixed["mlp_only_layers"] = { 0, 1, 2 };
    const auto p = HfConfigReader::read(prefixed, "p", error);
    ASSERT_TRUE(p) << error;
    EXPECT_EQ(p->moe->firstDenseLayers, 2);
    EXPECT_EQ(p->moe->layerStep, 2);
    EXPECT_FALSE(p->isMoeLayer(1));
    EXPECT_TRUE(p->isMoeLayer(3));
    EXPECT_EQ(p->moeLayerCount(), 11);
}

TEST(MoeLayerPlacement, ScenarioFileAndMegatronFlagsKeepTheStep)
{
    Scenario s = makeScenario("llama4-maverick", "h100-sxm", 8, 8, degrees(1, 4, 16, 1, 16), batch(1, 256));
    LoadError error;
    const auto back = parseScenario(scenarioToJson(s).dump(), error);
    ASSERT_TRUE(back) << error.text();
    EXPECT_EQ(back->model.moe->layerStep, 2);
    EXPECT_TRUE(back->model == s.model);

    const std::string args = MegatronArgsWriter::write(s);
    EXPECT_NE(args.find("--moe-layer-freq \"([0,1]*24)\""), std::string::npos) << args;
    const auto imported = LaunchArgsImporter::import(args, {});
    ASSERT_TRUE(imported.scenario) << imported.error;
    EXPECT_EQ(imported.scenario->model.moe->layerStep, 2);
    EXPECT_EQ(imported.scenario->model.moe->firstDenseLayers, 0);
    EXPECT_EQ(imported.scenario->model.moeLayerCount(), 24);
    // NeMo spells it moe_layer_freq; torchtitan has the model as llama4 / 17bx128e (its flavor holds the step).
    EXPECT_NE(NemoRecipeWriter::write(s).find("moe_layer_freq = ([0,1]*24)"), std::string::npos);
    EXPECT_NE(TorchtitanTomlWriter::write(s).find("name = \"llama4\"\nflavor = \"17bx128e\""), std::string::npos);
    // Megatron's integer frequency 2 puts an MoE layer first: refused with the pattern the engine can hold.
    const auto integer
        = LaunchArgsImporter::import(parallax::test::smallMegatronCommand("--num-experts 8 --moe-layer-freq 2"), {});
    EXPECT_FALSE(integer.scenario);
    EXPECT_NE(integer.error.find("--moe-layer-freq 2"), std::string::npos) << integer.error;
}

// Both kinds of layer cost time and memory: widening the dense layers' MLP (which only half the layers have)
// slows the step and grows the weights; widening the experts does too.
TEST(MoeLayerPlacement, TheEngineCostsDenseAndMoeLayers)
{
    Scenario s = makeScenario("llama4-maverick", "h100-sxm", 8, 8, degrees(1, 4, 16, 1, 16), batch(1, 256));
    const Report base = evaluate(s);
    ASSERT_TRUE(base.valid);
    Scenario wideDense = s;
    wideDense.model.ffnHidden *= 2;
    const Report dense = evaluate(wideDense);
    EXPECT_GT(dense.stepTimeSeconds, base.stepTimeSeconds * 1.05);
    EXPECT_GT(dense.stages.front().weightsBytes, base.stages.front().weightsBytes);
    Scenario wideExperts = s;
    wideExperts.model.moe->expertFfnHidden *= 2;
    const Report experts = evaluate(wideExperts);
    EXPECT_GT(experts.stepTimeSeconds, base.stepTimeSeconds * 1.05);
    // Half the layers are MoE: stage 0's 12 layers hold 6, each with 128 / 16 routed experts on a GPU and the
    // shared expert whole (bf16 weights).
    const double expertBytesPerGpu = (128.0 / 16 + 1) * 3 * 5120 * 8192 * 6 * 2;
    EXPECT_NEAR(experts.stages.front().weightsBytes - base.stages.front().weightsBytes, expertBytesPerGpu,
        0.01 * expertBytesPerGpu);
}

// An edit that leaves no MoE layer is refused with the fields to change.
TEST(MoeLayerPlacement, AStepPastTheLastLayerIsRefused)
{
    Scenario s = makeScenario("llama4-maverick", "h100-sxm", 8, 8, degrees(1, 4, 16, 1, 16), batch(1, 256));
    s.model.moe->firstDenseLayers = 40;
    s.model.moe->layerStep = 9;
    const Report r = evaluate(s);
    EXPECT_FALSE(r.valid);
    bool named = false;
    for (const auto& e : r.errors)
        named = named || e.field == "model.moe.first_dense_layers";
    EXPECT_TRUE(named);
}
