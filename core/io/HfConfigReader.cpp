// SPDX-License-Identifier: Apache-2.0
#include "core/io/HfConfigReader.h"

#include "core/io/ScenarioIo.h"
#include "core/model/MoeLayerPattern.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace parallax::core {

using nlohmann::json;

namespace {
struct HfError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Typed access with the config key in every message.
class Fields {
public:
    explicit Fields(const json& j)
        : m_j(j)
    {
    }
    bool has(const char* key) const { return m_j.contains(key) && !m_j[key].is_null(); }
    long long integer(const char* key) const
    {
        if (!has(key))
            throw HfError(std::string("config.json lacks \"") + key + "\", which this model family needs");
        return integerAt(key);
    }
    long long integer(const char* key, long long fallback) const { return has(key) ? integerAt(key) : fallback; }
    bool boolean(const char* key, bool fallback) const
    {
        if (!has(key))
            return fallback;
        if (!m_j[key].is_boolean())
            throw HfError(std::string("\"") + key + "\" must be true or false");
        return m_j[key].get<bool>();
    }
    double number(const char* key, double fallback) const
    {
        if (!has(key))
            return fallback;
        if (!m_j[key].is_number())
            throw HfError(std::string("\"") + key + "\" must be a number");
        return m_j[key].get<double>();
    }
    std::string string(const char* key, const std::string& fallback) const
    {
        return has(key) && m_j[key].is_string() ? m_j[key].get<std::string>() : fallback;
    }
    const json& raw(const char* key) const { return m_j[key]; }

private:
    long long integerAt(const char* key) const
    {
        const json& v = m_j[key];
        if (!v.is_number_integer() || v.get<long long>() < 0)
            throw HfError(std::string("\"") + key + "\" must be a non-negative integer, got " + v.dump());
        return v.get<long long>();
    }
    const json& m_j;
};

// Training length: the pre-extension context when RoPE scaling stretched it (YaRN, Llama 3.1).
long long trainingSeqLen(const Fields& f)
{
    if (f.has("rope_scaling") && f.raw("rope_scaling").is_object()) {
        const Fields rs(f.raw("rope_scaling"));
        if (rs.has("original_max_position_embeddings"))
            return rs.integer("original_max_position_embeddings");
    }
    return f.integer("max_position_embeddings", 2048);
}

// A 0/1 MoE pattern over the layers as the model object's placement (first_dense_layers, layer_step), or an
// error naming `keys` where no dense prefix and step give it (core/model/MoeLayerPattern.h).
json placementJson(const std::vector<int>& pattern, const std::string& keys)
{
    const auto placement = moePlacementOf(pattern);
    if (!placement)
        throw HfError(keys
            + ": Parallax places MoE layers as a dense prefix and then every N-th layer; this config "
              "places them otherwise");
    json out { { "first_dense_layers", placement->firstDenseLayers } };
    if (placement->layerStep > 1)
        out["layer_step"] = placement->layerStep;
    return out;
}

// The step of an every-step-th-layer rule (decoder_sparse_step, interleave_moe_layer_step), 1 when absent.
int layerStepOf(const Fields& f, const char* key, int layers)
{
    const long long step = f.integer(key, 1);
    if (step < 1 || step > layers)
        throw HfError(
            "\"" + std::string(key) + "\"=" + std::to_string(step) + " must be between 1 and the layer count");
    return static_cast<int>(step);
}

// Layers a config lists (mlp_only_layers, moe_layers), each checked against the layer count.
std::vector<int> listedLayers(const Fields& f, const char* key, int layers)
{
    std::vector<int> out;
    if (!f.has(key) || !f.raw(key).is_array())
        return out;
    for (const auto& v : f.raw(key)) {
        const int l = v.get<int>();
        if (l < 0 || l >= layers)
            throw HfError(
                "\"" + std::string(key) + "\" names layer " + std::to_string(l) + " of " + std::to_string(layers));
        out.push_back(l);
    }
    return out;
}

// Qwen2-MoE / Qwen3-MoE place MoE on layer i when (i + 1) % decoder_sparse_step == 0 and i is not in
// mlp_only_layers (modeling_qwen3_moe.py, Qwen3MoeDecoderLayer).
json qwenMoePlacement(const Fields& f, int layers)
{
    const int step = layerStepOf(f, "decoder_sparse_step", layers);
    std::vector<int> pattern(static_cast<std::size_t>(layers), 0);
    for (int l = step - 1; l < layers; l += step)
        pattern[static_cast<std::size_t>(l)] = 1;
    for (int l : listedLayers(f, "mlp_only_layers", layers))
        pattern[static_cast<std::size_t>(l)] = 0;
    return placementJson(pattern, "\"mlp_only_layers\" with \"decoder_sparse_step\"");
}

// Sliding-window attention as the engine holds it: a window of W tokens on every layer (pattern 0) or on all
// but every N-th (pattern N). Hugging Face states it per layer in layer_types ("sliding_attention" /
// "full_attention", configuration_qwen2.py, configuration_gemma3.py), or as Mistral's one sliding_window for every
// layer (modeling_mistral.py), or as Qwen2's use_sliding_window from max_window_layers on.
json slidingWindowOf(const Fields& f, const std::string& type, int layers)
{
    std::vector<bool> windowed(static_cast<std::size_t>(layers), false);
    if (f.has("layer_types") && f.raw("layer_types").is_array()) {
        const json& kinds = f.raw("layer_types");
        if (static_cast<int>(kinds.size()) != layers)
            throw HfError("\"layer_types\" lists " + std::to_string(kinds.size()) + " layers of "
                + std::to_string(layers) + " (\"num_hidden_layers\")");
        for (std::size_t l = 0; l < kinds.size(); ++l) {
            const std::string kind = kinds[l].is_string() ? kinds[l].get<std::string>() : kinds[l].dump();
            if (kind != "sliding_attention" && kind != "full_attention")
                throw HfError("\"layer_types\"[" + std::to_string(l) + "] is \"" + kind
                    + "\"; Parallax reads sliding_attention and full_attention");
            windowed[l] = kind == "sliding_attention";
        }
    } else if (type == "mistral" || type == "mixtral") {
        std::fill(windowed.begin(), windowed.end(), f.has("sliding_window"));
    } else if (f.boolean("use_sliding_window", false)) {
        const int from = static_cast<int>(std::min<long long>(f.integer("max_window_layers", 0), layers));
        std::fill(windowed.begin() + from, windowed.end(), true);
    }
    if (std::find(windowed.begin(), windowed.end(), true) == windowed.end())
        return json::object();
    const long long window = f.integer("sliding_window");
    // Full attention on every N-th layer (N = the first full layer + 1), or nowhere.
    const auto full = std::find(windowed.begin(), windowed.end(), false);
    const int pattern = full == windowed.end() ? 0 : static_cast<int>(full - windowed.begin()) + 1;
    for (int l = 0; l < layers; ++l) {
        if (windowed[static_cast<std::size_t>(l)] != (pattern == 0 || (l + 1) % pattern != 0))
            throw HfError("the windowed layers (\"layer_types\" / \"use_sliding_window\" from \"max_window_layers\") "
                          "are not all but every N-th layer (layer "
                + std::to_string(l) + "); Parallax places full attention on every N-th layer or none");
    }
    return { { "sliding_window", window }, { "sliding_window_pattern", pattern } };
}

json decoderBase(const Fields& f, const std::string& name)
{
    const long long hidden = f.integer("hidden_size");
    const long long heads = f.integer("num_attention_heads");
    json m { { "name", name }, { "layers", f.integer("num_hidden_layers") }, { "hidden", hidden }, { "heads", heads },
        { "kv_heads", f.integer("num_key_value_heads", heads) }, { "ffn_hidden", f.integer("intermediate_size") },
        { "vocab", f.integer("vocab_size") }, { "seq_len", trainingSeqLen(f) }, { "activation", "swiglu" },
        { "tied_embeddings", f.boolean("tie_word_embeddings", false) } };
    // head_dim is explicit in Qwen3 and Mistral-Nemo configs (q_proj is heads x head_dim wide, not hidden).
    if (f.has("head_dim"))
        m["head_dim"] = f.integer("head_dim");
    return m;
}

json readLlamaFamily(const Fields& f, const std::string& type, const std::string& name)
{
    // modeling_llama.py / modeling_mistral.py / modeling_qwen2.py / modeling_qwen3.py: LlamaMLP-style
    // gate_proj, up_proj, down_proj with act_fn(hidden_act) = SwiGLU for "silu"; RMSNorm, RoPE.
    const std::string act = f.string("hidden_act", "silu");
    if (act != "silu" && act != "swish")
        throw HfError("\"hidden_act\"=\"" + act + "\" with a gated MLP: Parallax knows SwiGLU (silu) only");
    json m = decoderBase(f, name);
    // attention_bias puts biases on q, k, v and o (LlamaAttention); Qwen2 has q/k/v biases always,
    // a few million parameters that the engine leaves out (Parallax's biases flag means GPT-style ones).
    if (f.boolean("attention_bias", false) && f.boolean("mlp_bias", false))
        m["biases"] = true;
    if (type == "mixtral") {
        // modeling_mixtral.py: every layer's MLP is num_local_experts experts of intermediate_size,
        // a bias-free router, top-k = num_experts_per_tok.
        m["moe"] = { { "experts", f.integer("num_local_experts") }, { "top_k", f.integer("num_experts_per_tok") },
            { "expert_ffn_hidden", f.integer("intermediate_size") }, { "shared_experts", 0 },
            { "first_dense_layers", 0 } };
    } else if (type == "qwen2_moe" || type == "qwen3_moe") {
        // modeling_qwen2_moe.py: num_experts of moe_intermediate_size, plus (Qwen2-MoE only) one shared
        // expert of shared_expert_intermediate_size, a whole multiple of the routed width.
        const long long width = f.integer("moe_intermediate_size");
        long long shared = 0;
        if (f.has("shared_expert_intermediate_size") && f.integer("shared_expert_intermediate_size") > 0) {
            const long long sw = f.integer("shared_expert_intermediate_size");
            if (width == 0 || sw % width != 0)
                throw HfError("\"shared_expert_intermediate_size\"=" + std::to_string(sw)
                    + " is not a multiple of \"moe_intermediate_size\"=" + std::to_string(width)
                    + "; Parallax sizes shared experts in routed-expert widths");
            shared = sw / width;
        }
        const int layers = static_cast<int>(f.integer("num_hidden_layers"));
        m["moe"] = { { "experts", f.integer("num_experts") }, { "top_k", f.integer("num_experts_per_tok") },
            { "expert_ffn_hidden", width }, { "shared_experts", shared } };
        m["moe"].update(qwenMoePlacement(f, layers));
    }
    m.update(slidingWindowOf(f, type, static_cast<int>(f.integer("num_hidden_layers"))));
    return m;
}

json readLlama4(const Fields& f, const std::string& name)
{
    // modeling_llama4.py (Llama4TextConfig): MoE on layers range(step - 1, layers, step) for
    // interleave_moe_layer_step = step unless moe_layers lists them; an MoE layer is num_local_experts routed
    // experts of intermediate_size, top num_experts_per_tok, plus one shared expert of the same width
    // (Llama4TextMoe.shared_expert); a dense layer's MLP is intermediate_size_mlp wide. Maverick: 128 experts,
    // top-1, step 2: 400B parameters, 17B active per token. Chunked local attention of attention_chunk_size
    // tokens on the RoPE layers, full attention on every no_rope_layer_interval-th (the NoPE layers).
    const std::string act = f.string("hidden_act", "silu");
    if (act != "silu" && act != "swish")
        throw HfError("\"hidden_act\"=\"" + act + "\" with a gated MLP: Parallax knows SwiGLU (silu) only");
    json m = decoderBase(f, name);
    const int layers = static_cast<int>(f.integer("num_hidden_layers"));
    const long long expertWidth = f.integer("intermediate_size");
    m["ffn_hidden"] = f.integer("intermediate_size_mlp", expertWidth);
    // moe_layers when listed, else every interleave_moe_layer_step-th layer.
    std::vector<int> pattern(static_cast<std::size_t>(layers), 0);
    if (f.has("moe_layers")) {
        for (int l : listedLayers(f, "moe_layers", layers))
            pattern[static_cast<std::size_t>(l)] = 1;
    } else {
        const int step = layerStepOf(f, "interleave_moe_layer_step", layers);
        for (int l = step - 1; l < layers; l += step)
            pattern[static_cast<std::size_t>(l)] = 1;
    }
    m["moe"] = { { "experts", f.integer("num_local_experts") }, { "top_k", f.integer("num_experts_per_tok", 1) },
        { "expert_ffn_hidden", expertWidth }, { "shared_experts", 1 } };
    m["moe"].update(placementJson(pattern, "\"moe_layers\" / \"interleave_moe_layer_step\""));
    if (const long long chunk = f.integer("attention_chunk_size", 0); chunk > 0) {
        m["sliding_window"] = chunk;
        m["sliding_window_pattern"] = f.integer("no_rope_layer_interval", 4);
        m["chunked_attention"] = true;
    }
    return m;
}

json readGptOss(const Fields& f, const std::string& name)
{
    // modeling_gpt_oss.py: every layer's MLP is num_local_experts experts of intermediate_size (a clamped SwiGLU,
    // gate and up fused), top num_experts_per_tok, no shared expert; attention with learned sinks (a scalar per
    // head, left out) and a 128-token sliding window on the layers layer_types names. gpt-oss-120b: 116.8B
    // parameters, 5.1B active (OpenAI's model card).
    json m = decoderBase(f, name);
    m["moe"] = { { "experts", f.integer("num_local_experts") },
        { "top_k", f.integer("num_experts_per_tok", f.integer("experts_per_token", 4)) },
        { "expert_ffn_hidden", f.integer("intermediate_size") }, { "shared_experts", 0 }, { "first_dense_layers", 0 } };
    m.update(slidingWindowOf(f, "gpt_oss", static_cast<int>(f.integer("num_hidden_layers"))));
    return m;
}

json readDeepSeek(const Fields& f, const std::string& name)
{
    // modeling_deepseek_v3.py: the first first_k_dense_replace layers have a dense MLP of
    // intermediate_size; the rest n_routed_experts + n_shared_experts of moe_intermediate_size.
    // MLA: q_a_proj (hidden -> q_lora_rank), q_b_proj, kv_a_proj_with_mqa (hidden -> kv_lora_rank +
    // qk_rope_head_dim), kv_b_proj, o_proj. The multi-token-prediction layers (num_nextn_predict_layers,
    // stored after the last layer) are not part of the causal LM transformers loads, but pre-training runs
    // them (arXiv:2412.19437 sec. 2.2): they become mtp_layers, which serving leaves out.
    json m = decoderBase(f, name);
    m.erase("head_dim");
    if (f.integer("moe_layer_freq", 1) != 1)
        throw HfError("\"moe_layer_freq\" other than 1 interleaves dense and MoE layers; not supported");
    const int layers = static_cast<int>(f.integer("num_hidden_layers"));
    const long long firstDense = f.integer("first_k_dense_replace", 0);
    if (firstDense >= layers)
        throw HfError("\"first_k_dense_replace\" leaves no MoE layer");
    if (f.has("n_routed_experts") && f.integer("n_routed_experts") > 0)
        m["moe"] = { { "experts", f.integer("n_routed_experts") }, { "top_k", f.integer("num_experts_per_tok") },
            { "expert_ffn_hidden", f.integer("moe_intermediate_size") },
            { "shared_experts", f.integer("n_shared_experts", 0) }, { "first_dense_layers", firstDense } };
    // Group-limited routing (modeling_deepseek_v3.py MoEGate: n_group groups, the top topk_group of them;
    // DeepSeek-V2-Lite's n_group 1 is plain top-k).
    if (m.contains("moe") && f.integer("n_group", 1) > 1 && f.integer("topk_group", 0) > 0) {
        m["moe"]["router_groups"] = f.integer("n_group");
        m["moe"]["router_group_topk"] = f.integer("topk_group");
    }
    m["mla"] = { { "q_lora_rank", f.integer("q_lora_rank", 0) }, { "kv_lora_rank", f.integer("kv_lora_rank") },
        { "qk_nope_head_dim", f.integer("qk_nope_head_dim") }, { "qk_rope_head_dim", f.integer("qk_rope_head_dim") },
        { "v_head_dim", f.integer("v_head_dim") } };
    m["kv_heads"] = m["heads"];
    if (f.integer("num_nextn_predict_layers", 0) > 0)
        m["mtp_layers"] = f.integer("num_nextn_predict_layers", 0);
    return m;
}

json readGpt2(const Fields& f, const std::string& name)
{
    // modeling_gpt2.py: c_attn / c_proj / c_fc with biases, learned wpe of n_positions, LayerNorm with
    // bias, GELU MLP of n_inner (default 4 x n_embd), lm_head tied to wte.
    const long long hidden = f.integer("n_embd");
    const double drop = f.number("resid_pdrop", 0.1) + f.number("attn_pdrop", 0.1) + f.number("embd_pdrop", 0.1);
    return { { "name", name }, { "layers", f.integer("n_layer") }, { "hidden", hidden },
        { "heads", f.integer("n_head") }, { "ffn_hidden", f.integer("n_inner", 4 * hidden) },
        { "vocab", f.integer("vocab_size") }, { "seq_len", f.integer("n_positions", 1024) }, { "activation", "gelu" },
        { "tied_embeddings", true }, { "learned_position_embeddings", true }, { "biases", true },
        { "dropout", drop > 0 } };
}

json readGptNeox(const Fields& f, const std::string& name)
{
    // modeling_gpt_neox.py: fused query_key_value and dense with biases (attention_bias, default true),
    // GELU MLP dense_h_to_4h / dense_4h_to_h with biases, LayerNorm, rotary positions, an untied
    // embed_out unless tie_word_embeddings.
    const std::string act = f.string("hidden_act", "gelu");
    if (act.rfind("gelu", 0) != 0)
        throw HfError("\"hidden_act\"=\"" + act + "\": Parallax models GELU MLPs for GPT-NeoX");
    const double drop = f.number("hidden_dropout", 0.0) + f.number("attention_dropout", 0.0);
    return { { "name", name }, { "layers", f.integer("num_hidden_layers") }, { "hidden", f.integer("hidden_size") },
        { "heads", f.integer("num_attention_heads") }, { "ffn_hidden", f.integer("intermediate_size") },
        { "vocab", f.integer("vocab_size") }, { "seq_len", f.integer("max_position_embeddings", 2048) },
        { "activation", "gelu" }, { "tied_embeddings", f.boolean("tie_word_embeddings", false) },
        { "biases", f.boolean("attention_bias", true) }, { "dropout", drop > 0 },
        // use_parallel_residual (default true): x + attn(ln1(x)) + mlp(ln2(x)). Its two norms read the same x;
        // the engine's parallel block has one (a norm pass and one saved h-wide tensor fewer).
        { "parallel_block", f.boolean("use_parallel_residual", true) } };
}
json readFalcon(const Fields& f, const std::string& name)
{
    // modeling_falcon.py: fused query_key_value (multi_query: one K/V head; new_decoder_architecture:
    // num_kv_heads groups), dense_h_to_4h / dense_4h_to_h GELU MLP of ffn_hidden_size (default 4h), LayerNorm,
    // rotary positions (alibi refused), lm_head tied to word_embeddings; parallel_attn (default true) runs
    // attention and MLP side by side from the same input (Falcon-40B/180B give each its own LayerNorm).
    if (f.boolean("alibi", false))
        throw HfError("\"alibi\"=true: Parallax models rotary Falcon checkpoints only");
    const long long hidden = f.integer("hidden_size");
    const long long heads = f.integer("num_attention_heads");
    const long long kvHeads = f.boolean("new_decoder_architecture", false) ? f.integer("num_kv_heads", heads)
        : f.boolean("multi_query", true)                                   ? 1
                                                                           : heads;
    const double drop = f.number("hidden_dropout", 0.0) + f.number("attention_dropout", 0.0);
    return { { "name", name }, { "layers", f.integer("num_hidden_layers") }, { "hidden", hidden }, { "heads", heads },
        { "kv_heads", kvHeads }, { "ffn_hidden", f.integer("ffn_hidden_size", 4 * hidden) },
        { "vocab", f.integer("vocab_size") }, { "seq_len", f.integer("max_position_embeddings", 2048) },
        { "activation", "gelu" }, { "tied_embeddings", f.boolean("tie_word_embeddings", true) },
        { "biases", f.boolean("bias", false) }, { "dropout", drop > 0 },
        { "parallel_block", f.boolean("parallel_attn", true) } };
}

json readGptJ(const Fields& f, const std::string& name)
{
    // modeling_gptj.py: q/k/v/out projections without biases, fc_in / fc_out GELU MLP of n_inner (default
    // 4 x n_embd) with biases, one LayerNorm feeding attention and MLP in parallel (GPTJBlock), rotary on
    // rotary_dim of each head, an untied lm_head. The engine's biases flag is all-or-nothing: left off.
    const long long hidden = f.integer("n_embd");
    const double drop = f.number("resid_pdrop", 0.0) + f.number("attn_pdrop", 0.0) + f.number("embd_pdrop", 0.0);
    return { { "name", name }, { "layers", f.integer("n_layer") }, { "hidden", hidden },
        { "heads", f.integer("n_head") }, { "ffn_hidden", f.integer("n_inner", 4 * hidden) },
        { "vocab", f.integer("vocab_size") }, { "seq_len", f.integer("n_positions", 2048) }, { "activation", "gelu" },
        { "tied_embeddings", f.boolean("tie_word_embeddings", false) }, { "dropout", drop > 0 },
        { "parallel_block", true } };
}
} // namespace

