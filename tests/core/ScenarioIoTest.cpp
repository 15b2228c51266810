// SPDX-License-Identifier: Apache-2.0
#include "core/io/ScenarioIo.h"
#include "core/Engine.h"
#include "core/io/PresetLibrary.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace parallax::core;
using nlohmann::json;

namespace {
json defaultDoc()
{
    return json::parse(PresetLibrary::instance().scenario(kDefaultScenarioPreset)->json);
}

std::string loadError(const json& doc)
{
    LoadError error;
    const auto s = parseScenario(doc.dump(), error);
    return s ? std::string() : error.text();
}
} // namespace

TEST(ScenarioIo, DefaultPresetLoads)
{
    LoadError error;
    const auto s = parseScenario(defaultDoc().dump(), error);
    ASSERT_TRUE(s) << error.text();
    EXPECT_EQ(s->model.id, "llama3-70b");
    EXPECT_EQ(s->topology.gpuCount(), 64);
    EXPECT_EQ(s->parallel.vpp, 2);
    EXPECT_EQ(s->parallel.schedule, ScheduleKind::Interleaved1F1B);
    EXPECT_EQ(s->seqLen(), 8192);
}

// SCENARIO.md: unknown keys are kept on load and written back on save, at every level.
TEST(ScenarioIo, UnknownKeysSurviveRoundTrip)
{
    json doc = defaultDoc();
    doc["future_feature"] = { { "a", 1 }, { "b", { 1, 2, 3 } } };
    doc["parallel"]["pipeline_warmup"] = "eager";
    doc["training"]["lr"] = 3e-4;
    doc["cluster"]["ib"]["sharp"] = true;
    doc["cluster"]["rack"] = "A7";
    LoadError error;
    const auto s = parseScenario(doc.dump(), error);
    ASSERT_TRUE(s) << error.text();
    const json out = json::parse(serializeScenario(*s));
    EXPECT_EQ(out["future_feature"], doc["future_feature"]);
    EXPECT_EQ(out["parallel"]["pipeline_warmup"], "eager");
    EXPECT_EQ(out["training"]["lr"], 3e-4);
    EXPECT_EQ(out["cluster"]["ib"]["sharp"], true);
    EXPECT_EQ(out["cluster"]["rack"], "A7");
    // And the known fields are unchanged by the round trip.
    const auto again = parseScenario(out.dump(), error);
    ASSERT_TRUE(again);
    EXPECT_EQ(serializeScenario(*again), serializeScenario(*s));
}

TEST(ScenarioIo, InlineModelAndExplicitTopologyRoundTrip)
{
    json doc = defaultDoc();
    doc["model"] = { { "name", "tiny" }, { "layers", 4 }, { "hidden", 1024 }, { "heads", 16 }, { "kv_heads", 4 },
        { "ffn_hidden", 4096 }, { "vocab", 32000 }, { "activation", "swiglu" }, { "custom_note", "kept" },
        { "moe", { { "experts", 8 }, { "top_k", 2 }, { "expert_ffn_hidden", 2048 } } } };
    doc["cluster"] = { { "topology",
        { { "domains",
              { { { "name", "a" }, { "gpu", "h100-sxm" }, { "count", 4 } },
                  { { "name", "b" }, { "gpu", "h200" }, { "count", 8 } } } },
            { "fabrics", { { { "name", "ib" }, { "nic_gbps", 400 }, { "domains", { "a", "b" } } } } } } } };
    doc["parallel"] = { { "tp", 4 }, { "pp", 1 }, { "dp", 3 }, { "ep", 4 } };
    LoadError error;
    const auto s = parseScenario(doc.dump(), error);
    ASSERT_TRUE(s) << error.text();
    EXPECT_FALSE(s->regularCluster);
    EXPECT_EQ(s->topology.domains.size(), 2u);
    EXPECT_EQ(s->topology.domains[1].gpu.id, "h200");
    EXPECT_EQ(s->topology.gpuCount(), 12);
    EXPECT_TRUE(s->model.isMoe());
    const json out = json::parse(serializeScenario(*s));
    EXPECT_EQ(out["model"]["custom_note"], "kept");
    EXPECT_EQ(out["cluster"]["topology"]["domains"][1]["gpu"], "h200");
    const auto again = parseScenario(out.dump(), error);
    ASSERT_TRUE(again) << error.text();
    EXPECT_EQ(serializeScenario(*again), serializeScenario(*s));
}

struct BadInput {
    const char* name;
    std::function<void(json&)> mutate;
    const char* expected; // "path: problem" prefix or substring
};

