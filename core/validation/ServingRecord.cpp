// SPDX-License-Identifier: Apache-2.0
#include "core/validation/ServingRecord.h"

#include "core/Limits.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/validation/RecordReading.h"

#include <cmath>

namespace parallax::core {

const char* toString(ServingMetric m)
{
    switch (m) {
    case ServingMetric::KvCacheTokens:
        return "kv_cache_tokens";
    case ServingMetric::KvCacheGib:
        return "kv_cache_gib";
    case ServingMetric::WeightsGibPerGpu:
        return "weights_gib_per_gpu";
    case ServingMetric::TtftMs:
        return "ttft_ms";
    case ServingMetric::TpotMs:
        return "tpot_ms";
    case ServingMetric::OutputTokensPerSecondPerGpu:
        return "output_tokens_per_s_per_gpu";
    }
    return "?";
}

const char* unitOf(ServingMetric m)
{
    switch (m) {
    case ServingMetric::KvCacheTokens:
        return "tokens";
    case ServingMetric::KvCacheGib:
    case ServingMetric::WeightsGibPerGpu:
        return "GiB";
    case ServingMetric::TtftMs:
    case ServingMetric::TpotMs:
        return "ms";
    case ServingMetric::OutputTokensPerSecondPerGpu:
        return "tok/s/GPU";
    }
    return "";
}

namespace {

using nlohmann::json;
using record::contains;
using record::text;

// A malformed or missing field: the reason names the field and what it should hold.
struct FieldError {
    std::string text;
};

const json& section(const json& r, const char* key)
{
    if (!r.contains(key) || !r[key].is_object())
        throw FieldError { std::string(key) + " is missing or not an object: give the record a \"" + key
            + "\" object" };
    return r[key];
}

// A whole number in [lo, hi] at `path`; `missing` is the reason used when the field is absent or null.
int integer(const json& j, const std::string& sectionName, const char* key, int lo, int hi, const std::string& missing)
{
    const std::string path = sectionName + "." + key;
    if (!j.contains(key) || j[key].is_null())
        throw FieldError { missing.empty()
                ? path + " is missing: give an integer from " + std::to_string(lo) + " to " + std::to_string(hi)
                : missing };
    const json& v = j[key];
    if (!v.is_number())
        throw FieldError { path + " = " + v.dump() + " is not a number: give an integer from " + std::to_string(lo)
            + " to " + std::to_string(hi) };
    const double d = v.get<double>();
    if (!(d >= lo && d <= hi) || std::floor(d) != d)
        throw FieldError { path + " = " + v.dump() + " is outside " + std::to_string(lo) + " to " + std::to_string(hi)
            + " or not whole: give an integer in that range" };
    return static_cast<int>(d);
}

std::optional<double> fraction(const json& j, const std::string& sectionName, const char* key)
{
    if (!j.contains(key) || j[key].is_null())
        return std::nullopt;
    const json& v = j[key];
    if (!v.is_number() || !(v.get<double>() > 0 && v.get<double>() <= 1))
        throw FieldError { sectionName + "." + key + " = " + v.dump() + " is not a fraction in (0, 1]" };
    return v.get<double>();
}

// GPU preset of a record's description ("NVIDIA H100 SXM 80GB (DGX H100)").
std::string gpuPreset(const std::string& gpu)
{
    for (const auto& [needle, id] : { std::pair { "GB200", "gb200" }, { "B200", "b200" }, { "H200", "h200" },
             { "H800", "h800-sxm" }, { "H100", "h100-sxm" }, { "MI300X", "mi300x" }, { "A100", "a100-sxm-80gb" } }) {
        if (contains(gpu, needle))
            return id;
    }
    return {};
}

void readHardware(const json& hw, PublishedServingRun& run)
{
    if (!hw.contains("gpu") || hw["gpu"].is_null())
        throw FieldError { "hardware.gpu is not printed in the source: the GPU's HBM and rates decide every figure" };
    if (!hw["gpu"].is_string())
        throw FieldError { "hardware.gpu = " + hw["gpu"].dump()
            + " is not a string: name the GPU, e.g. \"NVIDIA H100 SXM 80GB\"" };
    run.gpu = gpuPreset(hw["gpu"].get<std::string>());
    if (run.gpu.empty())
        throw FieldError { "hardware.gpu \"" + hw["gpu"].get<std::string>() + "\" has no GPU preset" };
    if (contains(hw["gpu"].get<std::string>(), "A100") && contains(hw["gpu"].get<std::string>(), "40GB"))
        throw FieldError { "hardware.gpu: the A100 40GB has no preset (only the 80 GB part)" };
    const int gpus = integer(hw, "hardware", "gpu_count", 1, kMaxGpus, "");
    int perNode = 8;
    if (hw.contains("gpus_per_node") && !hw["gpus_per_node"].is_null())
        perNode = integer(hw, "hardware", "gpus_per_node", 1, 1024, "");
    else
        run.assumptions.emplace_back("hardware.gpus_per_node = 8 (HGX node)");
    if (gpus > perNode && gpus % perNode != 0)
        throw FieldError { "hardware.gpu_count " + std::to_string(gpus) + " is not a multiple of gpus_per_node "
            + std::to_string(perNode) };
    const auto spec = PresetLibrary::instance().gpu(run.gpu);
    if (!spec)
        throw FieldError { "hardware.gpu: preset " + run.gpu + " did not load" };
    const int inNode = std::min(gpus, perNode);
    // One NDR NIC per GPU (DGX H100 / H200); the serving rows here fit in one node, so IB is never crossed.
    run.scenario.topology = Topology::regular(*spec, std::max(1, gpus / inNode), inNode, 400, inNode);
    run.scenario.gpuPreset = run.gpu;
    run.scenario.nodes = std::max(1, gpus / inNode);
    run.scenario.gpusPerNode = inNode;
}

void readModel(const json& m, PublishedServingRun& run)
{
    if (m.contains("checkpoint_bf16_modules"))
        throw FieldError { "model.checkpoint_bf16_modules: the checkpoint keeps " + text(m, "checkpoint_bf16_modules")
            + " in bf16; one weight_dtype for every linear layer is all the engine models" };
    if (m.contains("preset")) {
        if (!m["preset"].is_string())
            throw FieldError { "model.preset = " + m["preset"].dump() + " is not a string: give a model preset id" };
        const auto spec = PresetLibrary::instance().model(m["preset"].get<std::string>());
        if (!spec)
            throw FieldError { "model.preset \"" + m["preset"].get<std::string>()
                + "\" is not a model preset: use one of `parallax-cli presets` or give model.shape" };
        run.scenario.model = *spec;
        run.scenario.modelPreset = spec->id;
        return;
    }
    if (!m.contains("shape") || !m["shape"].is_object())
        throw FieldError { "model has neither \"preset\" nor a \"shape\" object: give one" };
    LoadError error;
    const auto spec = parseModelSpec(m["shape"], "model.shape", error);
    if (!spec)
        throw FieldError { error.text() };
    run.scenario.model = *spec;
}

void readInference(const json& inf, PublishedServingRun& run)
{
    ParallelConfig& p = run.scenario.parallel;
    const std::string moeLayout = run.scenario.model.isMoe()
        ? "the source does not print the expert layout of this MoE run (ep / DP-attention)"
        : "";
    p.tp = integer(inf, "inference", "tp", 1, kMaxGpus, "");
    p.pp = integer(inf, "inference", "pp", 1, kMaxGpus, "");
    p.dp = integer(
        inf, "inference", "dp", 1, kMaxGpus, moeLayout.empty() ? "" : "inference.dp is not printed: " + moeLayout);
    p.ep = integer(
        inf, "inference", "ep", 1, kMaxGpus, moeLayout.empty() ? "" : "inference.ep is not printed: " + moeLayout);
    p.cp = 1;
    InferenceConfig& c = run.scenario.inference;
    const std::string wd = text(inf, "weight_dtype"), kd = text(inf, "kv_dtype");
    if (!parseWeightFormat(wd, c.weightFormat))
        throw FieldError { "inference.weight_dtype = " + inf.value("weight_dtype", json()).dump()
            + " is not bf16, fp8, int8, int4, nvfp4 or mxfp4" };
    if (!parseKvDtype(kd, c.kvDtype))
        throw FieldError { "inference.kv_dtype = " + inf.value("kv_dtype", json()).dump() + " is not bf16 or fp8" };
    c.isl = integer(inf, "inference", "isl", 1, kMaxSeqLen, "");
    c.osl = integer(inf, "inference", "osl", 1, kMaxSeqLen, "");
    if (inf.contains("context_len") && !inf["context_len"].is_null())
        c.contextLen = integer(inf, "inference", "context_len", 2, kMaxSeqLen, "");
    if (inf.contains("concurrency") && inf["concurrency"].is_string() && inf["concurrency"] == "max")
        c.concurrency = 0;
    else if (inf.contains("concurrency"))
        c.concurrency = integer(inf, "inference", "concurrency", 1, 1 << 24, "");
    else {
        c.concurrency = 1;
        run.assumptions.emplace_back("inference.concurrency = 1 (not printed)");
    }
    if (c.concurrency == 0)
        run.assumptions.emplace_back("inference.concurrency = max: the engine's solved concurrency, at most vLLM's "
                                     "max_num_seqs 256 per replica (the run's batch is not printed)");
    if (run.framework == "SGLang") {
        const auto f = fraction(inf, "inference", "mem_fraction_static");
        if (!f)
            throw FieldError { "inference.mem_fraction_static is not stated: SGLang's default depends on the GPU and "
                               "tp, so the record must give it" };
        run.pool = KvPoolConvention::MemFractionStatic;
        run.memFractionStatic = *f;
    } else if (const auto u = fraction(inf, "inference", "gpu_memory_utilization")) {
        c.gpuMemoryUtilization = *u;
    } else {
        run.assumptions.emplace_back(
            "inference.gpu_memory_utilization = 0.9 (vLLM's default; TensorRT-LLM's kv_cache_free_gpu_mem_fraction "
            "0.9 of the free memory is close to it)");
    }
    run.scenario.mode = ScenarioMode::Inference;
}

// The figures of `measured` the suite compares; the reason lists what was printed when none is.
void readMeasured(const json& me, PublishedServingRun& run)
{
    auto positive = [&](const char* key) -> std::optional<double> {
        if (!me.contains(key))
            return std::nullopt;
        if (!me[key].is_number() || !(me[key].get<double>() > 0))
            throw FieldError { std::string("measured.") + key + " = " + me[key].dump() + " is not a positive number" };
        return me[key].get<double>();
    };
    const double gpus = run.scenario.topology.gpuCount();
    if (auto v = positive("kv_cache_tokens"))
        run.figures.push_back({ ServingMetric::KvCacheTokens, *v });
    if (auto v = positive("kv_cache_blocks")) {
        // vLLM's default block of 16 tokens (vLLM engine arguments, --block-size).
        const double blockSize = me.contains("block_size") ? positive("block_size").value_or(16) : 16;
        run.figures.push_back({ ServingMetric::KvCacheTokens, *v * blockSize });
        run.assumptions.push_back(
            "kv cache tokens = measured.kv_cache_blocks x block_size " + std::to_string(static_cast<int>(blockSize)));
    }
    if (auto v = positive("kv_cache_gib"))
        run.figures.push_back({ ServingMetric::KvCacheGib, *v });
    if (auto v = positive("weights_gib_per_gpu"))
        run.figures.push_back({ ServingMetric::WeightsGibPerGpu, *v });
    if (auto v = positive("ttft_ms"))
        run.figures.push_back({ ServingMetric::TtftMs, *v });
    if (auto v = positive("tpot_ms"))
        run.figures.push_back({ ServingMetric::TpotMs, *v });
    if (auto v = positive("output_tokens_per_s_per_gpu"))
        run.figures.push_back({ ServingMetric::OutputTokensPerSecondPerGpu, *v });
    if (auto v = positive("output_tokens_per_s")) {
        run.figures.push_back({ ServingMetric::OutputTokensPerSecondPerGpu, *v / gpus });
        run.assumptions.push_back("output tokens/s per GPU = measured.output_tokens_per_s / "
            + std::to_string(static_cast<int>(gpus)) + " GPUs");
    }
    if (run.figures.empty()) {
        std::string keys;
        for (const auto& [k, v] : me.items())
            keys += (keys.empty() ? "" : ", ") + k;
        throw FieldError { "measured has no figure the suite compares (printed: " + (keys.empty() ? "nothing" : keys)
            + "); it compares kv_cache_tokens, kv_cache_blocks, kv_cache_gib, weights_gib_per_gpu, ttft_ms, tpot_ms, "
              "output_tokens_per_s and output_tokens_per_s_per_gpu" };
    }
}

} // namespace

ServingRunConversion convertServingRecord(const json& r)
{
    ServingRunConversion out;
    if (!r.is_object()) {
        out.id = "?";
        out.reason = "record is not a JSON object";
        return out;
    }
    out.id = r.contains("id") && r["id"].is_string() ? r["id"].get<std::string>() : std::string("?");
    try {
        if (out.id == "?")
            throw FieldError { "id is missing or not a string: give every record a unique id" };
        PublishedServingRun run;
        run.id = out.id;
        const json& source = section(r, "source");
        run.source = text(source, "label");
        if (run.source.empty())
            throw FieldError { "source.label is missing: give the short name the table groups rows by" };
        if (text(source, "url").empty())
            throw FieldError { "source.url is missing: every figure needs the address it was printed at" };
        const json& system = section(r, "system");
        run.framework = text(system, "framework");
        if (run.framework.empty())
            throw FieldError { "system.framework is missing: name the serving framework (vLLM, SGLang, TensorRT-LLM)" };
        run.version = text(system, "version");
        if (run.version.empty())
            throw FieldError { "system.version is missing: give the version, or \"not printed\" with what is known" };
        run.scenario.name = run.id;
        readModel(section(r, "model"), run);
        readHardware(section(r, "hardware"), run);
        readInference(section(r, "inference"), run);
        readMeasured(section(r, "measured"), run);
        out.run = std::move(run);
    } catch (const FieldError& e) {
        out.reason = e.text;
    } catch (const std::exception& e) { // a field of an unexpected JSON type
        out.reason = std::string("malformed record: ") + e.what();
    }
    return out;
}

} // namespace parallax::core
