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

namespace {
// An inline MoE + MLA model on an explicit topology: domain "a" has an inline GPU object, "b" a preset.
json inlineModelOnExplicitTopology()
{
    json doc = defaultDoc();
    doc["model"] = { { "name", "tiny" }, { "layers", 4 }, { "hidden", 1024 }, { "heads", 16 }, { "kv_heads", 4 },
        { "ffn_hidden", 4096 }, { "vocab", 32000 }, { "activation", "swiglu" },
        { "moe", { { "experts", 8 }, { "top_k", 2 }, { "expert_ffn_hidden", 2048 } } },
        { "mla",
            { { "kv_lora_rank", 512 }, { "qk_nope_head_dim", 128 }, { "qk_rope_head_dim", 64 },
                { "v_head_dim", 128 } } } };
    json gpu = gpuSpecToJson(*PresetLibrary::instance().gpu("h100-sxm"));
    gpu["id"] = "lab-gpu";
    doc["cluster"] = { { "topology",
        { { "domains",
              { { { "name", "a" }, { "gpu", gpu }, { "count", 4 } },
                  { { "name", "b" }, { "gpu", "h200" }, { "count", 8 } } } },
            { "fabrics", { { { "name", "ib" }, { "nic_gbps", 400 }, { "domains", { "a", "b" } } } } } } } };
    doc["parallel"] = { { "tp", 4 }, { "pp", 1 }, { "dp", 3 }, { "ep", 4 } };
    return doc;
}

// The default scenario with its GPU given as an inline object (the regular cluster form).
json inlineGpuOnRegularCluster()
{
    json doc = defaultDoc();
    doc["cluster"]["gpu"] = gpuSpecToJson(*PresetLibrary::instance().gpu("h100-sxm"));
    doc["cluster"]["gpu"]["id"] = "lab-gpu";
    return doc;
}

// load -> save -> load -> save; the second save, which must equal the first (null when a load fails).
json roundTrip(const json& doc)
{
    LoadError error;
    const auto s = parseScenario(doc.dump(), error);
    EXPECT_TRUE(s) << error.text();
    if (!s)
        return {};
    const std::string saved = serializeScenario(*s);
    const auto again = parseScenario(saved, error);
    EXPECT_TRUE(again) << error.text();
    if (!again)
        return {};
    EXPECT_EQ(serializeScenario(*again), saved);
    return json::parse(serializeScenario(*again));
}
} // namespace

// SCENARIO.md: what the writer has no field for survives the round trip below the top-level objects too:
// unknown keys of model.moe, model.mla, each domain and fabric and an inline GPU object, and the known keys
// read into nothing the writer writes (model.params_active, a GPU's source / sources).
TEST(ScenarioIo, KeptKeysSurviveRoundTripInNestedObjects)
{
    const struct {
        json (*base)();
        const char* pointer;
        json value;
    } cases[] = {
        { inlineModelOnExplicitTopology, "/model/moe/aux_loss_coeff", 0.01 },
        { inlineModelOnExplicitTopology, "/model/mla/rope_scaling", { { "factor", 40 } } },
        { inlineModelOnExplicitTopology, "/model/params_active", 1.2e9 },
        { inlineModelOnExplicitTopology, "/model/source", "arXiv:2412.19437 table 1" },
        { inlineModelOnExplicitTopology, "/model/format", "parallax-model" },
        { inlineModelOnExplicitTopology, "/cluster/topology/domains/0/rack", "A7" },
        { inlineModelOnExplicitTopology, "/cluster/topology/domains/1/power_kw", 10.2 },
        { inlineModelOnExplicitTopology, "/cluster/topology/fabrics/0/switch", { { "vendor", "x" } } },
        { inlineModelOnExplicitTopology, "/cluster/topology/domains/0/gpu/sku", "lab-1" },
        { inlineModelOnExplicitTopology, "/cluster/topology/domains/0/gpu/source", "lab datasheet" },
        { inlineModelOnExplicitTopology, "/cluster/topology/domains/0/gpu/sources", { { "hbm_gib", "p. 2" } } },
        { inlineGpuOnRegularCluster, "/cluster/gpu/sku", "lab-1" },
        { inlineGpuOnRegularCluster, "/cluster/gpu/source", "lab datasheet" },
        { inlineGpuOnRegularCluster, "/cluster/gpu/sources", { { "hbm_gib", "p. 2" } } },
        { inlineGpuOnRegularCluster, "/cluster/gpu/version", 1 },
    };
    for (const auto& c : cases) {
        json doc = c.base();
        const json::json_pointer at(c.pointer);
        doc[at] = c.value;
        EXPECT_EQ(roundTrip(doc).value(at, json()), c.value) << c.pointer;
    }
}

