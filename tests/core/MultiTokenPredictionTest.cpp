// SPDX-License-Identifier: Apache-2.0
// Multi-token prediction (arXiv:2412.19437 sec. 2.2): each depth is a 2h -> h projection with its norms, one
// block like the last layer and another pass of the shared output head, on the last pipeline stage
// (Megatron-Core's default placement). Parameters, FLOPs (Megatron-LM's num_floating_point_operations
// counts the same terms), the last stage's time and memory, and the scenario and launch formats.
#include "TestScenarios.h"

#include "core/Engine.h"
#include "core/io/HfConfigReader.h"
#include "core/io/ScenarioIo.h"
#include "core/launch/LaunchArgsImporter.h"
#include "core/launch/MegatronArgsWriter.h"
#include "core/launch/NemoRecipeWriter.h"
#include "core/model/ModelMath.h"
#include "core/parallel/ParameterShard.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace parallax::core;
using parallax::test::batch;
using parallax::test::degrees;
using parallax::test::makeScenario;

namespace {

ModelSpec withoutMtp(ModelSpec m)
{
    m.mtpLayers = 0;
    return m;
}

// Forward op seconds of one pipeline rank, summed over the micro-batches of the simulated timeline.
double forwardSeconds(const Report& r, int rank)
{
    double total = 0;
    for (const TimedOp& op : r.schedule.ops)
        if (op.rank == rank && op.kind == OpKind::Forward)
            total += op.end - op.start;
    return total;
}

} // namespace

TEST(MultiTokenPrediction, DeepSeekV3ModuleMatchesTheReleasedCheckpoint)
{
    const ModelSpec m = *PresetLibrary::instance().model("deepseek-v3");
    ASSERT_EQ(m.mtpLayers, 1);
    const double mtp = mtpParameters(m);
    // One MoE block (MLA attention, 256 + 1 experts of 3 x 7168 x 2048, the router) and the 2h x h projection.
    EXPECT_GT(mtp, 11.3e9);
    EXPECT_LT(mtp, 11.9e9);
    EXPECT_DOUBLE_EQ(totalParameters(m) - totalParameters(withoutMtp(m)), mtp);
    // The Hugging Face checkpoint stores the module with its own copies of the embedding and the head:
    // 685B - 671B = 14B (both rounded).
    const double stored = mtp + 2.0 * static_cast<double>(m.vocab) * static_cast<double>(m.hidden);
    EXPECT_GT(stored, 13.0e9);
    EXPECT_LT(stored, 14.5e9);
    // A token activates the block's shared and top-8 experts only.
    const double activeMtp = activeParameters(m) - activeParameters(withoutMtp(m));
    EXPECT_GT(activeMtp, 0.4e9);
    EXPECT_LT(activeMtp, 0.7e9);
}

TEST(MultiTokenPrediction, FlopsAddABlockAProjectionAndAHeadPass)
{
    const ModelSpec m = *PresetLibrary::instance().model("deepseek-v3");
    const int seq = 4096;
    const double h = static_cast<double>(m.hidden), v = static_cast<double>(m.vocab);
    const double added = forwardFlopsPerToken(m, seq) - forwardFlopsPerToken(withoutMtp(m), seq);
    // Megatron-LM num_floating_point_operations: the MTP layer, "MTP eh proj" 2h^2 and the logits x (mtp + 1).
    const double expected = layerForwardFlopsPerToken(m, m.layers - 1, seq) + 2.0 * 2.0 * h * h + 2.0 * h * v;
    EXPECT_NEAR(added / expected, 1.0, 1e-9);
    EXPECT_GT(added / forwardFlopsPerToken(withoutMtp(m), seq), 0.02); // about 4% of DeepSeek-V3's compute
}

TEST(MultiTokenPrediction, LastStageRunsTheModuleAndHoldsItsWeights)
{
    // Llama 3 8B in two pipeline stages of 16 layers, one MTP depth on the second.
    Scenario s = makeScenario("llama3-8b", "h100-sxm", 1, 2, degrees(1, 2, 1), batch(1, 8, 4096));
    const Report plain = evaluate(s);
    s.model.mtpLayers = 1;
    s.modelPreset.clear();
    const Report mtp = evaluate(s);
    ASSERT_TRUE(plain.errors.empty() && mtp.errors.empty());
    const int m = plain.microbatches;
    ASSERT_EQ(m, 8);
    // The first stage is unchanged; the last one runs, per micro-batch, one more layer and one more head
    // pass (the head: its forward time beyond the first stage's), plus the projection (2h^2 of the layer's
    // ~13h^2 of weights).
    EXPECT_NEAR(forwardSeconds(mtp, 0), forwardSeconds(plain, 0), 1e-9);
    const double layer = forwardSeconds(plain, 0) / m / 16;
    const double head = forwardSeconds(plain, 1) / m - 16 * layer;
    const double added = (forwardSeconds(mtp, 1) - forwardSeconds(plain, 1)) / m;
    EXPECT_GT(added, layer + head);
    EXPECT_LT(added, layer + head + 0.3 * layer);
    EXPECT_GT(mtp.stepTimeSeconds, plain.stepTimeSeconds);
    // Its weights: the block, the projection and a copy of the embedding (Megatron-Core ties the MTP
    // embedding to the first stage's) on the last stage only.
    ASSERT_EQ(mtp.stages.size(), 2u);
    EXPECT_DOUBLE_EQ(mtp.stages[0].denseParameters, plain.stages[0].denseParameters);
    const double addedParams = mtp.stages[1].denseParameters - plain.stages[1].denseParameters;
    const double h = static_cast<double>(s.model.hidden);
    EXPECT_NEAR(addedParams,
        layerParameters(s.model, 31).total() + 2.0 * h * h + 3.0 * h + static_cast<double>(s.model.vocab) * h, 1.0);
    EXPECT_GT(mtp.stages[1].activationsBytes, plain.stages[1].activationsBytes);
}

