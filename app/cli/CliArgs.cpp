// SPDX-License-Identifier: Apache-2.0
#include "CliArgs.h"

#include "core/io/BoundedRead.h"
#include "core/io/HfConfigReader.h"
#include "core/io/JsonReader.h"
#include "core/io/JsonText.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

namespace parallax::cli {

using nlohmann::json;

Args::Args(const std::vector<std::string>& argv, const std::vector<std::string>& switches)
{
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a.rfind("--", 0) == 0 && a.size() > 2) {
            std::string key = a.substr(2);
            const auto eq = key.find('=');
            if (eq != std::string::npos) {
                m_values[key.substr(0, eq)] = key.substr(eq + 1);
            } else if (std::find(switches.begin(), switches.end(), key) != switches.end()) {
                m_values[key] = "1";
            } else {
                if (i + 1 >= argv.size())
                    throw UsageError("--" + key + " needs a value");
                m_values[key] = argv[++i];
            }
        } else {
            m_positional.push_back(a);
        }
    }
}

std::string Args::value(const std::string& key, const std::string& fallback) const
{
    const auto it = m_values.find(key);
    return it == m_values.end() ? fallback : it->second;
}

double Args::number(const std::string& key, double fallback, double min, double max) const
{
    if (!has(key))
        return fallback;
    const std::string text = value(key);
    std::size_t used = 0;
    double v = 0;
    try {
        v = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() || !std::isfinite(v))
        throw UsageError("--" + key + ": expected a number, got \"" + text + "\"");
    if (v < min || v > max) {
        std::ostringstream msg;
        msg << "--" << key << ": must be between " << min << " and " << max << ", got " << text;
        throw UsageError(msg.str());
    }
    return v;
}

int Args::integer(const std::string& key, int fallback, int min, int max) const
{
    const double v = number(key, fallback, min, max);
    if (std::floor(v) != v)
        throw UsageError("--" + key + ": expected an integer, got \"" + value(key) + "\"");
    return static_cast<int>(v);
}

std::vector<std::string> Args::list(const std::string& key) const
{
    std::vector<std::string> out;
    std::stringstream in(value(key));
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty())
            out.push_back(item);
    return out;
}

void Args::allowOnly(const std::vector<std::string>& known) const
{
    for (const auto& [key, v] : m_values) {
        if (std::find(known.begin(), known.end(), key) == known.end())
            throw UsageError("unknown option --" + key + " (see parallax-cli --help)");
    }
}

const std::vector<std::string>& scenarioFlagNames()
{
    static const std::vector<std::string> names { "model", "gpu", "nodes", "gpus-per-node", "nic-gbps", "tp", "sp",
        "pp", "vpp", "dp", "ep", "etp", "cp", "cp-comm-type", "cp-a2a-size", "zero", "schedule", "micro-batch",
        "global-batch", "seq-len", "recompute", "dtype", "order", "flash-attention", "tp-comm-overlap", "dp-overlap",
        "p2p-overlap", "ddp-bucket-size", "mode", "weight-dtype", "kv-dtype", "context-len", "isl", "osl",
        "concurrency", "gpu-memory-utilization", "speculative-tokens", "draft-acceptance", "draft-model",
        "speculative-method", "parallel-block" };
    return names;
}

namespace {
json parseJsonFile(const std::string& path)
{
    std::string text;
    std::string error;
    if (!core::io::readFileBounded(path, text, error))
        throw UsageError(error);
    std::string field;
    std::optional<json> doc = core::io::parseJsonBounded(text, error, &field);
    if (!doc && !field.empty()) // a well-formed value out of range (1e400): that field is invalid
        throw InvalidConfigError(path + ": " + field + ": " + error);
    if (!doc)
        throw UsageError(path + ": " + error);
    return std::move(*doc);
}

// The object `key` of `parent` that flags write into: created when absent; anything else in the file
// is a wrong value of that field.
json& section(json& parent, const std::string& key, const std::string& path)
{
    json& v = parent[key];
    if (v.is_null())
        v = json::object();
    if (!v.is_object())
        throw InvalidConfigError(path + ": must be an object, got " + core::jsonTypeName(v));
    return v;
}

// A number of the file the flags depend on, or `fallback` when it is absent or not a number (the
// reader reports a wrong type afterwards, naming the field).
long long numberOr(const json& object, const char* key, long long fallback)
{
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number())
        return fallback;
    const double v = it->get<double>();
    return v >= -1e9 && v <= 1e9 ? static_cast<long long>(v) : fallback;
}

