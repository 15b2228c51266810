// SPDX-License-Identifier: Apache-2.0
#include "core/launch/LaunchArgsImporter.h"

#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/launch/FrameworkGaps.h"
#include "core/launch/LaunchMarker.h"
#include "core/model/LayerListFlag.h"
#include "core/model/MoeLayerPattern.h"
#include "core/parallel/PipelineLayout.h"
#include "core/parallel/StageLayout.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace parallax::core {

using nlohmann::json;

namespace {
struct ImportError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Words of a shell or Python line: quotes group, '#' outside quotes ends the line, '\' and the
// bash-array brackets are dropped.
std::vector<std::string> words(const std::string& line)
{
    std::vector<std::string> out;
    std::string cur;
    char quote = 0;
    bool any = false;
    for (char c : line) {
        if (quote) {
            if (c == quote)
                quote = 0;
            else
                cur += c;
            continue;
        }
        if (c == '"' || c == '\'') {
            quote = c;
            any = true;
        } else if (c == '#') {
            break;
        } else if (std::isspace(static_cast<unsigned char>(c)) || c == '\\') {
            if (any || !cur.empty())
                out.push_back(cur);
            cur.clear();
            any = false;
        } else {
            cur += c;
        }
    }
    if (any || !cur.empty())
        out.push_back(cur);
    return out;
}

std::string dashed(std::string key)
{
    for (char& c : key)
        c = c == '_' ? '-' : c;
    return key;
}

// NeMo (MegatronStrategy, TransformerConfig, data module) names to Megatron-LM flag names.
const std::map<std::string, std::string>& nemoKeys()
{
    static const std::map<std::string, std::string> keys {
        { "tensor_model_parallel_size", "tensor-model-parallel-size" },
        { "pipeline_model_parallel_size", "pipeline-model-parallel-size" },
        { "virtual_pipeline_model_parallel_size", "num-virtual-stages-per-pipeline-rank" },
        { "num_layers_in_first_pipeline_stage", "decoder-first-pipeline-num-layers" },
        { "num_layers_in_last_pipeline_stage", "decoder-last-pipeline-num-layers" },
        { "account_for_embedding_in_pipeline_split", "account-for-embedding-in-pipeline-split" },
        { "account_for_loss_in_pipeline_split", "account-for-loss-in-pipeline-split" },
        { "context_parallel_size", "context-parallel-size" },
        { "expert_model_parallel_size", "expert-model-parallel-size" },
        { "expert_tensor_parallel_size", "expert-tensor-parallel-size" },
        { "sequence_parallel", "sequence-parallel" },
        { "micro_batch_size", "micro-batch-size" },
        { "global_batch_size", "global-batch-size" },
        { "seq_length", "seq-length" },
        { "num_layers", "num-layers" },
        { "hidden_size", "hidden-size" },
        { "ffn_hidden_size", "ffn-hidden-size" },
        { "num_attention_heads", "num-attention-heads" },
        { "num_query_groups", "num-query-groups" },
        { "kv_channels", "kv-channels" },
        { "recompute_granularity", "recompute-granularity" },
        { "recompute_method", "recompute-method" },
        { "recompute_num_layers", "recompute-num-layers" },
        { "use_distributed_optimizer", "use-distributed-optimizer" },
        { "overlap_grad_reduce", "overlap-grad-reduce" },
        { "overlap_param_gather", "overlap-param-gather" },
        { "bucket_size", "ddp-bucket-size" },
        { "tp_comm_overlap", "tp-comm-overlap" },
        { "num_moe_experts", "num-experts" },
        { "moe_router_topk", "moe-router-topk" },
        { "moe_ffn_hidden_size", "moe-ffn-hidden-size" },
        { "moe_shared_expert_intermediate_size", "moe-shared-expert-intermediate-size" },
        { "moe_expert_capacity_factor", "moe-expert-capacity-factor" },
        { "moe_pad_expert_input_to_capacity", "moe-pad-expert-input-to-capacity" },
        { "moe_router_num_groups", "moe-router-num-groups" },
        { "moe_router_group_topk", "moe-router-group-topk" },
        { "moe_token_dispatcher_type", "moe-token-dispatcher-type" },
        { "moe_flex_dispatcher_backend", "moe-flex-dispatcher-backend" },
        { "moe_enable_deepep", "moe-enable-deepep" },
        { "moe_deepep_num_sms", "moe-deepep-num-sms" },
        { "mtp_num_layers", "mtp-num-layers" },
        { "num_nodes", "nnodes" },
        { "num_gpus_per_node", "nproc-per-node" },
        { "devices", "nproc-per-node" },
        { "vocab_size", "vocab-size" },
        { "max_position_embeddings", "max-position-embeddings" },
        { "fp8", "fp8-format" },
        { "use_precision_aware_optimizer", "use-precision-aware-optimizer" },
    };
    return keys;
}

using Flags = std::map<std::string, std::string>;

// NeMo settings whose Megatron-LM counterpart is a switch of the opposite sense or a different name.
bool nemoSwitch(const std::string& key, std::string value, Flags& flags)
{
    while (!value.empty() && (value.back() == ',' || value.back() == ')'))
        value.pop_back();
    const bool yes = value == "True" || value == "true";
    const bool no = value == "False" || value == "false";
    if (key == "gated_linear_unit") {
        if (yes)
            flags["swiglu"] = "1";
    } else if (key == "share_embeddings_and_output_weights") {
        if (no)
            flags["untie-embeddings-and-output-weights"] = "1";
    } else if (key == "add_bias_linear") {
        if (no)
            flags["disable-bias-linear"] = "1";
    } else if (key == "grad_reduce_in_fp32") {
        if (no)
            flags["grad-reduce-in-bf16"] = "1";
    } else if (key == "activation_func_fp8_input_store") {
        if (yes)
            flags["activation-func-fp8-input-store"] = "1";
    } else if (key == "store_param_remainders") {
        if (no)
            flags["no-store-param-remainders"] = "1";
    } else if (key == "main_params_dtype" || key == "main_grads_dtype" || key == "exp_avg_dtype"
        || key == "exp_avg_sq_dtype") {
        // OptimizerConfig holds torch dtypes; Megatron-LM's flags spell them fp32 / fp16 / bf16 / fp8.
        StateDType d = StateDType::Fp32;
        flags[dashed(key)] = parseStateDType(value, d) ? toString(d) : value;
    } else if (key == "use_tp_pp_dp_mapping") {
        if (yes)
            flags["use-tp-pp-dp-mapping"] = "1";
    } else if (key == "fsdp") {
        if (value == "megatron")
            flags["use-megatron-fsdp"] = "1";
        else if (value == "pytorch")
            flags["use-torch-fsdp2"] = "1";
    } else if (key == "num_query_groups") {
        flags["group-query-attention"] = "1";
        flags["num-query-groups"] = value;
    } else if (key == "kv_lora_rank") {
        flags["multi-latent-attention"] = "1";
        flags["kv-lora-rank"] = value;
    } else if (key == "attention_backend") {
        const auto dot = value.rfind('.');
        flags["attention-backend"] = dot == std::string::npos ? value : value.substr(dot + 1);
    } else if (key == "position_embedding_type" || key == "normalization" || key == "attention_dropout"
        || key == "hidden_dropout" || key == "data_parallel_sharding_strategy" || key == "moe_layer_freq"
        || key == "q_lora_rank" || key == "qk_head_dim" || key == "qk_pos_emb_head_dim" || key == "v_head_dim"
        || key == "window_attn_skip_freq" || key == "cp_comm_type") {
        flags[dashed(key)] = value;
    } else {
        return false;
    }
    return true;
}

Flags collectFlags(const std::string& text)
{
    Flags flags;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const auto w = words(line);
        for (std::size_t i = 0; i < w.size(); ++i) {
            const std::string& a = w[i];
            if (a.rfind("--", 0) == 0 && a.size() > 2) {
                std::string key = a.substr(2);
                std::string value = "1";
                if (const auto eq = key.find('='); eq != std::string::npos) {
                    value = key.substr(eq + 1);
                    key = key.substr(0, eq);
                } else if (i + 1 < w.size() && w[i + 1].rfind("--", 0) != 0 && w[i + 1] != ")") {
                    value = w[++i];
                    // --recompute-modules, --cp-comm-type and --hierarchical-context-parallel-sizes take lists
                    // (nargs='*' and '+', megatron/training/arguments.py).
                    while ((key == "recompute-modules" || key == "cp-comm-type"
                               || key == "hierarchical-context-parallel-sizes")
                        && i + 1 < w.size() && w[i + 1].rfind("--", 0) != 0 && w[i + 1] != ")")
                        value += " " + w[++i];
                }
                flags[dashed(key)] = value;
                continue;
            }
            // NeMo: a.b.key=value, or Python "a.b.key = value".
            std::string key, value;
            if (const auto eq = a.find('='); eq != std::string::npos && eq > 0 && a.back() != '(') {
                key = a.substr(0, eq);
                value = a.substr(eq + 1);
            } else if (i + 2 < w.size() && w[i + 1] == "=") {
                key = a;
                value = w[i + 2];
                i += 2;
            } else {
                continue;
            }
            const auto dot = key.rfind('.');
            const std::string last = dot == std::string::npos ? key : key.substr(dot + 1);
            // A Python list or tuple: the rest of the line. recompute_modules' and cp_comm_type's names as
            // Megatron's space-separated list, window_size's (left, right) as its "W,0", a window_attn_skip_freq
            // list as Megatron's list expression.
            const bool names = last == "recompute_modules" || last == "cp_comm_type"
                || last == "hierarchical_context_parallel_sizes";
            const bool layerList = last == "window_attn_skip_freq" && !value.empty() && value.front() == '[';
            if (names || layerList || last == "window_size") {
                for (std::size_t j = i + 1; j < w.size(); ++j)
                    value += " " + w[j];
                std::string items;
                for (char ch : value) {
                    const bool bracket = ch == '[' || ch == ']' || ch == '(' || ch == ')';
                    if (names && (bracket || ch == ','))
                        items += " ";
                    else if (ch != ' ' && (layerList || !bracket))
                        items += ch;
                }
                flags[dashed(last)] = items;
                break;
            }
            if (nemoSwitch(last, value, flags))
                continue;
            const auto it = nemoKeys().find(last);
            if (it == nemoKeys().end())
                continue;
            while (!value.empty() && (value.back() == ',' || value.back() == ')'))
                value.pop_back();
            if (value == "True" || value == "true")
                value = "1";
            if (value == "False" || value == "false" || value == "None")
                continue;
            flags[it->second] = value;
        }
    }
    return flags;
}

