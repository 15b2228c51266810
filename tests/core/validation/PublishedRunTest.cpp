// SPDX-License-Identifier: Apache-2.0
// Turning published-run records (data/README.md schema) into scenarios: what is printed is used,
// what is not gets the source framework's default and says so, and what cannot be modelled is
// skipped with the reason.
#include "core/validation/PublishedRun.h"
#include "core/Engine.h"
#include "core/model/ModelMath.h"
#include "core/validation/SourceConventions.h"
#include "core/validation/ValidationSuite.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

using namespace parallax::core;
using nlohmann::json;

namespace {

// A Megatron-LM (arXiv:2104.04473) Table 1 style record: the micro-batch is not printed.
json narayananRecord()
{
    return json::parse(R"json({
      "id": "test_gpt_1.7B", "source": { "arxiv": "2104.04473", "title": "Narayanan et al." },
      "system": "Megatron-LM PTD-P", "run_kind": "benchmark",
      "model": { "name": "GPT 1.7B", "layers": 24, "hidden": 2304, "ffn_hidden": 9216, "heads": 24,
                 "kv_heads": 24, "vocab": 51200, "seq_len": 2048, "arch": "GPT-3-style (GeLU)", "moe": null },
      "hardware": { "gpu": "NVIDIA A100 SXM 80GB", "gpu_memory_gb": 80, "gpus_per_node": 8, "gpu_count": 32 },
      "parallel": { "tp": 1, "sp": false, "pp": 1, "vpp": null, "dp": 32, "cp": 1, "zero_stage": 0,
                    "recompute": "full", "micro_batch": null, "global_batch": 512,
                    "schedule": "interleaved 1F1B", "precision": "mixed (fp16)" },
      "measured": { "iteration_time_s": 3.53, "tflops_per_gpu": 137 },
      "fields_derived": [], "notes": ""
    })json");
}

bool mentions(const std::vector<std::string>& list, const std::string& text)
{
    return std::any_of(
        list.begin(), list.end(), [&](const std::string& s) { return s.find(text) != std::string::npos; });
}

} // namespace

TEST(PublishedRun, PrintedFieldsBecomeTheScenario)
{
    const PublishedRunConversion c = convertPublishedRun(narayananRecord());
    ASSERT_TRUE(c.run) << c.reason;
    const PublishedRun& r = *c.run;
    EXPECT_EQ(r.source, "arXiv:2104.04473");
    EXPECT_EQ(r.gpu, "a100-sxm-80gb");
    EXPECT_EQ(r.scenario.topology.gpuCount(), 32);
    EXPECT_EQ(r.scenario.model.layers, 24);
    EXPECT_EQ(r.scenario.model.hidden, 2304);
    EXPECT_EQ(r.scenario.parallel.dp, 32);
    EXPECT_EQ(r.scenario.training.globalBatch, 512);
    EXPECT_EQ(r.scenario.training.recompute, Recompute::Full);
    EXPECT_EQ(r.metric, PublishedMetric::StepTime);
    EXPECT_DOUBLE_EQ(r.published, 3.53);
    // Megatron-LM of 2021: no fused attention, gradients reduced after the backward, in 16 bits.
    EXPECT_FALSE(r.scenario.training.flashAttention);
    EXPECT_FALSE(r.scenario.parallel.dpOverlap);
    EXPECT_FALSE(r.scenario.parallel.gradReduceInFp32);
    // The micro-batch is not printed: a default, and the run says which.
    EXPECT_EQ(r.scenario.training.microBatch, 1);
    EXPECT_TRUE(mentions(r.assumptions, "training.micro_batch = 1")) << r.assumptions.size();
}

