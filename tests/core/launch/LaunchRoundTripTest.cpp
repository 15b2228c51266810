// SPDX-License-Identifier: Apache-2.0
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/launch/LaunchArgsImporter.h"
#include "core/launch/MegatronArgsWriter.h"
#include "core/launch/NemoRecipeWriter.h"
#include "core/launch/ServingLaunchWriter.h"
#include "core/launch/SlurmBenchmarkWriter.h"
#include "core/launch/TorchtitanTomlWriter.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>

using namespace parallax::core;
using nlohmann::json;

namespace {
Scenario presetScenario(const std::string& id)
{
    const auto* info = PresetLibrary::instance().scenario(id);
    EXPECT_TRUE(info) << id;
    LoadError error;
    auto s = parseScenario(info ? info->json : "{}", error);
    EXPECT_TRUE(s) << id << ": " << error.text();
    return s ? *s : Scenario {};
}

// What a launch configuration carries: everything but the lesson text, with the sequence length
// as the run uses it.
json comparable(const Scenario& s)
{
    json j = scenarioToJson(s);
    json out;
    for (const char* k : { "format", "version", "name", "model", "cluster", "parallel", "training" })
        out[k] = j[k];
    out["training"]["seq_len"] = s.seqLen();
    return out;
}

// Training presets in the regular cluster form: a launch configuration is for training (serving engines are
// not its targets), and Megatron-LM, NeMo and torchtitan have no way to state an explicit topology (the
// export says so in a NOTE line instead).
bool launchable(const Scenario& s)
{
    return s.mode == ScenarioMode::Training && s.regularCluster;
}

void expectRoundTrip(const std::string& text, const Scenario& original)
{
    const auto result = LaunchArgsImporter::import(text, {});
    ASSERT_TRUE(result.scenario) << result.error << "\n" << text;
    EXPECT_EQ(comparable(*result.scenario).dump(2), comparable(original).dump(2));
}
} // namespace

TEST(LaunchRoundTrip, MegatronExportImportsBackToEveryPreset)
{
    int checked = 0;
    for (const auto& info : PresetLibrary::instance().scenarios()) {
        SCOPED_TRACE(info.id);
        const Scenario s = presetScenario(info.id);
        if (!launchable(s))
            continue;
        expectRoundTrip(MegatronArgsWriter::write(s), s);
        ++checked;
    }
    EXPECT_GE(checked, 14);
}

TEST(LaunchRoundTrip, NemoExportImportsBackToEveryPreset)
{
    for (const auto& info : PresetLibrary::instance().scenarios()) {
        SCOPED_TRACE(info.id);
        const Scenario s = presetScenario(info.id);
        if (launchable(s))
            expectRoundTrip(NemoRecipeWriter::write(s), s);
    }
}

TEST(LaunchRoundTrip, NonDefaultSwitchesSurvive)
{
    Scenario s = presetScenario("guide-moe1t-64xh100");
    s.parallel.tp = 2;
    s.parallel.dp = 32;
    s.parallel.etp = 2;
    s.parallel.zero = 3;
    s.parallel.tpCommOverlap = true;
    s.parallel.dpOverlap = false;
    s.parallel.gradReduceInFp32 = false;
    s.parallel.order = "tp-cp-ep-pp-dp";
    s.training.recompute = Recompute::Full;
    s.training.flashAttention = false;
    s.training.dtype = DType::Fp8;
    expectRoundTrip(MegatronArgsWriter::write(s), s);
    expectRoundTrip(NemoRecipeWriter::write(s), s);
}

// --ddp-bucket-size (NeMo ddp.bucket_size) travels with --overlap-grad-reduce, the only case where it acts.
TEST(LaunchRoundTrip, DdpBucketSizeSurvives)
{
    Scenario s = presetScenario("llama3-70b-64xh100");
    s.parallel.ddpBucketSize = 20000000;
    const std::string megatron = MegatronArgsWriter::write(s);
    EXPECT_NE(megatron.find("--ddp-bucket-size 20000000"), std::string::npos);
    expectRoundTrip(megatron, s);
    const std::string nemo = NemoRecipeWriter::write(s);
    EXPECT_NE(nemo.find("ddp.bucket_size = 20000000"), std::string::npos);
    expectRoundTrip(nemo, s);
}

