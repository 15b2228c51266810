// SPDX-License-Identifier: Apache-2.0
// The serving-record reader (data/published_serving.json schema, docs/validation.md "Serving rows"):
// a good record becomes an inference scenario with its figures; a bad one gives a reason that names the
// field.
#include "core/validation/ServingRecord.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace parallax::core;
using nlohmann::json;

namespace {

json goodRecord()
{
    return json::parse(R"({
      "id": "hand_llama3-8b_h100_kv",
      "source": {"label": "hand", "url": "https://example.org/log", "title": "hand-made", "location": "-", "quality": "test"},
      "system": {"framework": "vLLM", "version": "test"},
      "model": {"preset": "llama3-8b"},
      "hardware": {"gpu": "NVIDIA H100 SXM 80GB", "gpu_count": 1, "gpus_per_node": 8},
      "inference": {"tp": 1, "pp": 1, "dp": 1, "ep": 1, "weight_dtype": "bf16", "kv_dtype": "bf16",
                    "isl": 1024, "osl": 1024, "concurrency": 4, "gpu_memory_utilization": 0.9},
      "measured": {"kv_cache_tokens": 500000, "output_tokens_per_s": 3000}
    })");
}

std::string reasonFor(const json& record)
{
    const ServingRunConversion c = convertServingRecord(record);
    EXPECT_FALSE(c.run) << "expected the record to be refused";
    return c.reason;
}

} // namespace

TEST(ServingRecord, ReadsAGoodRecord)
{
    const ServingRunConversion c = convertServingRecord(goodRecord());
    ASSERT_TRUE(c.run) << c.reason;
    const PublishedServingRun& run = *c.run;
    EXPECT_EQ(run.gpu, "h100-sxm");
    EXPECT_EQ(run.source, "hand");
    EXPECT_EQ(run.scenario.mode, ScenarioMode::Inference);
    EXPECT_EQ(run.scenario.topology.gpuCount(), 1);
    EXPECT_EQ(run.scenario.model.layers, 32);
    EXPECT_EQ(run.scenario.inference.concurrency, 4);
    ASSERT_EQ(run.figures.size(), 2u);
    EXPECT_EQ(run.figures[0].metric, ServingMetric::KvCacheTokens);
    EXPECT_EQ(run.figures[1].metric, ServingMetric::OutputTokensPerSecondPerGpu);
    EXPECT_DOUBLE_EQ(run.figures[1].published, 3000.0); // one GPU: the total is the per-GPU figure
}

TEST(ServingRecord, BadRecordsNameTheField)
{
    struct Case {
        const char* pointer; // JSON pointer to change
        json value; // nullptr removes the field
        const char* expected; // the reason must contain it
    };
    const Case cases[] = {
        { "/id", nullptr, "id is missing" },
        { "/source/label", nullptr, "source.label is missing" },
        { "/source/url", nullptr, "source.url is missing" },
        { "/system/version", nullptr, "system.version is missing" },
        { "/hardware/gpu", nullptr, "hardware.gpu is not printed" },
        { "/hardware/gpu", "NVIDIA V100", "hardware.gpu \"NVIDIA V100\" has no GPU preset" },
        { "/hardware/gpu_count", "eight", "hardware.gpu_count = \"eight\" is not a number" },
        { "/hardware/gpu_count", 0, "hardware.gpu_count = 0 is outside" },
        { "/model/preset", "llama9-1t", "model.preset \"llama9-1t\" is not a model preset" },
        { "/inference/tp", 2.5, "inference.tp = 2.5 is outside" },
        { "/inference/weight_dtype", "fp6", "inference.weight_dtype = \"fp6\"" },
        { "/inference/kv_dtype", "int2", "inference.kv_dtype = \"int2\"" },
        { "/inference/isl", nullptr, "inference.isl is missing" },
        { "/inference/concurrency", "many", "inference.concurrency = \"many\" is not a number" },
        { "/inference/gpu_memory_utilization", 1.5, "inference.gpu_memory_utilization = 1.5 is not a fraction" },
        { "/measured/kv_cache_tokens", -3, "measured.kv_cache_tokens = -3 is not a positive number" },
        { "/measured", json::object({ { "tokens_per_dollar", 1 } }),
            "measured has no figure the suite compares (printed: tokens_per_dollar)" },
        { "/inference", nullptr, "inference is missing or not an object" },
    };
    for (const Case& c : cases) {
        json r = goodRecord();
        const json::json_pointer ptr(c.pointer);
        if (c.value.is_null())
            r[ptr.parent_pointer()].erase(ptr.back());
        else
            r[ptr] = c.value;
        const std::string reason = reasonFor(r);
        EXPECT_NE(reason.find(c.expected), std::string::npos) << c.pointer << ": " << reason;
    }
}

TEST(ServingRecord, MoeRunWithoutItsExpertLayoutIsListedWithTheReason)
{
    json r = goodRecord();
    r["model"] = { { "preset", "mixtral-8x7b" } };
    r["inference"]["ep"] = nullptr;
    EXPECT_NE(reasonFor(r).find("inference.ep is not printed: the source does not print the expert layout"),
        std::string::npos);
}

TEST(ServingRecord, SglangNeedsItsStaticFraction)
{
    json r = goodRecord();
    r["system"]["framework"] = "SGLang";
    EXPECT_NE(reasonFor(r).find("inference.mem_fraction_static is not stated"), std::string::npos);
    r["inference"]["mem_fraction_static"] = 0.88;
    const ServingRunConversion c = convertServingRecord(r);
    ASSERT_TRUE(c.run) << c.reason;
    EXPECT_EQ(c.run->pool, KvPoolConvention::MemFractionStatic);
    EXPECT_DOUBLE_EQ(c.run->memFractionStatic, 0.88);
}

TEST(ServingRecord, BlocksBecomeTokensWithTheStatedBlockSize)
{
    json r = goodRecord();
    r["measured"] = { { "kv_cache_blocks", 1381 } };
    ServingRunConversion c = convertServingRecord(r);
    ASSERT_TRUE(c.run) << c.reason;
    ASSERT_EQ(c.run->figures.size(), 1u);
    EXPECT_DOUBLE_EQ(c.run->figures[0].published, 1381.0 * 16); // vLLM's default block of 16 tokens
    r["measured"]["block_size"] = 32;
    c = convertServingRecord(r);
    ASSERT_TRUE(c.run) << c.reason;
    EXPECT_DOUBLE_EQ(c.run->figures[0].published, 1381.0 * 32);
}