TEST(PublishedRun, UnmodellableRecordsSayWhy)
{
    json noTp = narayananRecord();
    noTp["parallel"]["tp"] = nullptr;
    EXPECT_NE(convertPublishedRun(noTp).reason.find("parallel.tp not stated"), std::string::npos);
    // A required number stated as something else names the field and what it found.
    json textLayers = narayananRecord();
    textLayers["model"]["layers"] = "24";
    EXPECT_EQ(convertPublishedRun(textLayers).reason, "model.layers must be a number, found a string \"24\"");
    json listBatch = narayananRecord();
    listBatch["parallel"]["global_batch"] = json::array({ 512 });
    EXPECT_EQ(convertPublishedRun(listBatch).reason, "parallel.global_batch must be a number, found an array [512]");
    json objectGpus = narayananRecord();
    objectGpus["hardware"]["gpu_count"] = { { "nodes", 4 } };
    EXPECT_NE(convertPublishedRun(objectGpus).reason.find("hardware.gpu_count must be a number, found an object"),
        std::string::npos);
    json numberGpu = narayananRecord();
    numberGpu["hardware"]["gpu"] = 100;
    EXPECT_EQ(convertPublishedRun(numberGpu).reason, "hardware.gpu must be the GPU's name, found a number");

    json upperBound = narayananRecord();
    upperBound["measured"] = { { "tflops_per_gpu_up_to", 147 } };
    EXPECT_NE(convertPublishedRun(upperBound).reason.find("upper bound"), std::string::npos);

    json bubble = narayananRecord();
    bubble["run_kind"] = "pipeline_bubble_reference";
    EXPECT_NE(convertPublishedRun(bubble).reason.find("bubble"), std::string::npos);

    json gpu = narayananRecord();
    gpu["hardware"]["gpu"] = "NVIDIA V100 32GB";
    EXPECT_NE(convertPublishedRun(gpu).reason.find("no GPU preset"), std::string::npos);

    json noVocab = narayananRecord();
    noVocab["model"]["vocab"] = nullptr; // Megatron-LM 2021 has no stated default here
    EXPECT_NE(convertPublishedRun(noVocab).reason.find("model.vocab"), std::string::npos);
}

// Zero Bubble's vocabulary is not printed: Megatron-LM's padded GPT-2 BPE, stated as assumed.
TEST(PublishedRun, FrameworkDefaultsAreStated)
{
    json r = narayananRecord();
    r["source"]["arxiv"] = "2401.10241";
    r["model"]["vocab"] = nullptr;
    r["parallel"]["schedule"] = "Zero Bubble auto-searched, activation memory limit 2p*M_B";
    r["parallel"]["pp"] = 8;
    r["hardware"]["gpu_count"] = 8;
    const PublishedRunConversion c = convertPublishedRun(r);
    ASSERT_TRUE(c.run) << c.reason;
    EXPECT_EQ(c.run->scenario.model.vocab, 50304);
    EXPECT_TRUE(mentions(c.run->assumptions, "model.vocab = 50304"));
    EXPECT_EQ(c.run->scenario.parallel.schedule, ScheduleKind::ZbH2);
    EXPECT_FALSE(c.run->scenario.parallel.p2pOverlap);
}

// Held-out sources run as their methods say (the shapes below are made up, no published figure is used): an
// MT-NLG record that prints neither recompute, SP nor the vocabulary runs Megatron-DeepSpeed of 2021 (full
// recompute, no SP, no FlashAttention, the padded GPT-2 vocabulary); a Nemotron-4 340B record that says
// "interleaved" without the chunks interleaves 8.
TEST(PublishedRun, HeldOutSourcesRunTheirMethods)
{
    json mtnlg = narayananRecord();
    mtnlg["source"] = { { "arxiv", "2201.11990" }, { "title", "Megatron-Turing NLG 530B" } };
    mtnlg["model"]["vocab"] = nullptr;
    mtnlg["parallel"]["recompute"] = "not stated";
    mtnlg["parallel"].erase("sp");
    mtnlg["parallel"].erase("zero_stage");
    mtnlg["parallel"]["tp"] = 8;
    mtnlg["hardware"]["gpu_count"] = 64;
    mtnlg["parallel"]["schedule"] = "1F1B (DeepSpeed pipeline engine)";
    const PublishedRunConversion a = convertPublishedRun(mtnlg);
    ASSERT_TRUE(a.run) << a.reason;
    const Scenario& s = a.run->scenario;
    EXPECT_EQ(a.run->source, "arXiv:2201.11990");
    EXPECT_EQ(s.training.recompute, Recompute::Full);
    EXPECT_FALSE(s.parallel.sp);
    EXPECT_FALSE(s.training.flashAttention);
    EXPECT_TRUE(s.model.dropout);
    EXPECT_EQ(s.model.vocab, 51200);
    EXPECT_EQ(s.parallel.zero, 1);
    EXPECT_EQ(s.parallel.schedule, ScheduleKind::OneFOneB);
    EXPECT_TRUE(mentions(a.run->assumptions, "Megatron-DeepSpeed activation checkpointing"));

    json nemotron = narayananRecord();
    nemotron["source"] = { { "arxiv", "2406.11704" }, { "title", "Nemotron-4 340B Technical Report" } };
    nemotron["model"]["layers"] = 96;
    nemotron["parallel"]["tp"] = 8;
    nemotron["parallel"]["pp"] = 12;
    nemotron["parallel"]["global_batch"] = 48;
    nemotron["parallel"]["micro_batch"] = 1;
    nemotron["parallel"]["schedule"] = "interleaved 1F1B";
    nemotron["hardware"]["gpu_count"] = 192; // dp 2: 24 micro-batches per pipeline
    const PublishedRunConversion b = convertPublishedRun(nemotron);
    ASSERT_TRUE(b.run) << b.reason;
    EXPECT_EQ(b.run->scenario.parallel.vpp, 8);
    EXPECT_EQ(b.run->scenario.parallel.schedule, ScheduleKind::Interleaved1F1B);
    EXPECT_TRUE(b.run->scenario.parallel.tpCommOverlap);
    EXPECT_TRUE(mentions(b.run->assumptions, "parallel.vpp = 8"));
}