bool HfConfigReader::looksLikeHfConfig(const json& j)
{
    return j.is_object() && (j.contains("model_type") || j.contains("architectures")) && !j.contains("layers");
}

std::optional<json> HfConfigReader::toModelJson(const json& config, const std::string& name, std::string& error)
{
    if (!config.is_object()) {
        error = "config.json must be a JSON object";
        return std::nullopt;
    }
    // Multimodal wrappers (Llama 4, Qwen2-VL, ...) keep the language model under text_config.
    const json& j
        = config.contains("text_config") && config["text_config"].is_object() ? config["text_config"] : config;
    for (const json* o : { &j, &config }) {
        if (o->contains("model_type") && !(*o)["model_type"].is_string()) {
            error = "model_type must be a string such as \"llama\" (found "
                + std::string((*o)["model_type"].type_name()) + ")";
            return std::nullopt;
        }
    }
    std::string type = j.value("model_type", config.value("model_type", std::string()));
    if (type.empty() && config.contains("architectures") && config["architectures"].is_array()
        && !config["architectures"].empty() && config["architectures"][0].is_string()) {
        const std::string arch = config["architectures"][0].get<std::string>();
        for (const char* known : { "Llama", "Llama4", "Mistral", "Mixtral", "Qwen2", "Qwen3", "DeepseekV3", "GPT2",
                 "GPTNeoX", "Falcon", "GPTJ", "GptOss" }) {
            if (arch.rfind(known, 0) == 0)
                type = known;
        }
        std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::tolower(c); });
        if (type == "deepseekv3")
            type = "deepseek_v3";
        if (type == "gptneox")
            type = "gpt_neox";
        if (type == "gptoss")
            type = "gpt_oss";
    }
    try {
        const Fields f(j);
        json m;
        if (type == "llama" || type == "mistral" || type == "mixtral" || type == "qwen2" || type == "qwen3"
            || type == "qwen2_moe" || type == "qwen3_moe")
            m = readLlamaFamily(f, type, name);
        else if (type == "llama4_text" || type == "llama4")
            m = readLlama4(f, name);
        else if (type == "deepseek_v3" || type == "deepseek_v2")
            m = readDeepSeek(f, name);
        else if (type == "gpt2")
            m = readGpt2(f, name);
        else if (type == "gpt_neox")
            m = readGptNeox(f, name);
        else if (type == "falcon")
            m = readFalcon(f, name);
        else if (type == "gptj")
            m = readGptJ(f, name);
        else if (type == "gpt_oss")
            m = readGptOss(f, name);
        else
            throw HfError("model_type \"" + type
                + "\" is not one Parallax reads; supported: llama, llama4, mistral, mixtral, qwen2, qwen2_moe, "
                  "qwen3, qwen3_moe, deepseek_v2, deepseek_v3, gpt_oss, gpt2, gpt_neox, falcon, gptj (or write the "
                  "model object by hand, SCENARIO.md)");
        m["source"] = "Hugging Face config.json (model_type " + type + ")";
        return m;
    } catch (const std::exception& e) {
        error = e.what();
        return std::nullopt;
    }
}

std::optional<ModelSpec> HfConfigReader::read(const json& config, const std::string& name, std::string& error)
{
    const auto j = toModelJson(config, name, error);
    if (!j)
        return std::nullopt;
    LoadError load;
    auto m = parseModelSpec(*j, "model", load);
    if (!m)
        error = load.text();
    return m;
}

} // namespace parallax::core
