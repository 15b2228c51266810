// SPDX-License-Identifier: Apache-2.0
// MoE token dropping (training.moe_expert_capacity_factor, training.moe_pad_expert_input_to_capacity;
// Megatron-Core --moe-expert-capacity-factor / --moe-pad-expert-input-to-capacity): the busiest expert's
// load is capped at the capacity, or padded to exactly it.
#include "../TestScenarios.h"
#include "core/Engine.h"
#include "core/io/ScenarioIo.h"
#include "core/launch/LaunchArgsImporter.h"
#include "core/launch/MegatronArgsWriter.h"
#include "core/launch/NemoRecipeWriter.h"
#include "core/launch/TorchtitanTomlWriter.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace parallax::core;

namespace {
TrainingConfig capacity(double factor, bool pad)
{
    TrainingConfig t;
    t.moeExpertCapacityFactor = factor;
    t.moePadExpertInputToCapacity = pad;
    return t;
}
} // namespace

TEST(ExpertCapacity, CapsOrPadsTheBusiestExpert)
{
    EXPECT_DOUBLE_EQ(expertLoadFactor(capacity(0, false), 1.25), 1.25); // dropless
    EXPECT_DOUBLE_EQ(expertLoadFactor(capacity(1.0, false), 1.25), 1.0); // dropped beyond the mean
    EXPECT_DOUBLE_EQ(expertLoadFactor(capacity(2.0, false), 1.25), 1.25); // a capacity never reached
    EXPECT_DOUBLE_EQ(expertLoadFactor(capacity(2.0, true), 1.25), 2.0); // padded up to it
}

// The 64-GPU 1T MoE of the guide: a capacity of 1.0 shortens the step (the expert GEMMs and the
// all-to-alls carry the mean load, not 1.25x); padding to 1.5 lengthens it.
TEST(ExpertCapacity, MovesTheStepTime)
{
    Scenario s = parallax::test::presetScenario("guide-moe1t-64xh100");
    ASSERT_TRUE(s.model.isMoe());
    const Report dropless = evaluate(s);
    s.training.moeExpertCapacityFactor = 1.0;
    const Report capped = evaluate(s);
    s.training.moeExpertCapacityFactor = 1.5;
    s.training.moePadExpertInputToCapacity = true;
    const Report padded = evaluate(s);
    EXPECT_LT(capped.stepTimeSeconds, 0.97 * dropless.stepTimeSeconds);
    EXPECT_GT(padded.stepTimeSeconds, 1.03 * dropless.stepTimeSeconds);
    // The routed activations follow the load too.
    EXPECT_LT(capped.peakMemoryBytes, dropless.peakMemoryBytes);
}

TEST(ExpertCapacity, FieldsReadWriteAndNameTheFix)
{
    Scenario s = parallax::test::presetScenario("guide-moe1t-64xh100");
    s.training.moeExpertCapacityFactor = 1.0;
    s.training.moePadExpertInputToCapacity = true;
    LoadError error;
    auto back = parseScenario(serializeScenario(s), error);
    ASSERT_TRUE(back) << error.text();
    EXPECT_DOUBLE_EQ(back->training.moeExpertCapacityFactor, 1.0);
    EXPECT_TRUE(back->training.moePadExpertInputToCapacity);
    // Each key alone in a Mixtral scenario: the message names the field and the fix.
    for (const char* training : { R"("moe_pad_expert_input_to_capacity":true)", R"("moe_expert_capacity_factor":0)",
             R"("moe_expert_capacity_factor":"1.0")" }) {
        nlohmann::json doc = nlohmann::json::parse(R"({"model":"mixtral-8x7b",
            "cluster":{"gpu":"h100-sxm","nodes":1,"gpus_per_node":8}, "parallel":{"dp":8,"ep":8},
            "training":{"global_batch":8}})");
        doc["training"].update(nlohmann::json::parse(std::string("{") + training + "}"));
        EXPECT_FALSE(parseScenario(doc.dump(), error)) << training;
        EXPECT_NE(error.text().find("moe_expert_capacity_factor"), std::string::npos) << error.text();
    }
    // Padding without a capacity (an editor's intermediate state) is not written, so the file reloads.
    s.training.moeExpertCapacityFactor = 0;
    EXPECT_TRUE(parseScenario(serializeScenario(s), error)) << error.text();
}

TEST(ExpertCapacity, LaunchConfigurationsCarryIt)
{
    Scenario s = parallax::test::presetScenario("guide-moe1t-64xh100");
    s.training.moeExpertCapacityFactor = 1.0;
    s.training.moePadExpertInputToCapacity = true;
    const std::string megatron = MegatronArgsWriter::write(s);
    EXPECT_NE(megatron.find("--moe-expert-capacity-factor 1.00"), std::string::npos) << megatron;
    EXPECT_NE(megatron.find("--moe-pad-expert-input-to-capacity"), std::string::npos);
    const std::string nemo = NemoRecipeWriter::write(s);
    EXPECT_NE(nemo.find("recipe.model.config.moe_expert_capacity_factor = 1.00\n"), std::string::npos) << nemo;
    EXPECT_NE(nemo.find("recipe.model.config.moe_pad_expert_input_to_capacity = True\n"), std::string::npos);
    for (const std::string& text : { megatron, nemo }) {
        const auto imported = LaunchArgsImporter::import(text, LaunchArgsImporter::Defaults {});
        ASSERT_TRUE(imported.scenario) << imported.error;
        EXPECT_DOUBLE_EQ(imported.scenario->training.moeExpertCapacityFactor, 1.0);
        EXPECT_TRUE(imported.scenario->training.moePadExpertInputToCapacity);
    }
    EXPECT_NE(TorchtitanTomlWriter::write(s).find("# NOTE: torchtitan's MoE is dropless"), std::string::npos);
}