// Context parallelism as the source ran it: Llama 3 all-gathers K and V (arXiv:2407.21783 sec. 3.3.2), Megatron-Core
// defaults to the ring, and a record that names its --cp-comm-type is read as printed.
TEST(PublishedRun, ContextParallelismAsTheSourceRanIt)
{
    json llama = narayananRecord();
    llama["source"] = { { "arxiv", "2407.21783" }, { "title", "The Llama 3 Herd of Models" } };
    llama["model"] = { { "name", "Llama 3 8B" }, { "layers", 32 }, { "hidden", 4096 }, { "ffn_hidden", 14336 },
        { "heads", 32 }, { "kv_heads", 8 }, { "vocab", 128256 }, { "seq_len", 32768 }, { "arch", "dense, GQA, SwiGLU" },
        { "moe", nullptr } };
    llama["parallel"]["cp"] = 4;
    llama["parallel"]["global_batch"] = 16;
    llama["hardware"]["gpu_count"] = 32;
    const PublishedRunConversion a = convertPublishedRun(llama);
    ASSERT_TRUE(a.run) << a.reason;
    EXPECT_EQ(a.run->scenario.parallel.cpCommType, CpCommType::AllGather);
    EXPECT_TRUE(mentions(a.run->assumptions, "parallel.cp_comm_type = all_gather"));

    llama["parallel"]["cp_comm_type"] = "a2a";
    const PublishedRunConversion b = convertPublishedRun(llama);
    ASSERT_TRUE(b.run) << b.reason;
    EXPECT_EQ(b.run->scenario.parallel.cpCommType, CpCommType::A2a);
    EXPECT_FALSE(mentions(b.run->assumptions, "parallel.cp_comm_type"));

    json megatron = llama;
    megatron["source"] = narayananRecord()["source"];
    megatron["parallel"].erase("cp_comm_type");
    const PublishedRunConversion c = convertPublishedRun(megatron);
    ASSERT_TRUE(c.run) << c.reason;
    EXPECT_EQ(c.run->scenario.parallel.cpCommType, CpCommType::P2p);
}

// arXiv:2104.04473 eq. 3 is the convention of Narayanan's TFLOP/s; the data file states its value
// for the 1.7B row (V = 51200, s = 2048, B = 512): 1.5466830067924994e16 FLOPs per iteration.
TEST(PublishedRun, NarayananEquation3)
{
    const PublishedRunConversion c = convertPublishedRun(narayananRecord());
    ASSERT_TRUE(c.run);
    EXPECT_NEAR(sourceFlopsPerStep(FlopConvention::NarayananEq3, c.run->scenario, narayananRecord()),
        1.5466830067924994e16, 1e3);
}

