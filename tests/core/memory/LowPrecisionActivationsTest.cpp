// SPDX-License-Identifier: Apache-2.0
// Activations saved in fewer bits than they were computed in: Megatron-Core's
// --activation-func-fp8-input-store (training.activation_func_fp8_input_store) and DeepSeek-V3's own
// fp8 / E5M6 cache (training.deepseek_activation_cache, arXiv:2412.19437 sec. 3.3.2).
#include "../TestScenarios.h"
#include "core/Engine.h"
#include "core/Validation.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/launch/LaunchArgsImporter.h"
#include "core/launch/MegatronArgsWriter.h"
#include "core/launch/NemoRecipeWriter.h"
#include "core/memory/ActivationMemory.h"
#include "core/model/LayerShape.h"

#include <gtest/gtest.h>

using namespace parallax::core;
namespace rm = parallax::core::recompute_module;

namespace {
ModelSpec modelPreset(const std::string& id)
{
    auto m = PresetLibrary::instance().model(id);
    EXPECT_TRUE(m) << id;
    return m ? *m : ModelSpec {};
}

ActivationContext context(unsigned modules, bool fp8Store, bool deepseek)
{
    ActivationContext c;
    c.seqLen = 4096;
    c.microBatch = 1;
    c.fp8 = true;
    c.recompute = modules == 0 ? Recompute::None : Recompute::Selective;
    c.recomputeModules = modules;
    c.swigluFp8InputStore = fp8Store;
    c.deepseekActivationCache = deepseek;
    return c;
}

bool hasMessage(const std::vector<Message>& list, const std::string& field)
{
    for (const Message& m : list) {
        if (m.field == field)
            return true;
    }
    return false;
}
} // namespace

// A dense SwiGLU layer (Llama 3 70B, tp 8 with SP): the fp8 store halves the saved gate and up
// projections, 2 x ffn / tp elements per token, and nothing else.
TEST(LowPrecisionActivations, Fp8InputStoreHalvesTheDenseSwigluInput)
{
    const ModelSpec m = modelPreset("llama3-70b");
    const LayerShape shape = layerShape(m, 0);
    ActivationContext c = context(0, false, false);
    c.tp = 8;
    c.sp = true;
    ActivationContext stored = c;
    stored.swigluFp8InputStore = true;
    const double tokens = 4096, ffn = static_cast<double>(m.ffnHidden);
    EXPECT_DOUBLE_EQ(layerActivationBytes(m, shape, c) - layerActivationBytes(m, shape, stored),
        tokens * 2.0 * ffn / 8 * (2.0 - 1.0));
}

// DeepSeek-V3's MoE layer with moe_act recomputed: Megatron's checkpoint keeps the experts' 16-bit
// SwiGLU input, so the flag saves only the shared expert's; without moe_act it saves the routed
// copies' too (top-8 x 1.25 imbalance x 2 x 2048 per token).
TEST(LowPrecisionActivations, Fp8InputStoreDoesNotReachTheMoeActCheckpoint)
{
    const ModelSpec m = modelPreset("deepseek-v3");
    const LayerShape moe = layerShape(m, m.moe->firstDenseLayers);
    ASSERT_TRUE(moe.moe);
    const double tokens = 4096, width = 2048, shared = 2048;
    const double imbalance = 1.25;
    auto saved = [&](unsigned modules) {
        ActivationContext off = context(modules, false, false);
        ActivationContext on = context(modules, true, false);
        off.expertLoadImbalance = on.expertLoadImbalance = imbalance;
        return layerActivationBytes(m, moe, off) - layerActivationBytes(m, moe, on);
    };
    const double sharedInput = tokens * 2.0 * shared * m.moe->sharedExperts;
    EXPECT_DOUBLE_EQ(saved(rm::kMoeAct | rm::kLayernorm), sharedInput);
    EXPECT_DOUBLE_EQ(saved(rm::kLayernorm), sharedInput + tokens * 8 * imbalance * 2.0 * width);
}