TEST(MultiTokenPrediction, DualPipeSharesTheEmbeddingWithTheFirstStage)
{
    // DualPipe runs stages i and p-1-i on rank i: the rank with the MTP module holds the embedding it shares
    // (arXiv:2412.19437 sec. 3.2.3), so no copy is added.
    Scenario s = makeScenario("llama3-8b", "h100-sxm", 1, 2, degrees(1, 2, 1), batch(1, 8, 4096));
    s.parallel.schedule = ScheduleKind::DualPipe;
    const Report plain = evaluate(s);
    s.model.mtpLayers = 1;
    s.modelPreset.clear();
    const Report mtp = evaluate(s);
    ASSERT_TRUE(plain.errors.empty() && mtp.errors.empty()) << (mtp.errors.empty() ? "" : mtp.errors.front().text);
    const double h = static_cast<double>(s.model.hidden);
    for (int rank = 0; rank < 2; ++rank)
        EXPECT_NEAR(mtp.stages[rank].denseParameters - plain.stages[rank].denseParameters,
            layerParameters(s.model, 31).total() + 2.0 * h * h + 3.0 * h, 1.0)
            << rank;
}

// A custom layout may give the MTP layers a stage of their own (Megatron-Core's "standalone" MTP): the
// block and projection run there, with a copy of the embedding; the head passes and losses stay in the loss
// stage. Llama 3 8B with one depth, pp 4 x vpp 2: the depth on stage 6 (rank 2's second chunk) against the
// same split with it in stage 7 beside the loss (rank 3's second chunk).
TEST(MultiTokenPrediction, StandaloneStageRunsTheBlockAndTheLossStageTheHead)
{
    const auto run = [](const std::string& layout) {
        Scenario s = makeScenario("llama3-8b", "h100-sxm", 1, 8, degrees(1, 4, 2), batch(1, 16, 4096));
        s.model.mtpLayers = 1;
        s.modelPreset.clear();
        s.parallel.vpp = 2;
        s.parallel.schedule = ScheduleKind::Interleaved1F1B;
        s.parallel.pipelineLayout = layout;
        return std::pair(s, evaluate(s));
    };
    const auto [s, beside] = run("Et*4|t*5|t*5|t*5|t*5|t*4|t*4|mL");
    const Report alone = run("Et*4|t*5|t*5|t*5|t*5|t*4|t*4m|L").second;
    ASSERT_TRUE(beside.errors.empty()) << beside.errors.front().field << ": " << beside.errors.front().text;
    ASSERT_TRUE(alone.errors.empty()) << alone.errors.front().field << ": " << alone.errors.front().text;
    // Weights: the block, the projection with its norms and the embedding copy move from rank 3 to rank 2.
    const double h = static_cast<double>(s.model.hidden);
    const double module
        = layerParameters(s.model, 31).total() + 2.0 * h * h + 3.0 * h + static_cast<double>(s.model.vocab) * h;
    EXPECT_NEAR(alone.stages[2].denseParameters - beside.stages[2].denseParameters, module, 1.0);
    EXPECT_NEAR(beside.stages[3].denseParameters - alone.stages[3].denseParameters, module, 1.0);
    EXPECT_DOUBLE_EQ(alone.stages[0].denseParameters, beside.stages[0].denseParameters);
    // Time: rank 2's forwards gain what rank 3's lose, the block and projection (more than one layer);
    // rank 3 keeps the head's second pass.
    const int m = alone.microbatches;
    const double moved = (forwardSeconds(alone, 2) - forwardSeconds(beside, 2)) / m;
    EXPECT_NEAR(moved, (forwardSeconds(beside, 3) - forwardSeconds(alone, 3)) / m, 1e-9 * moved);
    const double layer = forwardSeconds(beside, 1) / m / 9; // rank 1: stages 1 and 5, 5 + 4 layers
    EXPECT_GT(moved, layer);
    EXPECT_LT(moved, 1.3 * layer);
    // Rank 3 (5 layers, then the loss stage) runs the head twice: once more than without MTP.
    Scenario plain = s;
    plain.model.mtpLayers = 0;
    plain.parallel.pipelineLayout = "Et*4|t*5|t*5|t*5|t*5|t*4|t*4|L";
    const Report noMtp = evaluate(plain);
    ASSERT_TRUE(noMtp.errors.empty());
    const double head = forwardSeconds(noMtp, 3) / m - 5 * layer;
    EXPECT_GT(head, 0.5 * layer);
    EXPECT_NEAR((forwardSeconds(alone, 3) - forwardSeconds(noMtp, 3)) / m, head, 0.02 * head);
    // The block's activations move with it. Under 1F1B (pp 4) a rank holds its own stage's activations of
    // pp - rank micro-batches at its peak: rank 2 gains two blocks' worth, the loss-only rank 3 drops to none.
    Scenario flat = s;
    flat.parallel.vpp = 1;
    flat.parallel.schedule = ScheduleKind::OneFOneB;
    flat.parallel.pipelineLayout = "Et*11|t*11|t*10|mL";
    const Report flatBeside = evaluate(flat);
    flat.parallel.pipelineLayout = "Et*11|t*11|t*10m|L";
    const Report flatAlone = evaluate(flat);
    ASSERT_TRUE(flatBeside.errors.empty() && flatAlone.errors.empty());
    const double block = flatBeside.stages[3].activationsBytes - flatAlone.stages[3].activationsBytes;
    EXPECT_GT(block, 0);
    EXPECT_NEAR(flatAlone.stages[2].activationsBytes - flatBeside.stages[2].activationsBytes, 2 * block, 1e-6 * block);
}