// Megatron-Core's num_floating_point_operations reduces to Korthikanti eq. 7 for a GPT block (MHA,
// 4h GeLU MLP): 72 B s L h^2 (1 + s/(6h) + V/(12 h L)) (arXiv:2205.05198).
TEST(PublishedRun, MegatronCoreFlopsReduceToKorthikantiEq7)
{
    const PublishedRunConversion c = convertPublishedRun(narayananRecord());
    ASSERT_TRUE(c.run);
    const Scenario& s = c.run->scenario;
    const double B = 512, seq = 2048, L = 24, h = 2304, V = 51200;
    const double eq7 = 72 * B * seq * L * h * h * (1 + seq / (6 * h) + V / (12 * h * L));
    EXPECT_NEAR(sourceFlopsPerStep(FlopConvention::MegatronCore, s, narayananRecord()) / eq7, 1.0, 1e-12);
    // BigScience counts 8 x params x tokens.
    json bloom = narayananRecord();
    bloom["model"]["params_b"] = 176;
    EXPECT_DOUBLE_EQ(sourceFlopsPerStep(FlopConvention::BigScience, s, bloom), 8.0 * 176e9 * seq * B);
}

// A TFLOP/s-only row is compared in the source's convention; an array with one such row gives
// statistics for it and none for step time.
TEST(PublishedRun, ThroughputRowsUseTheSourceConvention)
{
    json r = narayananRecord();
    r["measured"] = { { "tflops_per_gpu", 137 } };
    const ValidationSummary s = runValidation(json::array({ r }));
    ASSERT_EQ(s.rows.size(), 1u);
    EXPECT_EQ(s.rows[0].run.metric, PublishedMetric::TflopsPerGpu);
    const double expected = 1.5466830067924994e16 / s.rows[0].predictedStepSeconds / 32 / 1e12;
    EXPECT_NEAR(s.rows[0].predicted, expected, 1e-9 * expected);
    EXPECT_EQ(s.throughput.count, 1);
    EXPECT_EQ(s.stepTime.count, 0);
}

// Bounds are checked and named: a run predicted 40% off fails the suite.
TEST(PublishedRun, BoundsNameTheWorstRow)
{
    json r = narayananRecord();
    const ValidationSummary ok = runValidation(json::array({ r }));
    ASSERT_EQ(ok.rows.size(), 1u);
    r["measured"]["iteration_time_s"] = ok.rows[0].predictedStepSeconds / 0.6; // engine 40% fast
    const ValidationSummary bad = runValidation(json::array({ r }));
    EXPECT_FALSE(bad.withinBounds());
    ASSERT_FALSE(bad.failures.empty());
    EXPECT_NE(bad.failures.back().find("test_gpt_1.7B"), std::string::npos);
    EXPECT_NE(validationTable(bad).find("NOT met"), std::string::npos);
    EXPECT_FALSE(validationJson(bad)["within_bounds"].get<bool>());
}

// Hardware the file may name beyond A100/H100: the 40 GB A100 keeps its own HBM; a GB200 NVL72
// rack is one NVLink domain of 72 GPUs, not eight 4-GPU trays.
TEST(PublishedRun, HardwareVariants)
{
    json a100 = narayananRecord();
    a100["hardware"]["gpu"] = "NVIDIA A100 SXM4 40GB";
    a100["hardware"]["gpu_memory_gb"] = 40;
    const PublishedRunConversion small = convertPublishedRun(a100);
    ASSERT_TRUE(small.run) << small.reason;
    EXPECT_DOUBLE_EQ(small.run->scenario.topology.domains[0].gpu.hbmBytes, 40.0 * 1024 * 1024 * 1024);

    json gb200 = narayananRecord();
    gb200["source"] = { { "arxiv", nullptr }, { "title", "NVIDIA DGX Cloud Benchmarking performance recipes" } };
    gb200["hardware"]
        = { { "gpu", "NVIDIA GB200" }, { "gpu_memory_gb", 186 }, { "gpus_per_node", 4 }, { "gpu_count", 144 } };
    gb200["parallel"]["tp"] = 4;
    const PublishedRunConversion rack = convertPublishedRun(gb200);
    ASSERT_TRUE(rack.run) << rack.reason;
    EXPECT_EQ(rack.run->scenario.topology.domains.size(), 2u);
    EXPECT_EQ(rack.run->scenario.topology.domains[0].gpuCount, 72);
    EXPECT_TRUE(mentions(rack.run->assumptions, "NVLink domain = 72"));
}