TEST(LaunchRoundTrip, RackScaleDomainsLaunchPerHostAndComeBack)
{
    // Two GB200 NVL72 racks: each NVLink domain of 72 GPUs is 18 hosts of 4 (compute trays).
    LoadError error;
    const auto s = parseScenario(R"({"format": "parallax-scenario", "version": 1, "name": "405B on two NVL72",
        "model": "llama3-405b", "cluster": {"gpu": "gb200", "nodes": 2, "gpus_per_node": 72,
        "ib": {"nic_gbps": 400, "nics_per_node": 72}},
        "parallel": {"tp": 4, "sp": true, "cp": 1, "pp": 2, "vpp": 1, "dp": 18, "ep": 1, "zero": 1,
        "schedule": "1f1b", "order": "tp-cp-ep-dp-pp"},
        "training": {"micro_batch": 1, "recompute": "selective", "dtype": "bf16", "global_batch": 144,
        "seq_len": 8192}})",
        error);
    ASSERT_TRUE(s) << error.text();
    const std::string megatron = MegatronArgsWriter::write(*s);
    EXPECT_NE(megatron.find("--nnodes 36\n"), std::string::npos) << megatron;
    EXPECT_NE(megatron.find("--nproc-per-node 4\n"), std::string::npos);
    const std::string nemo = NemoRecipeWriter::write(*s);
    EXPECT_NE(nemo.find("num_nodes=36"), std::string::npos) << nemo;
    expectRoundTrip(megatron, *s);
    expectRoundTrip(nemo, *s);
}

TEST(LaunchExport, MissingFeaturesBecomeNotes)
{
    Scenario ds = presetScenario("deepseek-v3-2048xh800");
    ASSERT_EQ(ds.parallel.schedule, ScheduleKind::DualPipe);
    EXPECT_NE(MegatronArgsWriter::write(ds).find("# NOTE: Megatron-LM has no dualpipe schedule"), std::string::npos);
    EXPECT_NE(NemoRecipeWriter::write(ds).find("# NOTE: NeMo has no dualpipe schedule"), std::string::npos);
    EXPECT_NE(TorchtitanTomlWriter::write(ds).find("pipeline_parallel_schedule = \"DualPipeV\""), std::string::npos);

    Scenario zbv = presetScenario("guide-70b-64xh100");
    zbv.parallel.schedule = ScheduleKind::ZbV;
    EXPECT_NE(NemoRecipeWriter::write(zbv).find("# NOTE: NeMo has no zero-bubble schedule (zb-v)"), std::string::npos);
    EXPECT_NE(MegatronArgsWriter::write(zbv).find("# NOTE: Megatron-LM has no zero-bubble schedule (zb-v)"),
        std::string::npos);
    EXPECT_NE(
        TorchtitanTomlWriter::write(zbv).find("pipeline_parallel_schedule = \"ZBVZeroBubble\""), std::string::npos);
    // A flag-free switch is never dropped silently: with it off, Megatron-LM's flag is absent and
    // the import reads it back as off.
    zbv.parallel.schedule = ScheduleKind::GPipe;
    EXPECT_NE(MegatronArgsWriter::write(zbv).find("# NOTE: Megatron-LM has no GPipe schedule"), std::string::npos);
}

TEST(LaunchExport, TorchtitanDegreesAndBatch)
{
    const Scenario s = presetScenario("llama3-405b-16kxh100");
    const std::string toml = TorchtitanTomlWriter::write(s);
    EXPECT_NE(toml.find("name = \"llama3\"\nflavor = \"405B\""), std::string::npos) << toml;
    EXPECT_NE(toml.find("tensor_parallel_degree = 8\n"), std::string::npos);
    EXPECT_NE(toml.find("pipeline_parallel_degree = 16\n"), std::string::npos);
    EXPECT_NE(toml.find("data_parallel_shard_degree = 128\n"), std::string::npos);
    EXPECT_NE(toml.find("pipeline_parallel_schedule = \"Interleaved1F1B\""), std::string::npos);
    // 2048 sequences over 128 data-parallel ranks; 126 layers do not split into 32 virtual stages.
    EXPECT_NE(toml.find("local_batch_size = 16\n"), std::string::npos);
    EXPECT_NE(toml.find("# NOTE: 126 layers do not split evenly into 32 stages"), std::string::npos) << toml;
}

TEST(LaunchImport, ForeignMegatronCommandLine)
{
    // In the shape of Megatron-LM's examples/gpt3/train_gpt3_175b_distributed.sh, with a cluster.
    const std::string text = R"(#!/bin/bash
torchrun --nproc_per_node 8 --nnodes 16 pretrain_gpt.py \
    --num-layers 96 --hidden-size 12288 --num-attention-heads 96 \
    --seq-length 2048 --max-position-embeddings 2048 --vocab-size 50257 \
    --micro-batch-size 1 --global-batch-size 1536 \
    --tensor-model-parallel-size 8 --pipeline-model-parallel-size 8 \
    --lr 6.0e-5 --train-iters 500000 --bf16 --data-path $DATA_PATH
)";
    const auto r = LaunchArgsImporter::import(text, {});
    ASSERT_TRUE(r.scenario) << r.error;
    const Scenario& s = *r.scenario;
    EXPECT_EQ(s.topology.gpuCount(), 128);
    EXPECT_EQ(s.parallel.tp, 8);
    EXPECT_EQ(s.parallel.pp, 8);
    EXPECT_EQ(s.parallel.dp, 2);
    EXPECT_EQ(s.parallel.zero, 0);
    EXPECT_FALSE(s.parallel.dpOverlap);
    EXPECT_EQ(s.training.globalBatch, 1536);
    // Megatron-LM defaults for what the line leaves out: 4h GELU MLP, learned positions, biases, tied.
    EXPECT_EQ(s.model.ffnHidden, 4 * 12288);
    EXPECT_EQ(s.model.activation, Activation::Gelu);
    EXPECT_TRUE(s.model.learnedPositionEmbeddings);
    EXPECT_TRUE(s.model.biases);
    EXPECT_TRUE(s.model.tiedEmbeddings);
    bool lrNoted = false;
    for (const auto& n : r.notes)
        lrNoted = lrNoted || n.find("--lr") != std::string::npos;
    EXPECT_TRUE(lrNoted);
}