// DeepSeek's cache: the attention output once in E5M6 (1.5 bytes instead of a 16-bit tensor plus its
// fp8 copy) and the MoE SwiGLU inputs, routed and shared, in fp8 even under moe_act.
TEST(LowPrecisionActivations, DeepSeekCacheStoresE5m6AttentionOutputAndFp8SwigluInputs)
{
    const ModelSpec m = modelPreset("deepseek-v3");
    const LayerShape moe = layerShape(m, m.moe->firstDenseLayers);
    const LayerShape dense = layerShape(m, 0);
    const unsigned modules = rm::kMoeAct | rm::kLayernorm | rm::kMlaUpProj;
    const ActivationContext off = context(modules, false, false);
    const ActivationContext on = context(modules, false, true);
    const double tokens = 4096, attentionOut = 128.0 * 128.0, width = 2048;
    const double attention = tokens * attentionOut * (3.0 - 1.5);
    // The dense layers (the first three) gain the attention term only: their MLP is not an MoE's.
    EXPECT_DOUBLE_EQ(layerActivationBytes(m, dense, off) - layerActivationBytes(m, dense, on), attention);
    const double routed = tokens * 8 * off.expertLoadImbalance * 2.0 * width;
    const double shared = tokens * 2.0 * width * m.moe->sharedExperts;
    EXPECT_DOUBLE_EQ(layerActivationBytes(m, moe, off) - layerActivationBytes(m, moe, on), attention + routed + shared);
}

// The DeepSeek-V3 preset, DeepSeek's published layout: without the cache it does not fit 80 GB; with
// it the peak range straddles the HBM, the layout is not rejected.
TEST(LowPrecisionActivations, DeepSeekLayoutIsNotRejectedWithItsCache)
{
    Scenario s = parallax::test::presetScenario("deepseek-v3-2048xh800");
    ASSERT_TRUE(s.training.deepseekActivationCache);
    const Report with = evaluate(s);
    EXPECT_NE(with.memoryVerdict, MemoryVerdict::DoesNotFit) << with.peakMemoryBytes / (1u << 30) << " GiB";
    EXPECT_TRUE(with.fits);
    s.training.deepseekActivationCache = false;
    const Report without = evaluate(s);
    EXPECT_EQ(without.memoryVerdict, MemoryVerdict::DoesNotFit);
    EXPECT_GT(without.peakMemoryBytes, with.peakMemoryBytes * 1.15);
    EXPECT_DOUBLE_EQ(without.stepTimeSeconds, with.stepTimeSeconds); // storage only, no time
}

TEST(LowPrecisionActivations, FieldsReadWriteAndValidate)
{
    Scenario s = parallax::test::presetScenario("llama3-70b-64xh100");
    s.training.activationFuncFp8InputStore = true;
    s.training.deepseekActivationCache = true;
    s.training.dtype = DType::Bf16;
    LoadError error;
    auto back = parseScenario(serializeScenario(s), error);
    ASSERT_TRUE(back) << error.text();
    EXPECT_TRUE(back->training.activationFuncFp8InputStore);
    EXPECT_TRUE(back->training.deepseekActivationCache);
    // The cache stores fp8 and E5M6 tensors of FP8 training: bf16 is an error naming the field.
    EXPECT_TRUE(hasMessage(validateScenario(*back).errors, "training.deepseek_activation_cache"));
    back->training.dtype = DType::Fp8;
    EXPECT_FALSE(hasMessage(validateScenario(*back).errors, "training.deepseek_activation_cache"));
    EXPECT_FALSE(parseScenario(R"({"model":"llama3-8b","cluster":{"gpu":"h100-sxm","nodes":1,"gpus_per_node":8},
        "parallel":{"dp":8},"training":{"global_batch":8,"activation_func_fp8_input_store":"yes"}})",
        error));
    EXPECT_NE(error.text().find("activation_func_fp8_input_store"), std::string::npos) << error.text();
}

// Megatron-LM spells the store --activation-func-fp8-input-store and NeMo activation_func_fp8_input_store;
// both import back. DeepSeek's cache has no flag: a NOTE says so and the marker line carries it.
TEST(LowPrecisionActivations, LaunchConfigurationsCarryTheSwitches)
{
    Scenario s = parallax::test::presetScenario("deepseek-v3-2048xh800");
    s.training.activationFuncFp8InputStore = true;
    const std::string megatron = MegatronArgsWriter::write(s);
    EXPECT_NE(megatron.find("    --activation-func-fp8-input-store\n"), std::string::npos) << megatron;
    EXPECT_NE(megatron.find("# NOTE: Megatron-LM has no flag for DeepSeek-V3's activation cache"), std::string::npos);
    const std::string nemo = NemoRecipeWriter::write(s);
    EXPECT_NE(nemo.find("recipe.model.config.activation_func_fp8_input_store = True\n"), std::string::npos) << nemo;
    for (const std::string& text : { megatron, nemo }) {
        const auto imported = LaunchArgsImporter::import(text, LaunchArgsImporter::Defaults {});
        ASSERT_TRUE(imported.scenario) << imported.error;
        EXPECT_TRUE(imported.scenario->training.activationFuncFp8InputStore);
        EXPECT_TRUE(imported.scenario->training.deepseekActivationCache);
    }
}