// An MoE record (data/README.md: moe = { n_routed_experts, n_shared_experts, top_k,
// expert_ffn_hidden }) becomes an MoE scenario the engine evaluates.
TEST(PublishedRun, MixtureOfExpertsRecord)
{
    json r = narayananRecord();
    r["source"] = { { "arxiv", nullptr }, { "title", "NVIDIA DGX Cloud Benchmarking performance recipes" } };
    r["model"] = {
        { "name", "Mixtral 8x7B" }, { "layers", 32 }, { "hidden", 4096 }, { "ffn_hidden", 14336 }, { "heads", 32 },
        { "kv_heads", 8 }, { "vocab", 32000 }, { "seq_len", 4096 }, { "arch", "MoE, SwiGLU, GQA" },
        { "moe",
            { { "n_routed_experts", 8 }, { "n_shared_experts", 0 }, { "top_k", 2 }, { "expert_ffn_hidden", 14336 } } }
    };
    r["hardware"] = { { "gpu", "NVIDIA H100 80GB HBM3 SXM" }, { "gpu_memory_gb", 80 }, { "gpus_per_node", 8 },
        { "gpu_count", 64 } };
    r["parallel"] = { { "tp", 1 }, { "pp", 4 }, { "vpp", 8 }, { "cp", 1 }, { "ep", 8 }, { "micro_batch", 1 },
        { "global_batch", 256 }, { "schedule", "interleaved 1F1B" }, { "precision", "bf16" } };
    const PublishedRunConversion c = convertPublishedRun(r);
    ASSERT_TRUE(c.run) << c.reason;
    const ModelSpec& m = c.run->scenario.model;
    ASSERT_TRUE(m.isMoe());
    EXPECT_EQ(m.moe->experts, 8);
    EXPECT_EQ(m.moe->topK, 2);
    EXPECT_EQ(m.activation, Activation::SwiGlu);
    EXPECT_EQ(c.run->scenario.parallel.ep, 8);
    const ValidationSummary s = runValidation(json::array({ r }));
    ASSERT_EQ(s.rows.size(), 1u) << (s.skipped.empty() ? "" : s.skipped[0].reason);
    EXPECT_GT(s.rows[0].predictedStepSeconds, 0);
}

// Llama 4 Maverick alternates dense and MoE layers; a record of it that does not say so (the training file's
// MoE fields have no such key) takes the preset's layer step, with the assumption stated. Made-up layout.
TEST(PublishedRun, InterleavedMoeRecordTakesThePresetsLayerStep)
{
    json r = narayananRecord();
    r["source"] = { { "arxiv", nullptr }, { "title", "NVIDIA DGX Cloud Benchmarking performance recipes" } };
    r["model"] = {
        { "name", "Llama 4 Maverick 400B" }, { "layers", 48 }, { "hidden", 5120 }, { "ffn_hidden", 16384 },
        { "heads", 40 }, { "kv_heads", 8 }, { "vocab", 202048 }, { "seq_len", 8192 }, { "arch", "MoE, SwiGLU, GQA" },
        { "moe",
            { { "n_routed_experts", 128 }, { "n_shared_experts", 1 }, { "top_k", 1 }, { "expert_ffn_hidden", 8192 } } }
    };
    r["hardware"] = { { "gpu", "NVIDIA H100 80GB HBM3 SXM" }, { "gpu_memory_gb", 80 }, { "gpus_per_node", 8 },
        { "gpu_count", 128 } };
    r["parallel"] = { { "tp", 4 }, { "pp", 4 }, { "ep", 32 }, { "micro_batch", 1 }, { "global_batch", 1024 },
        { "schedule", "1F1B" }, { "precision", "bf16" } };
    const PublishedRunConversion c = convertPublishedRun(r);
    ASSERT_TRUE(c.run) << c.reason;
    EXPECT_EQ(c.run->scenario.model.moe->layerStep, 2);
    EXPECT_EQ(c.run->scenario.model.moeLayerCount(), 24);
    EXPECT_TRUE(mentions(c.run->assumptions, "model.moe.layer_step = 2 (the Llama 4 Maverick preset"));
    EXPECT_NEAR(totalParameters(c.run->scenario.model) / 400e9, 1.0, 0.01);
    // The name spelled without spaces, as recipes do: the same preset.
    json spelled = r;
    spelled["model"]["name"] = "Llama4-Maverick-17B-128E";
    const PublishedRunConversion recipe = convertPublishedRun(spelled);
    ASSERT_TRUE(recipe.run) << recipe.reason;
    EXPECT_EQ(recipe.run->scenario.model.moe->layerStep, 2);
    // Stated, under Hugging Face's name: the record's.
    json stated = r;
    stated["model"]["moe"]["interleave_moe_layer_step"] = 1;
    const PublishedRunConversion every = convertPublishedRun(stated);
    ASSERT_TRUE(every.run) << every.reason;
    EXPECT_EQ(every.run->scenario.model.moe->layerStep, 1);
    // Another model of the same shape: no preset, every layer MoE.
    json other = r;
    other["model"]["name"] = "Some MoE";
    const PublishedRunConversion unnamed = convertPublishedRun(other);
    ASSERT_TRUE(unnamed.run) << unnamed.reason;
    EXPECT_EQ(unnamed.run->scenario.model.moe->layerStep, 1);
}