// The Megatron-LM docs' DeepSeek-V3 example runs as written.
TEST(MultiTokenPrediction, MegatronDocsDeepSeekLayoutRuns)
{
    Scenario s = parallax::test::presetScenario("deepseek-v3-2048xh800");
    s.parallel.schedule = ScheduleKind::Interleaved1F1B;
    s.parallel.vpp = 2;
    s.parallel.lastStageLayers = 0;
    s.parallel.firstStageLayers = 0;
    s.training.globalBatch = 16384; // 128 micro-batches per pipeline: a multiple of pp
    s.parallel.pipelineLayout = "Et*3|(tt|)*29,m|L";
    const Report r = evaluate(s);
    ASSERT_TRUE(r.errors.empty()) << r.errors.front().field << ": " << r.errors.front().text;
    // Rank 14 holds two layers and the MTP module (an MoE block), rank 15 two layers and the loss stage: one
    // MoE block's expert shard more on rank 14.
    ASSERT_EQ(r.stages.size(), 16u);
    EXPECT_NEAR(r.stages[14].expertParameters - r.stages[15].expertParameters, r.stages[15].expertParameters / 2,
        1e-9 * r.stages[15].expertParameters);
}

TEST(MultiTokenPrediction, ScenarioAndLaunchFormatsCarryIt)
{
    const ModelSpec m = *PresetLibrary::instance().model("deepseek-v3");
    const nlohmann::json j = modelSpecToJson(m);
    ASSERT_EQ(j.at("mtp_layers"), 1);
    EXPECT_FALSE(modelSpecToJson(withoutMtp(m)).contains("mtp_layers"));
    // Out of range: the message names the field.
    Scenario s = parallax::test::presetScenario("deepseek-v3-2048xh800");
    nlohmann::json scenario = scenarioToJson(s);
    scenario["model"] = j;
    scenario["model"]["mtp_layers"] = 99;
    LoadError error;
    EXPECT_FALSE(parseScenario(scenario.dump(), error));
    EXPECT_NE(error.text().find("mtp_layers"), std::string::npos) << error.text();
    // Megatron-LM and NeMo spell it --mtp-num-layers / mtp_num_layers.
    EXPECT_NE(MegatronArgsWriter::write(s).find("--mtp-num-layers 1"), std::string::npos);
    EXPECT_NE(NemoRecipeWriter::write(s).find("mtp_num_layers = 1"), std::string::npos);
    // And read back from a plain Megatron-LM command line.
    const auto imported = LaunchArgsImporter::import(parallax::test::smallMegatronCommand("--mtp-num-layers 2"), {});
    ASSERT_TRUE(imported.scenario) << imported.error;
    EXPECT_EQ(imported.scenario->model.mtpLayers, 2);
}

TEST(MultiTokenPrediction, HuggingFaceConfigNamesItsDepths)
{
    std::ifstream in(std::string(PARALLAX_SOURCE_DIR) + "/tests/data/hf/deepseek-v3.config.json");
    const nlohmann::json config = nlohmann::json::parse(in);
    std::string error;
    const auto model = HfConfigReader::read(config, "deepseek-v3", error);
    ASSERT_TRUE(model) << error;
    EXPECT_EQ(model->mtpLayers, 1); // num_nextn_predict_layers
}
