// SPDX-License-Identifier: Apache-2.0
// Megatron-Core's custom pipeline layout (--pipeline-model-parallel-layout): the parser, its rules, the
// stage split it gives the engine, and the scenario and launch formats that carry it.
#include "core/parallel/PipelineLayout.h"
#include "TestScenarios.h"
#include "core/Engine.h"
#include "core/io/ScenarioIo.h"
#include "core/launch/LaunchArgsImporter.h"
#include "core/launch/MegatronArgsWriter.h"
#include "core/launch/NemoRecipeWriter.h"
#include "core/model/ModelMath.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace parallax::core;
using parallax::test::batch;
using parallax::test::degrees;
using parallax::test::makeScenario;

namespace {

// Llama 3 8B (32 layers) on 8 GPUs, pp 4 x vpp 2, interleaved.
Scenario interleavedEight(const std::string& layout)
{
    Scenario s = makeScenario("llama3-8b", "h100-sxm", 1, 8, degrees(1, 4, 2), batch(1, 16, 4096));
    s.parallel.vpp = 2;
    s.parallel.schedule = ScheduleKind::Interleaved1F1B;
    s.parallel.pipelineLayout = layout;
    return s;
}

bool hasError(const Report& r, const std::string& field, const std::string& part)
{
    for (const Message& e : r.errors)
        if (e.field == field && e.text.find(part) != std::string::npos)
            return true;
    return false;
}

} // namespace

// The Megatron-LM docs' DeepSeek-V3 example on PP16 x VPP2.
TEST(PipelineLayout, ParsesMegatronsExample)
{
    std::string error;
    const auto l = parsePipelineLayout("Et*3|(tt|)*29,m|L", error);
    ASSERT_TRUE(l) << error;
    ASSERT_EQ(l->stages(), 32);
    EXPECT_EQ(l->layers[0], 3);
    EXPECT_EQ(l->embedding[0], 1);
    for (int k = 1; k <= 29; ++k)
        EXPECT_EQ(l->layers[k], 2) << k;
    EXPECT_EQ(l->layers[30], 0);
    EXPECT_EQ(l->mtp[30], 1);
    EXPECT_EQ(l->loss[31], 1);
    EXPECT_EQ(l->layers[31], 0);
    // Empty stages are allowed.
    const auto empty = parsePipelineLayout("E||t|L", error);
    ASSERT_TRUE(empty) << error;
    EXPECT_EQ(empty->stages(), 4);
    EXPECT_EQ(empty->layers[1], 0);
}

TEST(PipelineLayout, BadTextSaysWhereAndWhat)
{
    std::string error;
    EXPECT_FALSE(parsePipelineLayout("Et*|L", error));
    EXPECT_NE(error.find("position 4"), std::string::npos) << error;
    EXPECT_NE(error.find("needs a count"), std::string::npos) << error;
    EXPECT_FALSE(parsePipelineLayout("E(t|L", error));
    EXPECT_NE(error.find("not closed"), std::string::npos) << error;
    EXPECT_FALSE(parsePipelineLayout("Et)|L", error));
    EXPECT_NE(error.find("unmatched ')'"), std::string::npos) << error;
    EXPECT_FALSE(parsePipelineLayout("Ex|L", error));
    EXPECT_NE(error.find("unexpected 'x'"), std::string::npos) << error;
    EXPECT_FALSE(parsePipelineLayout("E|((t*1000)*1000)*1000|L", error));
    EXPECT_NE(error.find("expands past"), std::string::npos) << error;
}

TEST(PipelineLayout, RulesNameTheFix)
{
    std::string error;
    const auto deepseek = parsePipelineLayout("Et*3|(tt|)*29,m|L", error);
    ASSERT_TRUE(deepseek);
    EXPECT_NE(pipelineLayoutProblem(*deepseek, 61, 0, 16, 32).find("MTP layers ('m')"), std::string::npos);
    // The docs' example runs as written: the MTP layer in a stage of its own (pipeline rank 14's second).
    EXPECT_EQ(pipelineLayoutProblem(*deepseek, 61, 1, 16, 32), "");
    const auto moved = parsePipelineLayout("Et*3|(tt|)*29,|mL", error);
    ASSERT_TRUE(moved);
    EXPECT_EQ(pipelineLayoutProblem(*moved, 61, 1, 16, 32), "");
    EXPECT_NE(pipelineLayoutProblem(*moved, 61, 1, 8, 16).find("has 32 stages but pp x vpp = 16"), std::string::npos);
    EXPECT_NE(pipelineLayoutProblem(*moved, 62, 1, 16, 32).find("places 61 transformer layers"), std::string::npos);
    const auto noEmbedding = parsePipelineLayout("t|tL", error);
    ASSERT_TRUE(noEmbedding);
    EXPECT_NE(pipelineLayoutProblem(*noEmbedding, 2, 0, 2, 2).find("'E'"), std::string::npos);
}

// Megatron-Core's rules for standalone MTP stages (PipelineParallelLayerLayout.validate_layer_layout): the
// last virtual round, not pipeline rank 0; depths may split over ranks; and after the last transformer layer.
TEST(PipelineLayout, MtpStagesFollowMegatronsRules)
{
    std::string error;
    const auto rule = [&](const std::string& text, int layers, int mtp, int pp) {
        const auto l = parsePipelineLayout(text, error);
        EXPECT_TRUE(l) << text << ": " << error;
        return l ? pipelineLayoutProblem(*l, layers, mtp, pp, l->stages()) : error;
    };
    // Megatron's own tests: one depth on pp rank 6 of 8, three split over ranks 4-6, two depths on one rank.
    EXPECT_EQ(rule("E|(t|)*13m|L", 13, 1, 8), "");
    EXPECT_EQ(rule("E|(t|)*11m|m|m|L", 11, 3, 8), "");
    EXPECT_EQ(rule("E|(t|)*12mm|m|L", 12, 3, 8), "");
    EXPECT_EQ(rule("E|t*3|(t|)*4tm|L", 8, 1, 4), ""); // with a layer, on the stage before the loss
    // An earlier virtual round, pipeline rank 0, before the last layer: each named with its fix.
    EXPECT_NE(rule("E|t|m|t|t|t|t|L", 5, 1, 4).find("last virtual pipeline round"), std::string::npos);
    EXPECT_NE(rule("Et|t|mt|L", 3, 1, 2).find("pipeline rank 0"), std::string::npos);
    EXPECT_NE(rule("Et|t|t|t|t|m|t|L", 6, 1, 4).find("before the last transformer layer"), std::string::npos);
}