// Bad records never stop the suite: impossible sizes are listed with the field, a field of the
// wrong type is ignored like a missing one, and the rest is still compared.
TEST(PublishedRun, MalformedRecordsAreListed)
{
    json zeroBatch = narayananRecord();
    zeroBatch["id"] = "zero_micro_batch";
    zeroBatch["parallel"]["micro_batch"] = 0;
    json wrongType = narayananRecord();
    wrongType["id"] = "numeric_name";
    wrongType["model"]["name"] = 5;
    wrongType["parallel"]["recompute"] = 7;
    json huge = narayananRecord();
    huge["id"] = "huge";
    huge["hardware"]["gpu_count"] = 1e9;
    const ValidationSummary s = runValidation(json::array({ zeroBatch, wrongType, huge, narayananRecord(), 42 }));
    EXPECT_EQ(s.rows.size(), 2u);
    ASSERT_EQ(s.skipped.size(), 3u);
    EXPECT_NE(s.skipped[0].reason.find("parallel.micro_batch"), std::string::npos) << s.skipped[0].reason;
    EXPECT_NE(s.skipped[1].reason.find("hardware.gpu_count"), std::string::npos) << s.skipped[1].reason;
    EXPECT_NE(s.skipped[1].reason.find("outside the supported range"), std::string::npos) << s.skipped[1].reason;
    EXPECT_NE(s.skipped[2].reason.find("record lacks"), std::string::npos) << s.skipped[2].reason;
}

namespace {
// A DeepSeek-V3 record in the data/README.md schema (layout of arXiv:2412.19437 sec. 3.2; the
// iteration time is a placeholder: this test reads the conversion, not the error).
json deepseekRecord(const json& source)
{
    json r = narayananRecord();
    r["source"] = source;
    r["model"] = { { "name", "DeepSeek-V3 671B" }, { "layers", 61 }, { "hidden", 7168 }, { "ffn_hidden", 18432 },
        { "heads", 128 }, { "kv_heads", 128 }, { "seq_len", 4096 }, { "arch", "MoE, MLA, SwiGLU" },
        { "moe",
            { { "n_routed_experts", 256 }, { "n_shared_experts", 1 }, { "top_k", 8 }, { "expert_ffn_hidden", 2048 },
                { "first_k_dense_replace", 3 } } },
        { "mla",
            { { "q_lora_rank", 1536 }, { "kv_lora_rank", 512 }, { "qk_nope_head_dim", 128 }, { "qk_rope_head_dim", 64 },
                { "v_head_dim", 128 } } } };
    r["hardware"]
        = { { "gpu", "NVIDIA H800" }, { "gpu_memory_gb", 80 }, { "gpus_per_node", 8 }, { "gpu_count", 2048 } };
    r["parallel"] = { { "tp", 1 }, { "pp", 16 }, { "ep", 64 }, { "zero_stage", 1 }, { "micro_batch", 1 },
        { "global_batch", 15360 }, { "schedule", "DualPipe" }, { "precision", "fp8" }, { "recompute", nullptr } };
    return r;
}
} // namespace