std::string stringOr(const json& object, const char* key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// "Meta-Llama-3-70B" for ".../Meta-Llama-3-70B/config.json", else the file name without ".json".
std::string hfModelName(const std::string& path)
{
    namespace fs = std::filesystem;
    const fs::path p(path);
    if (p.filename() == "config.json" && p.has_parent_path() && !p.parent_path().filename().empty())
        return p.parent_path().filename().string();
    std::string stem = p.stem().string();
    if (stem.size() > 7 && stem.substr(stem.size() - 7) == ".config")
        stem.resize(stem.size() - 7);
    return stem;
}

// A flag value as JSON: integers and booleans where the field is numeric or on/off.
json flagValue(const std::string& key, const std::string& text)
{
    if (key == "sp" || key == "flash-attention" || key == "tp-comm-overlap" || key == "dp-overlap"
        || key == "p2p-overlap" || key == "parallel-block") {
        if (text == "on" || text == "true" || text == "1")
            return true;
        if (text == "off" || text == "false" || text == "0")
            return false;
        throw UsageError("--" + key + ": expected on or off, got \"" + text + "\"");
    }
    std::size_t used = 0;
    double v = 0;
    try {
        v = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size())
        throw UsageError("--" + key + ": expected a number, got \"" + text + "\"");
    if (std::floor(v) == v && std::fabs(v) < 1e15)
        return static_cast<long long>(v);
    return v;
}
// SCENARIO.md second release: --mode, --weight-dtype, --kv-dtype, --context-len, --isl, --osl,
// --concurrency (a number or max), --gpu-memory-utilization; speculative decoding --speculative-tokens,
// --draft-acceptance, --draft-model (a model preset; without it the model's MTP module drafts),
// --speculative-method mtp|draft_model|eagle3.
void applyInferenceFlags(const Args& args, json& doc)
{
    if (args.has("mode")) {
        // A training scenario switched to serving by flag starts from one replica of tp GPUs: its
        // pipeline, context and expert degrees were chosen for training.
        if (args.value("mode") == "inference" && doc.value("mode", "training") != "inference") {
            for (const char* key : { "pp", "vpp", "cp", "ep", "etp" }) {
                if (!args.has(key) && doc["parallel"].is_object())
                    doc["parallel"][key] = 1;
            }
            if (doc["parallel"].is_object())
                doc["parallel"]["schedule"] = "1f1b";
        }
        doc["mode"] = args.value("mode");
    }
    const std::vector<std::pair<std::string, std::string>> flags { { "weight-dtype", "weight_dtype" },
        { "kv-dtype", "kv_dtype" }, { "context-len", "context_len" }, { "isl", "isl" }, { "osl", "osl" },
        { "concurrency", "concurrency" }, { "gpu-memory-utilization", "gpu_memory_utilization" },
        { "speculative-tokens", "speculative_tokens" }, { "draft-acceptance", "draft_acceptance" },
        { "draft-model", "draft_model" }, { "speculative-method", "speculative_method" } };
    for (const auto& [flag, key] : flags) {
        if (!args.has(flag))
            continue;
        const std::string v = args.value(flag);
        const bool text = flag == "weight-dtype" || flag == "kv-dtype" || flag == "draft-model"
            || flag == "speculative-method" || (flag == "concurrency" && v == "max");
        doc["inference"][key] = text ? json(v) : flagValue(flag, v);
    }
}
} // namespace