// The engine splits the layers as the layout says: rank r holds virtual stages r and r + pp.
TEST(PipelineLayout, RanksHoldTheLayoutsLayers)
{
    const Scenario s = interleavedEight("Et*3|t*4|t*4|t*4|t*4|t*4|t*4|t*5,L");
    const Report r = evaluate(s);
    ASSERT_TRUE(r.valid) << (r.errors.empty() ? "" : r.errors.front().field + ": " + r.errors.front().text);
    ASSERT_EQ(r.stages.size(), 4u);
    const double layer = layerParameters(s.model, 0).total();
    const double embedding = embeddingParameters(s.model);
    const double head = lmHeadParameters(s.model) + finalNormParameters(s.model);
    EXPECT_NEAR(r.stages[0].denseParameters, 7 * layer + embedding, 1.0); // stages 0 and 4: 3 + 4
    EXPECT_NEAR(r.stages[1].denseParameters, 8 * layer, 1.0);
    EXPECT_NEAR(r.stages[3].denseParameters, 9 * layer + head, 1.0); // stages 3 and 7: 4 + 5
    // Against the even split (4 layers a stage), the last rank is the heavier.
    const Report even = evaluate(interleavedEight(""));
    ASSERT_TRUE(even.valid);
    EXPECT_NEAR(even.stages[3].denseParameters, 8 * layer + head, 1.0);
    EXPECT_GT(r.stages[3].weightsBytes, even.stages[3].weightsBytes);
}

TEST(PipelineLayout, ScenarioErrorsNameTheField)
{
    const std::string field = "parallel.pipeline_layout";
    const Report fine = evaluate(interleavedEight("Et*4|(t*4|)*6,t*4L"));
    EXPECT_TRUE(fine.valid) << (fine.errors.empty() ? "" : fine.errors.front().text);
    Scenario wrongCount = interleavedEight("Et*4|(t*4|)*6t*3,L");
    EXPECT_TRUE(hasError(evaluate(wrongCount), field, "places 31 transformer layers"));
    Scenario both = interleavedEight("Et*4|(t*4|)*6t*4,L");
    both.parallel.firstStageLayers = 4;
    EXPECT_TRUE(hasError(evaluate(both), field, "keep one"));
    Scenario v = interleavedEight("Et*4|(t*4|)*6t*4,L");
    v.parallel.schedule = ScheduleKind::ZbV;
    EXPECT_TRUE(hasError(evaluate(v), field, "1F1B and interleaved"));
    Scenario bad = interleavedEight("Et*4|(t*4|*6t*4,L");
    EXPECT_TRUE(hasError(evaluate(bad), field, "not closed"));
}

TEST(PipelineLayout, ScenarioAndMegatronCarryIt)
{
    const Scenario s = interleavedEight("Et*3|t*4|t*4|t*4|t*4|t*4|t*4|t*5,L");
    LoadError error;
    const auto back = parseScenario(scenarioToJson(s).dump(), error);
    ASSERT_TRUE(back) << error.text();
    EXPECT_EQ(back->parallel.pipelineLayout, s.parallel.pipelineLayout);
    const std::string megatron = MegatronArgsWriter::write(s);
    EXPECT_NE(
        megatron.find("--pipeline-model-parallel-layout \"Et*3|t*4|t*4|t*4|t*4|t*4|t*4|t*5,L\""), std::string::npos)
        << megatron;
    EXPECT_EQ(megatron.find("--num-virtual-stages-per-pipeline-rank"), std::string::npos) << megatron;
    EXPECT_NE(NemoRecipeWriter::write(s).find("pipeline_model_parallel_layout = \"Et*3|"), std::string::npos);
    // Read back from a Megatron-LM command line: vpp comes from the layout's 8 stages over pp 4.
    const auto imported = LaunchArgsImporter::import(
        "torchrun --nnodes 1 --nproc-per-node 8 pretrain_gpt.py --num-layers 32 --hidden-size 1024 "
        "--num-attention-heads 8 --ffn-hidden-size 4096 --seq-length 2048 --max-position-embeddings 2048 "
        "--micro-batch-size 1 --global-batch-size 16 --vocab-size 32000 --pipeline-model-parallel-size 4 "
        "--pipeline-model-parallel-layout \"Et*3|t*4|t*4|t*4|t*4|t*4|t*4|t*5,L\"",
        {});
    ASSERT_TRUE(imported.scenario) << imported.error;
    EXPECT_EQ(imported.scenario->parallel.pipelineLayout, "Et*3|t*4|t*4|t*4|t*4|t*4|t*4|t*5,L");
    EXPECT_EQ(imported.scenario->parallel.vpp, 2);
    EXPECT_EQ(imported.scenario->parallel.schedule, ScheduleKind::Interleaved1F1B);
    const Report r = evaluate(*imported.scenario);
    EXPECT_TRUE(r.valid) << (r.errors.empty() ? "" : r.errors.front().text);
}