// DeepSeek-V3's own framework (arXiv:2412.19437 sec. 3.2.3, 3.3): the paper's recompute, optimizer
// precision and activation cache, and the vocabulary the record does not print taken from the model preset.
// With Megatron-Core's defaults instead the published layout is called out of memory.
TEST(PublishedRun, DeepSeekRecordRunsDeepSeeksMemoryMethods)
{
    const PublishedRunConversion c = convertPublishedRun(
        deepseekRecord({ { "arxiv", "2412.19437" }, { "title", "DeepSeek-V3 Technical Report" } }));
    ASSERT_TRUE(c.run) << c.reason;
    const TrainingConfig& t = c.run->scenario.training;
    EXPECT_EQ(t.recompute, Recompute::Selective);
    EXPECT_EQ(
        t.recomputeModules, recompute_module::kLayernorm | recompute_module::kMlaUpProj | recompute_module::kMoeAct);
    EXPECT_TRUE(t.optimizer.precisionAware);
    EXPECT_EQ(t.optimizer.expAvg, StateDType::Bf16);
    EXPECT_TRUE(t.deepseekActivationCache);
    EXPECT_EQ(c.run->scenario.model.vocab, 129280);
    EXPECT_TRUE(mentions(c.run->assumptions, "the DeepSeek-V3 preset")) << c.run->assumptions.size();
    // The paper's pre-training ran one MTP depth (sec. 4.2); a record may say otherwise.
    EXPECT_EQ(c.run->scenario.model.mtpLayers, 1);
    EXPECT_TRUE(mentions(c.run->assumptions, "model.mtp_layers = 1"));
    // Its DualPipe pipeline balanced for the head and MTP, as the preset (core/parallel/PipelineSplit.h).
    const ParallelConfig& par = c.run->scenario.parallel;
    ASSERT_EQ(par.schedule, ScheduleKind::DualPipe);
    EXPECT_GT(par.firstStageLayers + par.lastStageLayers, 0);
    EXPECT_TRUE(mentions(c.run->assumptions, "a pipeline balanced for the head and MTP"));
    json stated = deepseekRecord({ { "arxiv", "2412.19437" }, { "title", "DeepSeek-V3 Technical Report" } });
    stated["model"]["mtp_num_layers"] = 0;
    const PublishedRunConversion without = convertPublishedRun(stated);
    ASSERT_TRUE(without.run) << without.reason;
    EXPECT_EQ(without.run->scenario.model.mtpLayers, 0);
    stated["model"]["mtp_num_layers"] = 99;
    EXPECT_NE(convertPublishedRun(stated).reason.find("model.mtp_num_layers out of range"), std::string::npos);
    const Report r = evaluate(c.run->scenario);
    EXPECT_NE(r.memoryVerdict, MemoryVerdict::DoesNotFit) << r.peakMemoryBytes / (1u << 30) << " GiB";

    // A NeMo recipe of the same model: Megatron-Core's defaults, and still the preset's vocabulary.
    const PublishedRunConversion nemo = convertPublishedRun(
        deepseekRecord({ { "arxiv", nullptr }, { "title", "NVIDIA DGX Cloud Benchmarking performance recipes" } }));
    ASSERT_TRUE(nemo.run) << nemo.reason;
    EXPECT_FALSE(nemo.run->scenario.training.deepseekActivationCache);
    EXPECT_EQ(nemo.run->scenario.model.vocab, 129280);
    // Megatron-Core's default is no MTP; the record's reader says the preset would have one.
    EXPECT_EQ(nemo.run->scenario.model.mtpLayers, 0);
    EXPECT_TRUE(mentions(nemo.run->assumptions, "model.mtp_layers = 0 (not stated"));
    // A model no preset matches still says what is missing.
    json unknown = deepseekRecord({ { "arxiv", nullptr }, { "title", "NVIDIA DGX Cloud" } });
    unknown["model"]["name"] = "Some MoE";
    EXPECT_NE(convertPublishedRun(unknown).reason.find("model.vocab not stated"), std::string::npos);
}
