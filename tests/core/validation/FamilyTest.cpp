// SPDX-License-Identifier: Apache-2.0
// Issue 12: validate groups its errors by family (GPU x dense/MoE) and lists families whose records are
// all skipped; a Grok-1 record that names no activation gets the published gated FFN.
#include "core/Engine.h"
#include "core/cluster/RankMap.h"
#include "core/validation/PublishedRun.h"
#include "core/validation/ValidationSuite.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace parallax::core;
using nlohmann::json;

namespace {

json grokRecord(const std::string& arch)
{
    json r = json::parse(R"json({
      "id": "test_grok", "source": { "arxiv": null, "title": "NVIDIA DGX Cloud Benchmarking performance recipes" },
      "system": "NeMo", "run_kind": "benchmark",
      "model": { "name": "Grok-1 314B (proxy, 2 layers)", "layers": 2, "hidden": 6144, "ffn_hidden": 32768,
                 "heads": 48, "kv_heads": 8, "vocab": 128256, "seq_len": 4096, "arch": "",
                 "moe": { "n_routed_experts": 8, "top_k": 2, "n_shared_experts": 0, "expert_ffn_hidden": 32768 } },
      "hardware": { "gpu": "NVIDIA H100 80GB HBM3 SXM", "gpu_memory_gb": 80, "gpus_per_node": 8, "gpu_count": 8 },
      "parallel": { "tp": 4, "sp": true, "pp": 1, "vpp": null, "dp": 2, "cp": 1, "ep": 2,
                    "recompute": "not stated", "micro_batch": 1, "global_batch": 64,
                    "schedule": "none", "precision": "bf16" },
      "measured": { "iteration_time_s": 1.5 },
      "fields_derived": [], "notes": ""
    })json");
    r["model"]["arch"] = arch;
    return r;
}

} // namespace

TEST(ValidationFamily, GrokRecordGetsTheGatedFfn)
{
    const PublishedRunConversion gated = convertPublishedRun(grokRecord("MoE decoder"));
    ASSERT_TRUE(gated.run) << gated.reason;
    EXPECT_EQ(gated.run->scenario.model.activation, Activation::SwiGlu);
    // An architecture that names its activation keeps it.
    const PublishedRunConversion named = convertPublishedRun(grokRecord("MoE decoder, GELU"));
    ASSERT_TRUE(named.run) << named.reason;
    EXPECT_EQ(named.run->scenario.model.activation, Activation::Gelu);
}

TEST(ValidationFamily, ErrorsGroupedByGpuAndDenseOrMoe)
{
    const PublishedRunConversion c = convertPublishedRun(grokRecord("MoE decoder"));
    ASSERT_TRUE(c.run) << c.reason;
    EXPECT_EQ(validationFamily(*c.run), "h100-sxm x MoE");
    const ValidationSummary s = runValidation(json::array({ grokRecord("MoE decoder") }));
    ASSERT_EQ(s.rows.size(), 1u);
    ASSERT_TRUE(s.perFamily.count("h100-sxm x MoE"));
    EXPECT_EQ(s.perFamily.at("h100-sxm x MoE").count, 1);
    EXPECT_NE(validationTable(s).find("per family"), std::string::npos);
    EXPECT_TRUE(validationJson(s)["per_family"].contains("h100-sxm x MoE"));
}