// A domain's inline GPU object that borrows a preset's id is written back as the preset's name only when it is
// that preset and holds nothing more; one with its own numbers, or with keys of its own, stays an object.
TEST(ScenarioIo, DomainGpuWithAPresetIdKeepsItsOwnNumbers)
{
    json doc = inlineModelOnExplicitTopology();
    json& gpu = doc["cluster"]["topology"]["domains"][0]["gpu"];
    gpu = gpuSpecToJson(*PresetLibrary::instance().gpu("h100-sxm"));
    EXPECT_EQ(roundTrip(doc)["cluster"]["topology"]["domains"][0]["gpu"], "h100-sxm");
    gpu["sources"] = { { "hbm_gib", "p. 2" } };
    EXPECT_EQ(roundTrip(doc)["cluster"]["topology"]["domains"][0]["gpu"], gpu);
    gpu.erase("sources");
    gpu["hbm_gib"] = 96;
    gpu["bf16_dense_tflops"] = 900.5;
    const json out = roundTrip(doc)["cluster"]["topology"]["domains"][0]["gpu"];
    ASSERT_TRUE(out.is_object()) << out.dump();
    EXPECT_EQ(out["id"], "h100-sxm");
    EXPECT_EQ(out["hbm_gib"], 96);
    EXPECT_EQ(out["bf16_dense_tflops"], 900.5);
}

// Kept keys follow their domain or fabric by name, and the objects they sit in: an editor that renames or
// removes a domain, drops the MoE or turns the topology regular saves a file that loads, with no key lent to
// another element.
TEST(ScenarioIo, KeptKeysFollowEditsWithoutLendingThem)
{
    json doc = inlineModelOnExplicitTopology();
    doc["model"]["moe"]["aux_loss_coeff"] = 0.01;
    doc["model"]["mla"]["rope_scaling"] = 40;
    doc["cluster"]["topology"]["spine"] = "fat-tree";
    doc["cluster"]["topology"]["domains"][0]["rack"] = "A7";
    doc["cluster"]["topology"]["domains"][0]["gpu"]["sku"] = "lab-1";
    doc["cluster"]["topology"]["domains"][1]["rack"] = "B2";
    doc["cluster"]["topology"]["fabrics"][0]["switch"] = "s1";
    LoadError error;
    const auto loaded = parseScenario(doc.dump(), error);
    ASSERT_TRUE(loaded) << error.text();
    auto saveAndLoad = [](const Scenario& s) {
        const json out = scenarioToJson(s);
        LoadError e;
        EXPECT_TRUE(parseScenario(out.dump(), e)) << e.text() << "\n" << out.dump();
        return out;
    };

    Scenario renamed = *loaded;
    renamed.topology.domains[0].name = "c";
    renamed.topology.fabrics[0].name = "ib9";
    json out = saveAndLoad(renamed);
    EXPECT_FALSE(out["cluster"]["topology"]["domains"][0].contains("rack")) << out.dump();
    EXPECT_EQ(out["cluster"]["topology"]["domains"][1]["rack"], "B2");
    EXPECT_FALSE(out["cluster"]["topology"]["fabrics"][0].contains("switch"));

    Scenario removed = *loaded; // "a" goes, "b" becomes the first domain and keeps only its own keys
    removed.topology.domains.erase(removed.topology.domains.begin());
    removed.topology.fabrics[0].domains = { 0 };
    out = saveAndLoad(removed);
    ASSERT_EQ(out["cluster"]["topology"]["domains"].size(), 1u);
    EXPECT_EQ(out["cluster"]["topology"]["domains"][0]["rack"], "B2");
    EXPECT_EQ(out["cluster"]["topology"]["domains"][0]["gpu"], "h200");

    Scenario swapped = *loaded; // another GPU in place of the inline one: the old one's keys go with it
    swapped.topology.domains[0].gpu = *PresetLibrary::instance().gpu("h100-sxm");
    out = saveAndLoad(swapped);
    EXPECT_EQ(out["cluster"]["topology"]["domains"][0]["gpu"], "h100-sxm");
    swapped.topology.domains[0].gpu.id = "other-lab-gpu";
    out = saveAndLoad(swapped);
    EXPECT_FALSE(out["cluster"]["topology"]["domains"][0]["gpu"].contains("sku")) << out.dump();
    EXPECT_EQ(out["cluster"]["topology"]["domains"][0]["rack"], "A7");

    Scenario dense = *loaded;
    dense.model.moe.reset();
    dense.model.mla.reset();
    dense.topology = Topology::regular(*PresetLibrary::instance().gpu("h100-sxm"), 2, 8, 400);
    dense.regularCluster = true;
    dense.gpuPreset = "h100-sxm";
    out = saveAndLoad(dense);
    EXPECT_FALSE(out["model"].contains("moe")) << out.dump();
    EXPECT_FALSE(out["model"].contains("mla"));
    EXPECT_FALSE(out["cluster"].contains("topology"));
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
