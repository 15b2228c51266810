// SPDX-License-Identifier: Apache-2.0
// training.recompute_modules (Megatron-Core --recompute-modules): what each module frees, what it
// costs in the backward, how it reads, writes and survives a launch-configuration round trip.
#include "../TestScenarios.h"
#include "core/Engine.h"
#include "core/costs/CostModel.h"
#include "core/costs/MoeCosts.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/launch/LaunchArgsImporter.h"
#include "core/launch/MegatronArgsWriter.h"
#include "core/launch/NemoRecipeWriter.h"
#include "core/memory/ActivationMemory.h"
#include "core/model/LayerShape.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace parallax::core;
namespace rm = parallax::core::recompute_module;

namespace {
ModelSpec deepseekV3()
{
    auto m = PresetLibrary::instance().model("deepseek-v3");
    EXPECT_TRUE(m);
    return m ? *m : ModelSpec {};
}

ActivationContext context(bool fp8, unsigned modules)
{
    ActivationContext c;
    c.seqLen = 4096;
    c.microBatch = 1;
    c.fp8 = fp8;
    c.recompute = Recompute::Selective;
    c.recomputeModules = modules;
    return c;
}

// Bytes the modules free, against no recompute at all.
double freedBy(const ModelSpec& m, const LayerShape& shape, bool fp8, unsigned modules)
{
    ActivationContext none = context(fp8, 0);
    none.recompute = Recompute::None;
    return layerActivationBytes(m, shape, none) - layerActivationBytes(m, shape, context(fp8, modules));
}
} // namespace

// DeepSeek-V3's MoE layer (MLA, 256 routed experts of width 2048, top-8, one shared expert), tp = 1,
// 4096 tokens: each module frees the tensors its checkpoint does not keep, per token.
TEST(RecomputeModules, EachModuleFreesItsTensors)
{
    const ModelSpec m = deepseekV3();
    const LayerShape moe = layerShape(m, m.moe->firstDenseLayers);
    const LayerShape dense = layerShape(m, 0);
    ASSERT_TRUE(moe.moe);
    ASSERT_GT(moe.mlaLatentWidth, 0);
    const double tokens = 4096, h = 7168, heads = 128, qk = 192, v = 128, experts = 256, topK = 8, width = 2048;
    const double imbalance = ActivationContext {}.expertLoadImbalance;
    for (const bool fp8 : { false, true }) {
        SCOPED_TRACE(fp8 ? "fp8" : "bf16");
        const double in = fp8 ? 1.0 : 2.0; // a linear's saved input, per element
        // core_attn under the fused kernel: its fp32 statistics, and under FP8 the 16-bit output copy.
        EXPECT_DOUBLE_EQ(freedBy(m, moe, fp8, rm::kCoreAttn), tokens * (4.0 * heads + (fp8 ? 2.0 * heads * v : 0.0)));
        // layernorm: the norm before MLA's down projections (their saved input) and before the router.
        EXPECT_DOUBLE_EQ(freedBy(m, moe, fp8, rm::kLayernorm), tokens * (in * h + 2.0 * h));
        // mla_up_proj: the normed latents (q 1536, kv 512 + rope 64) and Q, K, V.
        EXPECT_DOUBLE_EQ(freedBy(m, moe, fp8, rm::kMlaUpProj),
            tokens * (2.0 * (1536 + 512 + 64) + 2.0 * (heads * qk + heads * (qk + v))));
        // moe_act: the routed copies' activation output, the down projection's input.
        EXPECT_DOUBLE_EQ(freedBy(m, moe, fp8, rm::kMoeAct), tokens * topK * imbalance * in * width);
        // shared_experts: the shared expert's SwiGLU input (gate, up) and output.
        EXPECT_DOUBLE_EQ(freedBy(m, moe, fp8, rm::kSharedExperts), tokens * (4.0 + in) * width);
        // moe: router logits, the routed copies (input, SwiGLU tensors) and the shared expert.
        EXPECT_DOUBLE_EQ(freedBy(m, moe, fp8, rm::kMoe),
            tokens * (4.0 * experts + topK * imbalance * (in * h + (4.0 + in) * width) + (4.0 + in) * width));
        // moe_act inside a recomputed moe is not counted twice.
        EXPECT_DOUBLE_EQ(freedBy(m, moe, fp8, rm::kMoe | rm::kMoeAct), freedBy(m, moe, fp8, rm::kMoe));
        // mlp applies to dense layers only: their first linear's input and SwiGLU tensors (ffn 18432).
        EXPECT_DOUBLE_EQ(freedBy(m, moe, fp8, rm::kMlp), 0.0);
        EXPECT_DOUBLE_EQ(freedBy(m, dense, fp8, rm::kMlp), tokens * (in * h + (4.0 + in) * 18432));
        // On the dense layer the MLP norm is fused (Megatron-Core's TE spec): layernorm frees only MLA's.
        EXPECT_DOUBLE_EQ(freedBy(m, dense, fp8, rm::kLayernorm), tokens * in * h);
    }
}