class FlagReader {
public:
    explicit FlagReader(const Flags& f)
        : m_f(f)
    {
    }
    bool has(const std::string& k)
    {
        m_used.insert(k);
        return m_f.count(k) > 0;
    }
    std::string text(const std::string& k, const std::string& fallback) { return has(k) ? m_f.at(k) : fallback; }
    long long integer(const std::string& k, long long fallback)
    {
        if (!has(k))
            return fallback;
        const std::string& v = m_f.at(k);
        std::size_t used = 0;
        long long out = 0;
        try {
            out = std::stoll(v, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != v.size() || out < 0)
            throw ImportError("--" + k + ": expected a non-negative integer, got \"" + v + "\"");
        return out;
    }
    long long required(const std::string& k, const std::string& why)
    {
        if (!has(k))
            throw ImportError("--" + k + " is missing: " + why);
        return integer(k, 0);
    }
    double number(const std::string& k, double fallback)
    {
        if (!has(k))
            return fallback;
        try {
            return std::stod(m_f.at(k));
        } catch (const std::exception&) {
            throw ImportError("--" + k + ": expected a number, got \"" + m_f.at(k) + "\"");
        }
    }
    std::vector<std::string> unused() const
    {
        std::vector<std::string> out;
        for (const auto& [k, v] : m_f) {
            if (!m_used.count(k))
                out.emplace_back("--" + k);
        }
        return out;
    }

private:
    const Flags& m_f;
    std::set<std::string> m_used;
};

// --moe-layer-freq as the engine's placement: a dense prefix, then MoE on every step-th layer.
MoePlacement placementFromLayerFreq(const std::string& v, int layers)
{
    std::string error;
    const std::vector<int> pattern = expandMoeLayerFreq(v, layers, error);
    if (pattern.empty())
        throw ImportError(error);
    const auto placement = moePlacementOf(pattern);
    if (!placement)
        throw ImportError("--moe-layer-freq " + v
            + ": Parallax models MoE layers as a dense prefix and then every N-th layer (\"([0]*3+[1]*58)\", "
              "\"([0,1]*24)\"); this pattern is neither");
    return *placement;
}

// --window-attn-skip-freq as the engine's pattern (ModelSpec::slidingWindowPattern): an integer N as it is (a
// full-attention layer after N - 1 windowed ones), or a list of 0/1 per layer (1: windowed) that windows every
// layer (0) or all but every N-th.
int windowPatternFromSkipFreq(const std::string& v, int layers)
{
    if (!v.empty() && v.size() < 9
        && std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
        if (std::stoi(v) < 1)
            throw ImportError("--window-attn-skip-freq " + v + ": an integer frequency must be at least 1");
        return std::stoi(v);
    }
    std::string error;
    const std::vector<int> windowed = expandLayerList("--window-attn-skip-freq", v, layers, error);
    if (windowed.empty())
        throw ImportError(error);
    const auto full = std::find(windowed.begin(), windowed.end(), 0);
    if (full == windowed.end())
        return 0;
    const int every = static_cast<int>(full - windowed.begin()) + 1;
    for (int l = 0; l < layers; ++l) {
        if ((windowed[l] == 1) != ((l + 1) % every != 0))
            throw ImportError("--window-attn-skip-freq " + v
                + ": Parallax models full attention on every N-th layer (\"[1,1,1,0]*12\"), on none or on all; "
                  "this pattern is none of these");
    }
    return every;
}

json modelJson(FlagReader& f, std::vector<std::string>& notes)
{
    const long long layers = f.required("num-layers", "give the model depth");
    const long long hidden = f.required("hidden-size", "give the model width");
    const long long heads = f.required("num-attention-heads", "give the attention heads");
    const long long seq = f.required("seq-length", "give the training sequence length");
    json m { { "name", "imported (" + std::to_string(layers) + " layers, hidden " + std::to_string(hidden) + ")" },
        { "layers", layers }, { "hidden", hidden }, { "heads", heads },
        { "ffn_hidden", f.integer("ffn-hidden-size", 4 * hidden) },
        { "vocab", f.required("vocab-size", "the vocabulary comes from the tokenizer; add --vocab-size N") },
        { "seq_len", f.integer("max-position-embeddings", seq) }, { "activation", f.has("swiglu") ? "swiglu" : "gelu" },
        // Megatron-LM defaults: tied embeddings, biases, learned absolute positions, dropout 0.1.
        { "tied_embeddings", !f.has("untie-embeddings-and-output-weights") },
        { "learned_position_embeddings", f.text("position-embedding-type", "learned_absolute") == "learned_absolute" },
        { "biases", !f.has("disable-bias-linear") },
        { "dropout",
            std::max(f.number("attention-dropout", 0.1), f.number("hidden-dropout", 0.1)) > 0 } }; // both flags read
    const bool gqa = f.has("group-query-attention");
    m["kv_heads"] = gqa ? f.integer("num-query-groups", 1) : heads;
    if (f.has("kv-channels"))
        m["head_dim"] = f.integer("kv-channels", 0);
    if (f.has("multi-latent-attention")) {
        // Megatron-LM's MLA defaults (arguments.py): kv_lora_rank 32, qk_head_dim 128, qk_pos_emb_head_dim 64,
        // v_head_dim 128.
        m["mla"] = { { "q_lora_rank", f.integer("q-lora-rank", 0) }, { "kv_lora_rank", f.integer("kv-lora-rank", 32) },
            { "qk_nope_head_dim", f.integer("qk-head-dim", 128) },
            { "qk_rope_head_dim", f.integer("qk-pos-emb-head-dim", 64) },
            { "v_head_dim", f.integer("v-head-dim", 128) } };
        m["kv_heads"] = heads;
    }
    if (f.has("num-experts")) {
        const long long width = f.integer("moe-ffn-hidden-size", m["ffn_hidden"].get<long long>());
        const long long sharedWidth = f.integer("moe-shared-expert-intermediate-size", 0);
        if (width > 0 && sharedWidth % width != 0)
            throw ImportError("--moe-shared-expert-intermediate-size " + std::to_string(sharedWidth)
                + " is not a multiple of --moe-ffn-hidden-size " + std::to_string(width)
                + "; Parallax sizes shared experts in routed-expert widths");
        m["moe"] = { { "experts", f.integer("num-experts", 0) }, { "top_k", f.integer("moe-router-topk", 2) },
            { "expert_ffn_hidden", width }, { "shared_experts", width > 0 ? sharedWidth / width : 0 },
            { "first_dense_layers", 0 } };
        if (f.has("moe-layer-freq")) {
            const MoePlacement p = placementFromLayerFreq(f.text("moe-layer-freq", "1"), static_cast<int>(layers));
            m["moe"]["first_dense_layers"] = p.firstDenseLayers;
            if (p.layerStep > 1)
                m["moe"]["layer_step"] = p.layerStep;
        }
        if (f.has("moe-router-num-groups") || f.has("moe-router-group-topk")) {
            m["moe"]["router_groups"] = f.integer("moe-router-num-groups", 0);
            m["moe"]["router_group_topk"] = f.integer("moe-router-group-topk", 0);
        }
    }
    if (f.has("window-size")) {
        // --window-size "W,0" (left, right: causal windows only) and --window-attn-skip-freq (an integer or a list).
        const std::string w = f.text("window-size", "");
        static const std::regex causal(R"(\s*\(?\s*([1-9][0-9]{0,8})\s*,\s*0\s*\)?\s*)");
        std::smatch match;
        if (!std::regex_match(w, match, causal))
            throw ImportError("--window-size " + w + ": Parallax reads a causal window \"W,0\" (W tokens back)");
        m["sliding_window"] = std::stoll(match[1].str());
        if (f.has("window-attn-skip-freq"))
            m["sliding_window_pattern"]
                = windowPatternFromSkipFreq(f.text("window-attn-skip-freq", ""), static_cast<int>(layers));
    }
    if (f.has("mtp-num-layers") && f.integer("mtp-num-layers", 0) > 0)
        m["mtp_layers"] = f.integer("mtp-num-layers", 0);
    for (const char* k : { "normalization", "attention-backend", "moe-grouped-gemm", "cp-comm-type" })
        f.has(k);
    if (f.text("attention-backend", "") == "unfused")
        notes.emplace_back(
            "--attention-backend unfused: the attention core runs unfused (training.flash_attention false)");
    return m;
}

// Sets the design's context-parallel communication from --cp-comm-type (one type, or one per layer) and, for a2a+p2p,
// --hierarchical-context-parallel-sizes (the all-to-all level first): a2a, a2a+p2p and all_gather on every layer as
// given, p2p (with all_gather on the windowed layers, megatronCpCommTypes) otherwise. Returns a note where the file
// asks for what the engine does not price as given: a per-layer mix other than all_gather exactly on the windowed
// layers, or a2a+p2p without two sizes whose product is cp.
std::optional<std::string> applyCpCommType(const std::string& given, const std::string& sizes, Scenario& s)
{
    auto collapsed = [](std::vector<std::string> types) {
        if (!types.empty() && std::all_of(types.begin(), types.end(), [&](const auto& t) { return t == types[0]; }))
            types.resize(1);
        return types;
    };
    std::vector<std::string> types;
    std::istringstream in(given);
    for (std::string t; in >> t;)
        types.push_back(t == "allgather" ? "all_gather" : t);
    if (s.parallel.cp <= 1)
        return std::nullopt;
    std::vector<std::string> priced = megatronCpCommTypes(s); // the ring's, with all_gather where windowed
    if (priced.empty())
        priced = { "p2p" };
    const std::vector<std::string> asked = collapsed(types);
    CpCommType one = CpCommType::P2p;
    if (asked == collapsed(priced))
        return std::nullopt;
    if (asked.size() == 1 && parseCpCommType(asked[0], one)) {
        if (one == CpCommType::A2aP2p) {
            std::istringstream levels(sizes);
            long long a2a = 0, ring = 0, extra = 0;
            const long long cp = s.parallel.cp; // each level checked against cp before the product (no overflow)
            if (!(levels >> a2a >> ring) || (levels >> extra) || a2a < 2 || ring < 2 || a2a > cp || ring > cp
                || a2a * ring != cp)
                return std::string("--cp-comm-type a2a+p2p needs --hierarchical-context-parallel-sizes A P")
                    + " with A x P = cp = " + std::to_string(cp) + " (got \"" + sizes + "\"): priced as the p2p ring";
            s.parallel.cpA2aSize = static_cast<int>(a2a);
        }
        s.parallel.cpCommType = one;
        if (one != CpCommType::P2p || !s.model.windowedBelow(s.seqLen()))
            return std::nullopt;
    }
    const std::string shown = types.size() <= 4
        ? given
        : types[0] + " " + types[1] + " ... (" + std::to_string(types.size()) + " per-layer types)";
    return "--cp-comm-type " + shown + ": priced as "
        + (priced.size() == 1 ? (priced[0] == "p2p" ? "the p2p ring" : priced[0] + " on every layer")
                              : "all_gather on the windowed layers and the p2p ring on the others")
        + " (Parallax does not model a per-layer mix of types other than all_gather on the windowed layers, nor the "
          "p2p ring on a windowed layer: Transformer Engine's ring has no windows)";
}

// The preset whose shape equals the imported one, so that a round trip keeps the preset name.
std::string matchingPreset(const json& model, const std::string& hint)
{
    auto shape = [](json j) {
        for (const char* k : { "name", "id", "params", "params_active", "source" })
            j.erase(k);
        if (j.contains("moe") && j["moe"].is_object()) {
            j["moe"].erase("params");
        }
        return j;
    };
    LoadError error;
    const auto parsed = parseModelSpec(model, "model", error);
    if (!parsed)
        return {};
    const json want = shape(modelSpecToJson(*parsed));
    const auto& lib = PresetLibrary::instance();
    if (!hint.empty()) {
        if (const auto m = lib.model(hint); m && shape(modelSpecToJson(*m)) == want)
            return hint;
    }
    for (const auto& m : lib.models()) {
        if (shape(modelSpecToJson(m)) == want)
            return m.id;
    }
    return {};
}
} // namespace

