// SPDX-License-Identifier: Apache-2.0
#include "core/io/ScenarioIo.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace parallax::core;

namespace {
const char* kServing = R"({
  "format": "parallax-scenario", "version": 1, "name": "serve", "mode": "inference",
  "model": "llama3-70b", "cluster": { "gpu": "h100-sxm", "nodes": 1, "gpus_per_node": 8 },
  "parallel": { "tp": 8 },
  "inference": { "weight_dtype": "fp8", "kv_dtype": "fp8", "isl": 2000, "osl": 500, "context_len": 4096,
                 "concurrency": "max", "gpu_memory_utilization": 0.85, "speculative": { "k": 3 } },
  "future_key": 1
})";
}

TEST(InferenceScenarioIo, ReadsTheBlockAndKeepsUnknownKeys)
{
    LoadError e;
    auto s = parseScenario(kServing, e);
    ASSERT_TRUE(s) << e.text();
    EXPECT_EQ(s->mode, ScenarioMode::Inference);
    EXPECT_EQ(s->inference.weightFormat, WeightFormat::Fp8);
    EXPECT_EQ(s->inference.kvDtype, KvDtype::Fp8);
    EXPECT_EQ(s->inference.isl, 2000);
    EXPECT_EQ(s->inference.osl, 500);
    EXPECT_EQ(s->inference.effectiveContextLen(), 4096);
    EXPECT_TRUE(s->inference.solvesConcurrency());
    EXPECT_DOUBLE_EQ(s->inference.gpuMemoryUtilization, 0.85);
    const auto j = scenarioToJson(*s);
    EXPECT_EQ(j["mode"], "inference");
    EXPECT_EQ(j["inference"]["weight_dtype"], "fp8");
    EXPECT_EQ(j["inference"]["concurrency"], "max");
    EXPECT_EQ(j["inference"]["speculative"]["k"], 3);
    EXPECT_EQ(j["future_key"], 1);
    auto again = parseScenario(j.dump(), e);
    ASSERT_TRUE(again) << e.text();
    EXPECT_EQ(scenarioToJson(*again)["inference"], j["inference"]);
    EXPECT_EQ(scenarioToJson(*again)["mode"], "inference");
}

TEST(InferenceScenarioIo, TrainingFilesStayTraining)
{
    const char* training = R"({ "format": "parallax-scenario", "version": 1, "model": "llama3-8b",
      "cluster": { "gpu": "h100-sxm", "nodes": 1, "gpus_per_node": 8 }, "parallel": { "tp": 8 },
      "training": { "global_batch": 8 }, "inference": { "isl": 5 } })";
    LoadError e;
    auto s = parseScenario(training, e);
    ASSERT_TRUE(s) << e.text();
    EXPECT_EQ(s->mode, ScenarioMode::Training);
    const auto j = scenarioToJson(*s);
    EXPECT_FALSE(j.contains("mode"));
    EXPECT_EQ(j["inference"]["isl"], 5); // an unknown block of a training file is kept as it was
}

TEST(InferenceScenarioIo, BadValuesNameTheField)
{
    struct Case {
        const char* patch;
        const char* path;
        const char* words;
    };
    const Case cases[] = {
        { R"("weight_dtype": "fp6")", "inference.weight_dtype", "bf16, fp8, int8, int4, nvfp4 or mxfp4" },
        { R"("kv_dtype": "int4")", "inference.kv_dtype", "bf16 or fp8" },
        { R"("concurrency": "lots")", "inference.concurrency", "\"max\"" },
        { R"("concurrency": 0)", "inference.concurrency", ">= 1" },
        { R"("isl": 3000, "osl": 2000, "context_len": 4096)", "inference.context_len", "isl + osl" },
        { R"("gpu_memory_utilization": 1.5)", "inference.gpu_memory_utilization", "<=" },
    };
    for (const Case& c : cases) {
        const std::string text = std::string(R"({ "format": "parallax-scenario", "version": 1, "mode": "inference",
          "model": "llama3-8b", "cluster": { "gpu": "h100-sxm", "nodes": 1, "gpus_per_node": 8 },
          "parallel": { "tp": 8 }, "inference": { )")
            + c.patch + " } }";
        LoadError e;
        EXPECT_FALSE(parseScenario(text, e)) << c.patch;
        EXPECT_EQ(e.path, c.path) << c.patch;
        EXPECT_NE(e.message.find(c.words), std::string::npos) << e.message;
    }
    LoadError e;
    EXPECT_FALSE(parseScenario(R"({ "format": "parallax-scenario", "version": 1, "mode": "serve", "model": "llama3-8b",
      "cluster": { "gpu": "h100-sxm", "nodes": 1, "gpus_per_node": 8 }, "parallel": {} })",
        e));
    EXPECT_EQ(e.path, "mode");
}