// A GQA model has no MLA: mla_up_proj frees nothing, and its fused norms are not recomputed.
TEST(RecomputeModules, ModulesAModelLacksFreeNothing)
{
    auto llama = PresetLibrary::instance().model("llama3-70b");
    ASSERT_TRUE(llama);
    const LayerShape shape = layerShape(*llama, 0);
    EXPECT_DOUBLE_EQ(freedBy(*llama, shape, false, rm::kMlaUpProj | rm::kLayernorm | rm::kMoeAct | rm::kMoe), 0.0);
    EXPECT_GT(freedBy(*llama, shape, false, rm::kMlp), 0.0);
}

// The list is read under selective recompute only: full and none ignore it.
TEST(RecomputeModules, IgnoredUnlessSelective)
{
    const ModelSpec m = deepseekV3();
    const LayerShape shape = layerShape(m, m.moe->firstDenseLayers);
    for (const Recompute r : { Recompute::None, Recompute::Full }) {
        ActivationContext a = context(true, rm::kDefault);
        a.recompute = r;
        ActivationContext b = a;
        b.recomputeModules = rm::kMoe | rm::kMlaUpProj | rm::kLayernorm;
        EXPECT_DOUBLE_EQ(layerActivationBytes(m, shape, a), layerActivationBytes(m, shape, b));
    }
}

// Under FP8 a deferred weight gradient keeps its GEMM's fp8 operands; the router's stay 16-bit.
TEST(RecomputeModules, Fp8WPendingHoldsFp8Operands)
{
    const ModelSpec m = deepseekV3();
    const LayerShape shape = layerShape(m, m.moe->firstDenseLayers);
    const double bf16 = layerWPendingBytes(m, shape, context(false, 0));
    const double fp8 = layerWPendingBytes(m, shape, context(true, 0));
    const double router = 2.0 * 4096 * (7168 + 256);
    EXPECT_DOUBLE_EQ(fp8, 0.5 * (bf16 - router) + router);
}

// Each module's recompute time is its forward again: the attention kernel, the up-projection GEMMs,
// the whole MoE layer with its dispatch and combine.
TEST(RecomputeModules, BackwardPaysEachModulesForward)
{
    const ModelSpec m = deepseekV3();
    const LayerShape shape = layerShape(m, m.moe->firstDenseLayers);
    const GpuSpec gpu = *PresetLibrary::instance().gpu("h800-sxm");
    const EfficiencyDefaults defaults;
    const ComputeRates rates(gpu, DType::Fp8, nullptr, defaults);
    LayerCommGroups groups;
    groups.ep.size = groups.ep.inner = 8;
    groups.ep.intra = { 200e9, 3e-6 };
    auto times
        = [&](unsigned modules) { return layerTimes(m, shape, context(true, modules), rates, groups, defaults); };
    const LayerTimes none = times(0);
    EXPECT_DOUBLE_EQ(none.recomputeCompute, 0.0);
    const ActivationContext c = context(true, 0);
    EXPECT_DOUBLE_EQ(times(rm::kCoreAttn).recomputeCompute,
        rates.causalAttentionSeconds(layerAttentionScoreFlops(shape, c), c.seqLen / c.cp));
    const double upGemms = rates.gemmSeconds(4096, shape.heads * shape.qkHeadDim, 1536)
        + rates.gemmSeconds(4096, shape.heads * (128 + 128), 512);
    // The GEMMs, and the latents' norms and RoPE with the Q/K assembly reading and writing 16-bit tensors.
    const double passes = rates.layerKernelSeconds(4.0 * 4096 * ((1536 + 512 + 64) + 2 * 128 * 192));
    EXPECT_DOUBLE_EQ(times(rm::kMlaUpProj).recomputeCompute, upGemms + passes);
    const MoeLayerTimes moe = moeLayerTimes(shape, c, rates, groups.ep, 7168, false);
    const LayerTimes whole = times(rm::kMoe);
    EXPECT_DOUBLE_EQ(whole.epBackward - none.epBackward, moe.allToAllForward);
    EXPECT_GT(whole.recomputeCompute, moe.forwardCompute());
    EXPECT_GT(times(rm::kMoeAct).recomputeCompute, 0.0);
    EXPECT_LT(times(rm::kMoeAct).recomputeCompute, 0.1 * moe.expertForward); // one memory-bound pass
}