// Megatron-Core shards experts over the dense TP degree unless told otherwise (expert_tensor_parallel_size
// defaults to tensor_model_parallel_size), so with tp=4 the EP group of 8 strides by 4 ranks and spans four
// 8-GPU nodes: the dispatch and combine all-to-alls run over InfiniBand, not NVLink.
TEST(ValidationFamily, MegatronMoeRecordShardsExpertsOverTp)
{
    json r = grokRecord("MoE decoder");
    r["hardware"]["gpu_count"] = 32;
    r["parallel"]["dp"] = 8;
    r["parallel"]["ep"] = 8;
    const PublishedRunConversion c = convertPublishedRun(r);
    ASSERT_TRUE(c.run) << c.reason;
    EXPECT_EQ(c.run->scenario.parallel.etp, 4);
    const Report withEtp = evaluate(c.run->scenario);
    ASSERT_TRUE(withEtp.valid);
    EXPECT_GT(withEtp.groupsCrossingDomains[static_cast<int>(Dim::Ep)], 0);

    Scenario wholeExperts = c.run->scenario;
    wholeExperts.parallel.etp = 1;
    const Report withoutEtp = evaluate(wholeExperts);
    ASSERT_TRUE(withoutEtp.valid);
    EXPECT_EQ(withoutEtp.groupsCrossingDomains[static_cast<int>(Dim::Ep)], 0);
    EXPECT_GT(withEtp.comm.epSeconds, 2.0 * withoutEtp.comm.epSeconds);

    // A printed etp is kept.
    r["parallel"]["etp"] = 1;
    const PublishedRunConversion printed = convertPublishedRun(r);
    ASSERT_TRUE(printed.run) << printed.reason;
    EXPECT_EQ(printed.run->scenario.parallel.etp, 1);
}

// fp8 MoE rows are compared like every other row now that the expert layout is Megatron-Core's.
TEST(ValidationFamily, Fp8MoeRowsAreCompared)
{
    json r = grokRecord("MoE decoder");
    r["parallel"]["precision"] = "fp8";
    const ValidationSummary s = runValidation(json::array({ r }));
    ASSERT_EQ(s.rows.size(), 1u) << (s.skipped.empty() ? "" : s.skipped.front().reason);
    EXPECT_TRUE(s.familiesNotCompared.empty());
}

// A parallel transformer block, as a record's architecture names it or as MegaScale's method states it
// (arXiv:2402.15627 sec. 3.1) for its own rows; its Megatron-LM baseline rows stay serial.
TEST(ValidationFamily, ParallelBlockFromTheArchitectureOrMegaScalesMethod)
{
    json dense = grokRecord("GPT-J-style parallel attention and MLP");
    dense["model"].erase("moe");
    dense["model"]["name"] = "dense test";
    const PublishedRunConversion named = convertPublishedRun(dense);
    ASSERT_TRUE(named.run) << named.reason;
    EXPECT_TRUE(named.run->scenario.model.parallelBlock);

    json megascale = dense;
    megascale["model"]["arch"] = "GPT-3-style dense decoder";
    megascale["source"] = { { "arxiv", "2402.15627" }, { "title", "MegaScale" } };
    megascale["system"] = "MegaScale";
    const PublishedRunConversion own = convertPublishedRun(megascale);
    ASSERT_TRUE(own.run) << own.reason;
    EXPECT_TRUE(own.run->scenario.model.parallelBlock);
    bool stated = false;
    for (const std::string& a : own.run->assumptions)
        stated = stated || a.find("parallel_block") != std::string::npos;
    EXPECT_TRUE(stated);

    megascale["system"] = "Megatron-LM";
    const PublishedRunConversion baseline = convertPublishedRun(megascale);
    ASSERT_TRUE(baseline.run) << baseline.reason;
    EXPECT_FALSE(baseline.run->scenario.model.parallelBlock);
    // MoE records never get one (the engine's parallel block is for dense layers).
    const PublishedRunConversion moe = convertPublishedRun(grokRecord("parallel attention and MLP"));
    ASSERT_TRUE(moe.run) << moe.reason;
    EXPECT_FALSE(moe.run->scenario.model.parallelBlock);
    // Tensor-parallel attention is not a parallel block.
    dense["model"]["arch"] = "dense decoder, tensor-parallel attention heads";
    const PublishedRunConversion tensorParallel = convertPublishedRun(dense);
    ASSERT_TRUE(tensorParallel.run) << tensorParallel.reason;
    EXPECT_FALSE(tensorParallel.run->scenario.model.parallelBlock);
}