// Malformed documents: each error names the JSON path and the problem.
TEST(ScenarioIo, BadInputNamesTheField)
{
    const BadInput cases[] = {
        { "tp zero", [](json& d) { d["parallel"]["tp"] = 0; }, "parallel.tp: must be >= 1, got 0" },
        { "tp negative", [](json& d) { d["parallel"]["tp"] = -8; }, "parallel.tp: must be >= 1, got -8" },
        { "tp huge", [](json& d) { d["parallel"]["tp"] = 1e12; }, "parallel.tp: must be <= 65536" },
        { "tp fractional", [](json& d) { d["parallel"]["tp"] = 2.5; }, "parallel.tp: must be an integer, got 2.5" },
        { "tp string", [](json& d) { d["parallel"]["tp"] = "eight"; },
            "parallel.tp: must be an integer, got a string" },
        { "sp number", [](json& d) { d["parallel"]["sp"] = 1; }, "parallel.sp: must be true or false" },
        { "missing model", [](json& d) { d.erase("model"); }, "model: is missing" },
        { "missing cluster", [](json& d) { d.erase("cluster"); }, "cluster: is missing" },
        { "missing global batch", [](json& d) { d["training"].erase("global_batch"); },
            "training.global_batch: is missing" },
        { "unknown model", [](json& d) { d["model"] = "llama9"; }, "model: unknown model preset \"llama9\"; known:" },
        { "unknown gpu", [](json& d) { d["cluster"]["gpu"] = "h1000"; }, "cluster.gpu: unknown GPU preset \"h1000\"" },
        { "unknown schedule", [](json& d) { d["parallel"]["schedule"] = "2f2b"; },
            "parallel.schedule: unknown schedule \"2f2b\"" },
        { "bad recompute", [](json& d) { d["training"]["recompute"] = "some"; },
            "training.recompute: must be \"none\"" },
        { "bad dtype", [](json& d) { d["training"]["dtype"] = "fp4"; }, "training.dtype: must be \"bf16\" or \"fp8\"" },
        { "parallel not object", [](json& d) { d["parallel"] = 8; }, "parallel: must be an object, got a number" },
        { "100k GPUs", [](json& d) { d["cluster"]["nodes"] = 12500; },
            "cluster.nodes: 100000 GPUs (nodes x gpus_per_node) exceeds the supported 65536" },
        { "zero nodes", [](json& d) { d["cluster"]["nodes"] = 0; }, "cluster.nodes: must be >= 1, got 0" },
        { "negative seq", [](json& d) { d["training"]["seq_len"] = -1; }, "training.seq_len: must be >= 1, got -1" },
        { "negative ddp bucket", [](json& d) { d["parallel"]["ddp_bucket_size"] = -5; },
            "parallel.ddp_bucket_size: must be >= 0, got -5" },
        { "huge batch", [](json& d) { d["training"]["global_batch"] = 1e30; }, "training.global_batch: must be <=" },
        { "inline model heads",
            [](json& d) {
                d["model"]
                    = { { "layers", 2 }, { "hidden", 1000 }, { "heads", 3 }, { "ffn_hidden", 10 }, { "vocab", 10 } };
            },
            "model.head_dim: hidden=1000 is not divisible by heads=3" },
        { "inline model kv",
            [](json& d) {
                d["model"] = { { "layers", 2 }, { "hidden", 1024 }, { "heads", 16 }, { "kv_heads", 6 },
                    { "ffn_hidden", 10 }, { "vocab", 10 } };
            },
            "model.kv_heads: heads=16 is not divisible by kv_heads=6" },
        { "topology domain name",
            [](json& d) {
                d["cluster"] = { { "topology",
                    { { "domains", { { { "name", "a" }, { "gpu", "h100-sxm" }, { "count", 8 } } } },
                        { "fabrics", { { { "name", "ib" }, { "domains", { "zz" } } } } } } } };
            },
            "cluster.topology.fabrics[0].domains: names an unknown domain \"zz\"" },
        { "wrong format", [](json& d) { d["format"] = "something-else"; }, "format: must be \"parallax-scenario\"" },
    };
    for (const auto& c : cases) {
        json doc = defaultDoc();
        c.mutate(doc);
        const std::string error = loadError(doc);
        EXPECT_NE(error.find(c.expected), std::string::npos) << c.name << ": got \"" << error << "\"";
    }
}

TEST(ScenarioIo, MalformedAndTruncatedJson)
{
    const std::string text = defaultDoc().dump();
    for (const std::string& bad :
        { text.substr(0, text.size() / 2), std::string("{\"model\": }"), std::string(""), std::string("[1,2]") }) {
        LoadError error;
        EXPECT_FALSE(parseScenario(bad, error)) << bad;
        EXPECT_FALSE(error.text().empty());
    }
    LoadError error;
    parseScenario(text.substr(0, text.size() / 2), error);
    EXPECT_NE(error.text().find("not valid JSON"), std::string::npos) << error.text();
}

TEST(ScenarioIo, AtomicSaveLeavesNoPartialFile)
{
    const auto dir = std::filesystem::temp_directory_path() / "parallax-save-test";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "s.parallax.json").string();
    LoadError loadError;
    const auto s = parseScenario(defaultDoc().dump(), loadError);
    ASSERT_TRUE(s);
    std::string error;
    ASSERT_TRUE(saveScenarioFile(*s, path, error)) << error;
    ASSERT_TRUE(saveScenarioFile(*s, path, error)) << error; // overwrite in place
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        (void)e;
        ++files;
    }
    EXPECT_EQ(files, 1); // no temporary left behind
    const auto loaded = loadScenarioFile(path, loadError);
    ASSERT_TRUE(loaded) << loadError.text();
    EXPECT_EQ(serializeScenario(*loaded), serializeScenario(*s));
    // An unwritable destination fails with a message and leaves the old file intact.
    EXPECT_FALSE(saveScenarioFile(*s, (dir / "missing" / "x.json").string(), error));
    EXPECT_NE(error.find("cannot write"), std::string::npos);
    std::filesystem::remove_all(dir);
}