LaunchArgsImporter::Result LaunchArgsImporter::import(const std::string& text, const Defaults& defaults)
{
    Result result;
    try {
        const Flags flags = collectFlags(text);
        if (flags.empty())
            throw ImportError("no Megatron-LM flags (--tensor-model-parallel-size ...) or NeMo overrides found");
        const auto marker = LaunchMarker::parse(text);
        auto mark = [&](const std::string& k, const std::string& fallback) {
            const auto it = marker.find(k);
            return it == marker.end() ? fallback : it->second;
        };
        FlagReader f(flags);
        json doc { { "format", "parallax-scenario" }, { "version", 1 },
            { "name", mark("name", "Imported launch configuration") } };

        json model = modelJson(f, result.notes);
        const std::string preset = matchingPreset(model, mark("model", ""));
        doc["model"] = preset.empty() ? model : json(preset);
        const bool moe = model.contains("moe");
        const int layers = model["layers"].get<int>();

        int nodes = static_cast<int>(f.integer("nnodes", defaults.nodes));
        int perNode = static_cast<int>(f.integer("nproc-per-node", defaults.gpusPerNode));
        // A rack-scale NVLink domain launched per host (LaunchHosts): the marker gives the domain back.
        if (marker.count("gpus_per_domain")) {
            const int domain = std::stoi(marker.at("gpus_per_domain"));
            const long long gpus = static_cast<long long>(nodes) * perNode;
            if (domain > 0 && gpus % domain == 0) {
                nodes = static_cast<int>(gpus / domain);
                perNode = domain;
            }
        }
        json ib { { "nic_gbps", std::stod(mark("nic_gbps", std::to_string(defaults.nicGbps))) },
            { "nics_per_node", std::stoi(mark("nics_per_node", std::to_string(perNode))) } };
        if (marker.count("latency_us"))
            ib["latency_us"] = std::stod(marker.at("latency_us"));
        if (marker.count("oversubscription"))
            ib["oversubscription"] = std::stod(marker.at("oversubscription"));
        if (mark("rail_optimized", "true") == "false")
            ib["rail_optimized"] = false;
        doc["cluster"]
            = { { "gpu", mark("gpu", defaults.gpu) }, { "nodes", nodes }, { "gpus_per_node", perNode }, { "ib", ib } };
        if (marker.count("topology"))
            result.notes.emplace_back(
                "the export came from an explicit topology; the import rebuilds a regular cluster");

        const int tp = static_cast<int>(f.integer("tensor-model-parallel-size", 1));
        const int cp = static_cast<int>(f.integer("context-parallel-size", 1));
        const int pp = static_cast<int>(f.integer("pipeline-model-parallel-size", 1));
        const long long world = static_cast<long long>(nodes) * perNode;
        if (tp < 1 || cp < 1 || pp < 1 || world % (static_cast<long long>(tp) * cp * pp) != 0)
            throw ImportError("tp x cp x pp = " + std::to_string(tp * cp * pp) + " does not divide the "
                + std::to_string(world)
                + " GPUs of --nnodes x --nproc-per-node; give torchrun's --nnodes and --nproc-per-node (or import with "
                  "--nodes / --gpus-per-node)");
        const int dp = static_cast<int>(world / (static_cast<long long>(tp) * cp * pp));
        int vpp = 1;
        if (f.has("num-layers-per-virtual-pipeline-stage")) {
            const long long per = f.integer("num-layers-per-virtual-pipeline-stage", 1);
            if (per < 1 || layers % (per * pp) != 0)
                throw ImportError("--num-layers-per-virtual-pipeline-stage " + std::to_string(per) + " does not divide "
                    + std::to_string(layers) + " layers over pp=" + std::to_string(pp));
            vpp = static_cast<int>(layers / (per * pp));
        } else if (f.has("num-virtual-stages-per-pipeline-rank")) {
            vpp = static_cast<int>(f.integer("num-virtual-stages-per-pipeline-rank", 1));
        }
        const std::string customLayout = f.text("pipeline-model-parallel-layout", "");
        if (!customLayout.empty() && pp > 1 && vpp == 1) {
            // Megatron-Core infers the virtual stages from the layout: its stages / pp.
            std::string layoutError;
            if (const auto stages = parsePipelineLayout(customLayout, layoutError);
                stages && stages->stages() % pp == 0)
                vpp = std::max(1, stages->stages() / static_cast<int>(pp));
        }
        int zero = f.has("use-distributed-optimizer") ? 1 : 0;
        const std::string sharding = f.text("data-parallel-sharding-strategy", "");
        if (f.has("use-megatron-fsdp") || f.has("use-torch-fsdp2"))
            zero = sharding == "optim_grads" ? 2 : sharding == "optim" ? 1 : 3;
        f.has("ckpt-format");
        std::string order = f.has("use-tp-pp-dp-mapping") ? "tp-cp-ep-pp-dp" : "tp-cp-ep-dp-pp";
        order = mark("order", order);
        json parallel { { "tp", tp }, { "sp", f.has("sequence-parallel") }, { "cp", cp }, { "pp", pp }, { "vpp", vpp },
            { "dp", dp }, { "ep", moe ? f.integer("expert-model-parallel-size", 1) : 1 },
            { "zero", std::stoi(mark("zero", std::to_string(zero))) },
            { "schedule", mark("schedule", vpp > 1 ? "interleaved-1f1b" : "1f1b") }, { "order", order } };
        // Megatron-LM: --expert-tensor-parallel-size defaults to the tensor-parallel size.
        const long long etp = f.integer("expert-tensor-parallel-size", tp);
        if (moe && etp != 1)
            parallel["etp"] = etp;
        if (f.has("tp-comm-overlap"))
            parallel["tp_comm_overlap"] = true;
        if (!f.has("overlap-grad-reduce"))
            parallel["dp_overlap"] = false;
        if (f.has("ddp-bucket-size"))
            parallel["ddp_bucket_size"] = f.integer("ddp-bucket-size", 0);
        f.has("overlap-param-gather");
        if (f.has("no-overlap-p2p-communication"))
            parallel["p2p_overlap"] = false;
        if (f.has("grad-reduce-in-bf16"))
            parallel["grad_reduce_fp32"] = false;
        doc["parallel"] = parallel;

        if (f.has("decoder-first-pipeline-num-layers") || f.has("decoder-last-pipeline-num-layers")) {
            // Megatron-Core's uneven split (core/parallel/PipelineSplit.h). Where it equals the split Parallax makes by
            // itself for layers that do not divide by pp (StageLayout), the scenario keeps the implicit form.
            const StageLayout layout(layers, pp);
            const long long first = f.integer("decoder-first-pipeline-num-layers", 0);
            const long long last = f.integer("decoder-last-pipeline-num-layers", 0);
            const bool implicit
                = vpp <= 1 && first == layout.layerCount(0) && last == layout.layerCount(pp - 1) && layers % pp != 0;
            if (!implicit) {
                if (first > 0)
                    doc["parallel"]["first_stage_layers"] = first;
                if (last > 0)
                    doc["parallel"]["last_stage_layers"] = last;
            }
        }
        if (!customLayout.empty())
            doc["parallel"]["pipeline_layout"] = customLayout; // checked by validateScenario
        if (f.has("account-for-embedding-in-pipeline-split"))
            doc["parallel"]["account_for_embedding"] = true;
        if (f.has("account-for-loss-in-pipeline-split"))
            doc["parallel"]["account_for_loss"] = true;

        const long long micro = f.integer("micro-batch-size", 1);
        const std::string granularity = f.text("recompute-granularity", "none");
        if (granularity != "none" && granularity != "selective" && granularity != "full")
            throw ImportError("--recompute-granularity " + granularity + ": expected selective or full");
        f.has("recompute-method");
        f.has("recompute-num-layers");
        f.has("bf16");
        json training { { "micro_batch", micro }, { "global_batch", f.integer("global-batch-size", micro * dp) },
            { "seq_len", f.integer("seq-length", 0) }, { "recompute", granularity },
            { "dtype", f.has("fp8-format") ? "fp8" : "bf16" } };
        if (f.text("attention-backend", "") == "unfused")
            training["flash_attention"] = false;
        if (f.has("activation-func-fp8-input-store"))
            training["activation_func_fp8_input_store"] = true;
        if (mark("deepseek_activation_cache", "false") == "true")
            training["deepseek_activation_cache"] = true;
        if (f.has("moe-expert-capacity-factor"))
            training["moe_expert_capacity_factor"] = f.number("moe-expert-capacity-factor", 0.0);
        if (f.has("moe-pad-expert-input-to-capacity"))
            training["moe_pad_expert_input_to_capacity"] = true;
        // --moe-token-dispatcher-type flex with DeepEP (--moe-flex-dispatcher-backend deepep, or the older
        // --moe-enable-deepep); other dispatchers and the HybridEP backend are priced as the all-to-all.
        const std::string dispatcher = f.text("moe-token-dispatcher-type", "alltoall");
        const std::string backend = f.text("moe-flex-dispatcher-backend", f.has("moe-enable-deepep") ? "deepep" : "");
        if (dispatcher == "flex" && backend == "deepep") {
            training["moe_token_dispatcher"] = "deepep";
            if (f.has("moe-deepep-num-sms"))
                training["moe_deepep_num_sms"] = f.integer("moe-deepep-num-sms", 20);
        } else if (dispatcher != "alltoall") {
            result.notes.push_back("--moe-token-dispatcher-type " + dispatcher
                + (backend.empty() ? "" : " (" + backend + ")") + ": priced as the all-to-all dispatcher");
        }
        f.has("moe-deepep-num-sms");
        if (mark("deepseek_fp8_dispatch", "false") == "true")
            training["deepseek_fp8_dispatch"] = true;
        if (f.has("recompute-modules")) {
            const std::string given = f.text("recompute-modules", "");
            std::istringstream names(given == "1" ? std::string() : given); // "1": the flag with no names
            json list = json::array();
            for (std::string name; names >> name;)
                list.push_back(name);
            training["recompute_modules"] = list; // checked by the scenario reader, field by field
        }
        json optimizer = json::object(); // checked by the scenario reader and validateScenario
        if (f.has("use-precision-aware-optimizer"))
            optimizer["precision_aware"] = true;
        for (OptimizerField field : kOptimizerFields) {
            if (f.has(megatronFlag(field).substr(2)))
                optimizer[fieldKey(field)] = f.text(megatronFlag(field).substr(2), "fp32");
        }
        if (f.has("no-store-param-remainders"))
            optimizer["store_param_remainders"] = false;
        if (!optimizer.empty())
            training["optimizer"] = optimizer;
        f.has("fp8-recipe");
        doc["training"] = training;

        const std::string cpLevels = f.text("hierarchical-context-parallel-sizes", ""); // read below, with the type
        for (const auto& u : f.unused())
            result.notes.push_back(u + ": not modelled by Parallax, ignored");
        LoadError error;
        result.scenario = parseScenario(doc.dump(), error);
        if (!result.scenario)
            throw ImportError(error.text());
        if (f.has("cp-comm-type")) {
            if (auto note = applyCpCommType(f.text("cp-comm-type", ""), cpLevels, *result.scenario))
                result.notes.push_back(*note);
        }
    } catch (const std::exception& e) {
        result.scenario.reset();
        result.error = e.what();
    }
    return result;
}

} // namespace parallax::core