core::Scenario scenarioFromArgs(const Args& args)
{
    json doc;
    if (!args.positional().empty()) {
        if (args.positional().size() > 1)
            throw UsageError("expected one scenario file, got " + std::to_string(args.positional().size()));
        doc = parseJsonFile(args.positional().front());
    } else {
        const auto* preset = core::PresetLibrary::instance().scenario(core::kDefaultScenarioPreset);
        if (!preset)
            throw UsageError("the default scenario preset is missing from this build");
        doc = json::parse(preset->json);
    }
    if (!doc.is_object())
        throw UsageError("the scenario must be a JSON object");

    if (args.has("model")) {
        const std::string m = args.value("model");
        if (m.size() > 5 && m.substr(m.size() - 5) == ".json") {
            json model = parseJsonFile(m);
            if (core::HfConfigReader::looksLikeHfConfig(model)) {
                std::string error;
                const auto converted = core::HfConfigReader::toModelJson(model, hfModelName(m), error);
                if (!converted)
                    throw UsageError("--model " + m + ": " + error);
                model = *converted;
            }
            doc["model"] = model;
        } else
            doc["model"] = m;
    }
    if (args.has("parallel-block")) {
        // A model field: a preset named by id becomes its own object with the block switched.
        json& model = doc["model"];
        if (model.is_string()) {
            const std::optional<core::ModelSpec> preset
                = core::PresetLibrary::instance().model(model.get<std::string>());
            if (!preset)
                throw UsageError("--parallel-block: unknown model preset \"" + model.get<std::string>() + "\"");
            model = core::modelSpecToJson(*preset);
        }
        if (!model.is_object())
            throw UsageError("--parallel-block: the scenario's model must be a preset id or an object");
        model["parallel_block"] = flagValue("parallel-block", args.value("parallel-block"));
    }
    const bool clusterFlags = args.has("gpu") || args.has("nodes") || args.has("gpus-per-node") || args.has("nic-gbps");
    if (clusterFlags) {
        json& c = doc["cluster"];
        if (!c.is_object() || c.contains("topology"))
            c = json { { "gpu", "h100-sxm" }, { "nodes", 1 }, { "gpus_per_node", 8 } };
        if (args.has("gpu"))
            c["gpu"] = args.value("gpu");
        if (args.has("nodes"))
            c["nodes"] = flagValue("nodes", args.value("nodes"));
        if (args.has("gpus-per-node"))
            c["gpus_per_node"] = flagValue("gpus-per-node", args.value("gpus-per-node"));
        if (args.has("nic-gbps"))
            section(c, "ib", "cluster.ib")["nic_gbps"] = flagValue("nic-gbps", args.value("nic-gbps"));
    }
    const std::vector<std::pair<std::string, std::string>> parallel { { "tp", "tp" }, { "sp", "sp" }, { "pp", "pp" },
        { "vpp", "vpp" }, { "dp", "dp" }, { "ep", "ep" }, { "etp", "etp" }, { "cp", "cp" },
        { "cp-a2a-size", "cp_a2a_size" }, { "zero", "zero" }, { "tp-comm-overlap", "tp_comm_overlap" },
        { "dp-overlap", "dp_overlap" }, { "p2p-overlap", "p2p_overlap" }, { "ddp-bucket-size", "ddp_bucket_size" } };
    bool parallelFlags = args.has("schedule") || args.has("order") || args.has("cp-comm-type");
    for (const auto& entry : parallel)
        parallelFlags = parallelFlags || args.has(entry.first);
    json scratch = json::object(); // stands in for `parallel` when no flag touches it
    json& par = parallelFlags ? section(doc, "parallel", "parallel") : scratch;
    for (const auto& [flag, key] : parallel) {
        if (args.has(flag))
            par[key] = flagValue(flag, args.value(flag));
    }
    if (args.has("schedule")) {
        par["schedule"] = args.value("schedule");
        if (!args.has("vpp") && args.value("schedule") != "interleaved-1f1b")
            par["vpp"] = 1; // the other schedules place their own chunks
    }
    if (args.has("order"))
        par["order"] = args.value("order");
    if (args.has("cp-comm-type"))
        par["cp_comm_type"] = args.value("cp-comm-type"); // the scenario reader names a wrong value
    if (args.has("pp") && numberOr(par, "pp", 1) == 1 && !args.has("vpp")) {
        par["vpp"] = 1; // nothing to interleave without a pipeline
        if (!args.has("schedule"))
            par["schedule"] = "1f1b";
    }
    if (args.has("vpp") && !args.has("schedule") && numberOr(par, "vpp", 1) > 1)
        par["schedule"] = "interleaved-1f1b";
    if (args.has("vpp") && !args.has("schedule") && numberOr(par, "vpp", 1) == 1
        && stringOr(par, "schedule") == "interleaved-1f1b")
        par["schedule"] = "1f1b";
    const std::vector<std::pair<std::string, std::string>> training { { "micro-batch", "micro_batch" },
        { "global-batch", "global_batch" }, { "seq-len", "seq_len" }, { "flash-attention", "flash_attention" } };
    bool trainingFlags = args.has("recompute") || args.has("dtype");
    for (const auto& entry : training)
        trainingFlags = trainingFlags || args.has(entry.first);
    json& train = trainingFlags ? section(doc, "training", "training") : scratch;
    for (const auto& [flag, key] : training) {
        if (args.has(flag))
            train[key] = flagValue(flag, args.value(flag));
    }
    if (args.has("recompute"))
        train["recompute"] = args.value("recompute");
    if (args.has("dtype"))
        train["dtype"] = args.value("dtype");

    applyInferenceFlags(args, doc);

    core::LoadError error;
    // dumpJsonSafely: a flag may carry bytes that are not UTF-8; the reader then names the field.
    auto scenario = core::parseScenario(core::io::dumpJsonSafely(doc), error);
    if (!scenario) {
        // A field with a wrong value is an invalid configuration (exit 1); unparsable input is usage.
        if (!error.path.empty())
            throw InvalidConfigError(error.text());
        throw UsageError(error.text());
    }
    // Flags that change the cluster or the other degrees but not dp: fill dp from the GPU count.
    if (!args.has("dp") && (clusterFlags || args.has("tp") || args.has("pp") || args.has("cp"))) {
        const int gpus = scenario->topology.gpuCount();
        const int rest = scenario->parallel.tp * scenario->parallel.cp * scenario->parallel.pp;
        if (rest > 0 && gpus % rest == 0)
            scenario->parallel.dp = gpus / rest;
    }
    if (args.has("seq-len") || !args.positional().empty() || clusterFlags)
        scenario->name = args.positional().empty() ? scenario->model.name + " on "
                + std::to_string(scenario->topology.gpuCount()) + " x " + scenario->topology.domains.front().gpu.name
                                                   : scenario->name;
    return *scenario;
}

std::optional<core::Calibration> calibrationFromArgs(const Args& args)
{
    if (!args.has("calibration"))
        return std::nullopt;
    std::string error;
    auto c = core::loadCalibrationFile(args.value("calibration"), error);
    if (!c)
        throw UsageError("--calibration: " + error);
    return c;
}

} // namespace parallax::cli