// Hardware FLOPs count the recomputed up projections: 2 x in x out per token and layer.
TEST(RecomputeModules, HardwareFlopsCountTheRecomputedLinears)
{
    Scenario s = parallax::test::presetScenario("deepseek-v3-2048xh800");
    s.training.recomputeModules = rm::kCoreAttn;
    const Report base = evaluate(s);
    s.training.recomputeModules = rm::kCoreAttn | rm::kMlaUpProj;
    const Report up = evaluate(s);
    const double tokens = static_cast<double>(s.training.globalBatch) * s.seqLen();
    const double perLayer = 2.0 * (1536.0 * 128 * 192 + 512.0 * 128 * (128 + 128));
    EXPECT_NEAR((up.hardwareFlopsPerStep - base.hardwareFlopsPerStep) / (perLayer * 61 * tokens), 1.0, 1e-9);
    EXPECT_GT(up.stepTimeSeconds, base.stepTimeSeconds);
    EXPECT_LT(up.peakMemoryBytes, base.peakMemoryBytes);
}

// The scenario file: Megatron's names, field-named errors, written back only when not the default.
TEST(RecomputeModules, ScenarioFieldReadsAndWrites)
{
    Scenario s = parallax::test::presetScenario("guide-70b-64xh100");
    nlohmann::json j = scenarioToJson(s);
    j["training"]["recompute"] = "selective";
    j["training"]["recompute_modules"] = { "mlp", "core_attn" };
    LoadError error;
    auto read = parseScenario(j.dump(), error);
    ASSERT_TRUE(read) << error.text();
    EXPECT_EQ(read->training.recomputeModules, rm::kMlp | rm::kCoreAttn);
    EXPECT_EQ(scenarioToJson(*read)["training"]["recompute_modules"], nlohmann::json({ "core_attn", "mlp" }));
    EXPECT_EQ(recomputeText(read->training), "selective (core_attn, mlp)");

    j["training"]["recompute_modules"] = nlohmann::json::array();
    read = parseScenario(j.dump(), error);
    ASSERT_TRUE(read) << error.text(); // Megatron accepts an empty list: selective recomputes nothing
    EXPECT_EQ(read->training.recomputeModules, 0u);
    EXPECT_EQ(scenarioToJson(*read)["training"]["recompute_modules"], nlohmann::json::array());

    j["training"]["recompute_modules"] = { "mlp", "attention" };
    EXPECT_FALSE(parseScenario(j.dump(), error));
    EXPECT_EQ(error.path, "training.recompute_modules[1]");
    EXPECT_NE(
        error.message.find("core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, shared_experts"), std::string::npos);

    j["training"]["recompute_modules"] = { "mlp" };
    j["training"]["recompute"] = "full";
    EXPECT_FALSE(parseScenario(j.dump(), error));
    EXPECT_EQ(error.path, "training.recompute_modules");
    EXPECT_NE(error.message.find("set training.recompute to \"selective\""), std::string::npos);

    j["training"].erase("recompute_modules");
    j["training"]["recompute"] = "selective";
    read = parseScenario(j.dump(), error);
    ASSERT_TRUE(read) << error.text();
    EXPECT_EQ(read->training.recomputeModules, rm::kDefault); // Megatron-Core's default, ["core_attn"]
    EXPECT_FALSE(scenarioToJson(*read)["training"].contains("recompute_modules"));
}

// Megatron-LM flags and the NeMo recipe carry the list, and import reads it back.
TEST(RecomputeModules, LaunchConfigurationsCarryTheList)
{
    Scenario s = parallax::test::presetScenario("guide-moe1t-64xh100");
    s.training.recompute = Recompute::Selective;
    for (const unsigned modules : { rm::kMoeAct | rm::kLayernorm | rm::kSharedExperts, 0u }) {
        s.training.recomputeModules = modules;
        const std::string megatron = MegatronArgsWriter::write(s);
        if (modules != 0) {
            EXPECT_NE(megatron.find("--recompute-modules moe_act layernorm shared_experts"), std::string::npos);
        }
        const std::string nemo = NemoRecipeWriter::write(s);
        if (modules != 0) {
            EXPECT_NE(
                nemo.find("recompute_modules = [\"moe_act\", \"layernorm\", \"shared_experts\"]"), std::string::npos);
        }
        for (const std::string& text : { megatron, nemo }) {
            const auto back = LaunchArgsImporter::import(text, {});
            ASSERT_TRUE(back.scenario) << back.error;
            EXPECT_EQ(back.scenario->training.recompute, Recompute::Selective);
            EXPECT_EQ(back.scenario->training.recomputeModules, modules) << text;
        }
    }
}
