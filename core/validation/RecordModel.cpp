// SPDX-License-Identifier: Apache-2.0
#include "core/validation/RecordReading.h"

#include "core/Limits.h"
#include "core/io/PresetLibrary.h"

#include <algorithm>
#include <cctype>

namespace parallax::core::record {

namespace {

// MoE block (data/README.md: n_routed_experts, n_shared_experts, top_k, expert_ffn_hidden, ...).
std::string readMoe(const json& moe, ModelSpec& model, std::vector<std::string>& assumed)
{
    if (std::string why = outOfRange(moe, "model.moe",
            { { "n_routed_experts", kMaxExperts }, { "top_k", kMaxExperts }, { "n_shared_experts", kMaxExperts },
                { "expert_ffn_hidden", 1 << 24 }, { "first_dense_layers", kMaxLayers },
                { "first_k_dense_replace", kMaxLayers }, { "n_dense_layers", kMaxLayers },
                { "dense_layers", kMaxLayers }, { "layer_step", kMaxLayers },
                { "interleave_moe_layer_step", kMaxLayers }, { "decoder_sparse_step", kMaxLayers } });
        !why.empty())
        return why;
    MoeSpec spec;
    spec.experts = static_cast<int>(number(moe, "n_routed_experts").value_or(0));
    spec.topK = static_cast<int>(number(moe, "top_k").value_or(0));
    spec.sharedExperts = static_cast<int>(number(moe, "n_shared_experts").value_or(0));
    spec.expertFfnHidden = static_cast<std::int64_t>(number(moe, "expert_ffn_hidden").value_or(0));
    for (const char* k : { "first_dense_layers", "first_k_dense_replace", "n_dense_layers", "dense_layers" })
        spec.firstDenseLayers = std::max(spec.firstDenseLayers, static_cast<int>(number(moe, k).value_or(0)));
    // MoE on every N-th layer (Llama 4 Maverick: 2), under our name or Hugging Face's.
    for (const char* k : { "layer_step", "interleave_moe_layer_step", "decoder_sparse_step" })
        spec.layerStep = std::max(spec.layerStep, static_cast<int>(number(moe, k).value_or(1)));
    if (spec.experts <= 0 || spec.topK <= 0)
        return "model.moe lacks n_routed_experts or top_k";
    if (spec.firstDenseLayers + spec.layerStep > model.layers)
        return "model.moe leaves no MoE layer: first_dense_layers + layer_step exceeds the layers";
    if (spec.expertFfnHidden <= 0) {
        spec.expertFfnHidden = model.ffnHidden;
        assumed.emplace_back("model.moe.expert_ffn_hidden = ffn_hidden");
    }
    model.moe = spec;
    return {};
}

// Multi-head latent attention (DeepSeek-V3 records carry an "mla" object).
void readMla(const json& mla, ModelSpec& model)
{
    if (!outOfRange(mla, "model.mla",
            { { "q_lora_rank", kMaxHidden }, { "kv_lora_rank", kMaxHidden }, { "qk_nope_head_dim", kMaxHidden },
                { "qk_rope_head_dim", kMaxHidden }, { "v_head_dim", kMaxHidden } })
             .empty())
        return; // an MLA block with impossible ranks is ignored, as one without kv_lora_rank is
    MlaSpec spec;
    spec.qLoraRank = static_cast<int>(number(mla, "q_lora_rank").value_or(0));
    spec.kvLoraRank = static_cast<int>(number(mla, "kv_lora_rank").value_or(0));
    spec.qkNopeHeadDim = static_cast<int>(number(mla, "qk_nope_head_dim").value_or(0));
    spec.qkRopeHeadDim = static_cast<int>(number(mla, "qk_rope_head_dim").value_or(0));
    spec.vHeadDim = static_cast<int>(number(mla, "v_head_dim").value_or(0));
    if (spec.kvLoraRank > 0)
        model.mla = spec;
}

// Letters and digits only, lower case: "Llama 4 Maverick", "Llama4-Maverick" and "llama4_maverick" read alike.
std::string lowered(const std::string& s)
{
    std::string out;
    for (const unsigned char ch : s) {
        if (std::isalnum(ch))
            out.push_back(static_cast<char>(std::tolower(ch)));
    }
    return out;
}

// The model preset a record describes when it does not print the vocabulary: same width, heads and (for
// MoE) experts and top-k, and the preset's name or id in the record's ("DeepSeek-V3 671B", a recipe's proxy with
// fewer layers, "Llama4-Maverick"), spaces and punctuation aside. Nullptr when none matches.
const ModelSpec* presetOfRecord(const ModelSpec& model)
{
    const std::string name = lowered(model.name);
    for (const ModelSpec& p : PresetLibrary::instance().models()) {
        if (p.hidden != model.hidden || p.heads != model.heads || p.isMoe() != model.isMoe())
            continue;
        if (p.isMoe() && (p.moe->experts != model.moe->experts || p.moe->topK != model.moe->topK))
            continue;
        if (name.find(lowered(p.name)) != std::string::npos || name.find(lowered(p.id)) != std::string::npos)
            return &p;
    }
    return nullptr;
}

} // namespace

std::string readModel(const json& m, const SourceConventions& conv, ModelSpec& model, std::vector<std::string>& assumed)
{
    for (const char* k : { "layers", "hidden", "heads", "seq_len" }) {
        if (!number(m, k))
            return record::missingNumber(m, "model", k);
    }
    if (std::string why = outOfRange(m, "model",
            { { "layers", kMaxLayers }, { "hidden", kMaxHidden }, { "heads", kMaxHeads }, { "seq_len", kMaxSeqLen },
                { "kv_heads", kMaxHeads }, { "ffn_hidden", 1 << 24 }, { "vocab", kMaxVocab } });
        !why.empty())
        return why;
    model.name = text(m, "name");
    model.layers = static_cast<int>(*number(m, "layers"));
    model.hidden = static_cast<std::int64_t>(*number(m, "hidden"));
    model.heads = static_cast<int>(*number(m, "heads"));
    model.seqLen = static_cast<int>(*number(m, "seq_len"));
    if (auto kv = number(m, "kv_heads")) {
        model.kvHeads = static_cast<int>(*kv);
    } else {
        model.kvHeads = model.heads;
        assumed.emplace_back("model.kv_heads = heads (multi-head attention, the framework default)");
    }
    if (auto ffn = number(m, "ffn_hidden")) {
        model.ffnHidden = static_cast<std::int64_t>(*ffn);
    } else {
        model.ffnHidden = 4 * model.hidden;
        assumed.emplace_back("model.ffn_hidden = 4 h (the framework default)");
    }
    if (auto vocab = number(m, "vocab")) {
        model.vocab = static_cast<std::int64_t>(*vocab);
    } else if (conv.defaultVocab > 0) {
        model.vocab = conv.defaultVocab;
        assumed.push_back("model.vocab = " + std::to_string(conv.defaultVocab) + " (" + conv.vocabNote + ")");
    }
    const std::string arch = text(m, "arch");
    model.activation = contains(arch, "SwiGLU") ? Activation::SwiGlu : Activation::Gelu;
    // A record that names no activation but a published architecture with a gated FFN: Grok-1's FFN is
    // gated GELU, gelu(x W) * (x V) then W_1 (xai-org/grok-1 model.py), three matrices like SwiGLU.
    if (!contains(arch, "GELU") && !contains(arch, "ReLU") && contains(model.name, "grok-1")) {
        model.activation = Activation::SwiGlu;
        assumed.emplace_back("model.activation = gated GELU (Grok-1's published FFN; costs as SwiGLU)");
    }
    model.biases = conv.gptStyle;
    model.learnedPositionEmbeddings = conv.gptStyle && !contains(arch, "ALiBi");
    model.tiedEmbeddings = !contains(arch, "untied") && (conv.tiedEmbeddings || contains(arch, "tied"));
    model.dropout = conv.dropout;
    // A parallel attention + MLP block, as the record's architecture names it or the source's method states it.
    const bool parallelNamed = contains(arch, "parallel transformer block") || contains(arch, "parallel residual")
        || contains(arch, "parallel attention and") || contains(arch, "parallel attention +")
        || contains(arch, "parallel attn") || contains(arch, "(PTB)");
    model.parallelBlock = !(m.contains("moe") && m["moe"].is_object()) && (parallelNamed || conv.parallelBlock);
    if (model.parallelBlock && !parallelNamed)
        assumed.push_back("model.parallel_block = true (" + conv.parallelBlockNote + ")");
    if (m.contains("moe") && m["moe"].is_object()) {
        if (std::string why = readMoe(m["moe"], model, assumed); !why.empty())
            return why;
    }
    if (model.isMoe()) {
        // A record silent on the MoE layer step of a model preset that interleaves (Llama 4 Maverick): the preset's.
        const json& moe = m["moe"];
        const bool stepStated = moe.contains("layer_step") || moe.contains("interleave_moe_layer_step")
            || moe.contains("decoder_sparse_step");
        const ModelSpec* preset = stepStated ? nullptr : presetOfRecord(model);
        if (preset != nullptr && preset->moe->layerStep > 1
            && model.moe->firstDenseLayers + preset->moe->layerStep <= model.layers) {
            model.moe->layerStep = preset->moe->layerStep;
            assumed.push_back("model.moe.layer_step = " + std::to_string(preset->moe->layerStep) + " (the "
                + preset->name + " preset: one MoE layer in every " + std::to_string(preset->moe->layerStep) + ")");
        }
    }
    if (m.contains("mla") && m["mla"].is_object())
        readMla(m["mla"], model);
    // Multi-token prediction (arXiv:2412.19437 sec. 2.2) as the record states it, under its own or Megatron's /
    // Hugging Face's name; unstated, none (Megatron-Core's default), said where the matching preset trains some.
    bool mtpStated = false;
    for (const char* k : { "mtp_layers", "mtp_num_layers", "num_nextn_predict_layers" }) {
        if (auto depths = number(m, k); depths && !mtpStated) {
            if (*depths < 0 || *depths > kMaxMtpLayers)
                return std::string("model.") + k + " out of range (0-" + std::to_string(kMaxMtpLayers) + ")";
            model.mtpLayers = static_cast<int>(*depths);
            mtpStated = true;
        }
    }
    if (!mtpStated && conv.mtpLayers > 0) {
        model.mtpLayers = conv.mtpLayers;
        assumed.push_back("model.mtp_layers = " + std::to_string(conv.mtpLayers)
            + " (the source's pre-training, arXiv:2412.19437 sec. 4.2)");
    } else if (const ModelSpec* preset = mtpStated ? nullptr : presetOfRecord(model); preset && preset->mtpLayers > 0) {
        assumed.push_back("model.mtp_layers = 0 (not stated; the " + preset->name + " preset trains "
            + std::to_string(preset->mtpLayers) + " multi-token-prediction depth: state mtp_layers if the run did)");
    }
    if (model.vocab <= 0) {
        const ModelSpec* preset = presetOfRecord(model);
        if (preset == nullptr)
            return "model.vocab not stated, the source's framework has no default and no model preset matches";
        model.vocab = preset->vocab;
        assumed.push_back("model.vocab = " + std::to_string(preset->vocab) + " (the " + preset->name + " preset)");
    }
    return {};
}

} // namespace parallax::core::record