TEST(LaunchImport, NemoOverrides)
{
    const std::string text
        = "nemo llm pretrain --factory llama3_70b trainer.num_nodes=4 trainer.devices=8 "
          "trainer.strategy.tensor_model_parallel_size=4 trainer.strategy.pipeline_model_parallel_size=2 "
          "trainer.strategy.context_parallel_size=2 trainer.strategy.sequence_parallel=True "
          "model.config.num_layers=80 model.config.hidden_size=8192 model.config.num_attention_heads=64 "
          "model.config.num_query_groups=8 model.config.ffn_hidden_size=28672 model.config.vocab_size=128256 "
          "model.config.gated_linear_unit=True data.seq_length=8192 data.micro_batch_size=1 "
          "data.global_batch_size=128";
    const auto r = LaunchArgsImporter::import(text, {});
    ASSERT_TRUE(r.scenario) << r.error;
    EXPECT_EQ(r.scenario->parallel.tp, 4);
    EXPECT_EQ(r.scenario->parallel.cp, 2);
    EXPECT_EQ(r.scenario->parallel.dp, 2);
    EXPECT_TRUE(r.scenario->parallel.sp);
    EXPECT_EQ(r.scenario->model.kvHeads, 8);
    EXPECT_EQ(r.scenario->model.activation, Activation::SwiGlu);
}

TEST(LaunchImport, BadInputNamesTheFlag)
{
    auto r = LaunchArgsImporter::import("echo hello", {});
    EXPECT_FALSE(r.scenario);
    EXPECT_NE(r.error.find("no Megatron-LM flags"), std::string::npos) << r.error;
    r = LaunchArgsImporter::import("--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 4096", {});
    EXPECT_NE(r.error.find("--vocab-size is missing"), std::string::npos) << r.error;
    r = LaunchArgsImporter::import("--num-layers x --hidden-size 4096", {});
    EXPECT_NE(r.error.find("--num-layers: expected a non-negative integer"), std::string::npos) << r.error;
    r = LaunchArgsImporter::import("--nnodes 1 --nproc-per-node 8 --tensor-model-parallel-size 3 --num-layers 32 "
                                   "--hidden-size 4096 --num-attention-heads 32 --seq-length 4096 --vocab-size 32000",
        {});
    EXPECT_NE(r.error.find("does not divide the 8 GPUs"), std::string::npos) << r.error;
}

// A name with a line break (a shared scenario file can carry one) stays inside its comment or string: a
// launch file sourced by a shell or sbatch never runs what follows it.
TEST(LaunchExport, NamesCannotBreakOutOfTheirLine)
{
    const auto injected = [](const std::string& text) {
        std::istringstream in(text);
        std::string line;
        while (std::getline(in, line)) {
            if (line.find("pwned") != std::string::npos && line.rfind('#', 0) != 0 && line.rfind("    #", 0) != 0
                && line.find("description = \"") != 0)
                return line;
        }
        return std::string();
    };
    Scenario s = presetScenario("llama3-70b-64xh100");
    s.name = "evil\ntouch /tmp/pwned\n#\"\\";
    s.model.name = "model\r\ntouch /tmp/pwned";
    s.modelPreset.clear();
    for (const std::string& text : { MegatronArgsWriter::write(s), NemoRecipeWriter::write(s),
             TorchtitanTomlWriter::write(s), SlurmBenchmarkWriter::write(s) })
        EXPECT_EQ(injected(text), "") << text;
    // The TOML description escapes the quote and the backslash.
    EXPECT_NE(
        TorchtitanTomlWriter::write(s).find("description = \"evil touch /tmp/pwned #\\\"\\\\\"\n"), std::string::npos);
    Scenario serving = presetScenario("serve-70b-bf16-2xh100");
    serving.name = s.name;
    serving.model.name = s.model.name;
    for (const ServingFramework f : { ServingFramework::Vllm, ServingFramework::Sglang, ServingFramework::TrtLlm })
        EXPECT_EQ(injected(ServingLaunchWriter::write(serving, f)), "");
}
