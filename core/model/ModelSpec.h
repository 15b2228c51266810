// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace parallax::core {

enum class Activation { Gelu, SwiGlu };

struct MoeSpec {
    int experts = 0; // routed experts per MoE layer
    int topK = 0;
    int sharedExperts = 0;
    std::int64_t expertFfnHidden = 0;
    int firstDenseLayers = 0; // dense FFN layers before the first MoE layer
    // MoE on every layerStep-th layer after them, the others dense: layer i >= firstDenseLayers is MoE when
    // (i - firstDenseLayers + 1) % layerStep == 0. Llama 4 Maverick alternates, dense first (Hugging Face
    // Llama4TextConfig interleave_moe_layer_step = 2: moe_layers = range(step - 1, layers, step); Qwen2/3-MoE
    // decoder_sparse_step places them alike; Megatron-Core --moe-layer-freq takes the pattern as a list).
    int layerStep = 1;
    // Group-limited routing (Megatron-Core --moe-router-num-groups / --moe-router-group-topk; Hugging Face
    // n_group / topk_group): the experts form routerGroups equal groups, and each token picks its top_k
    // experts from its routerGroupTopk best groups. DeepSeek-V3 uses 8 groups of 32 experts, one per node of
    // its EP group, and 4 of them, so a token reaches at most 4 nodes (arXiv:2412.19437 sec. 2.1.2, 3.2.2).
    // 0: not group-limited.
    int routerGroups = 0;
    int routerGroupTopk = 0;
    bool operator==(const MoeSpec&) const = default;
};

// Multi-head latent attention (DeepSeek-V2/V3, arXiv:2412.19437 sec. 2.1.1).
struct MlaSpec {
    int qLoraRank = 0; // 0: queries are projected directly
    int kvLoraRank = 0;
    int qkNopeHeadDim = 0;
    int qkRopeHeadDim = 0;
    int vHeadDim = 0;
    bool operator==(const MlaSpec&) const = default;
};

// A decoder-only transformer. Sizes are element counts, not bytes.
struct ModelSpec {
    std::string id;
    std::string name;
    int layers = 0;
    std::int64_t hidden = 0;
    int heads = 0;
    int kvHeads = 0;
    int headDim = 0; // 0 means hidden / heads
    std::int64_t ffnHidden = 0;
    std::int64_t vocab = 0;
    int seqLen = 2048; // default training sequence length
    Activation activation = Activation::SwiGlu;
    bool tiedEmbeddings = false;
    bool learnedPositionEmbeddings = false; // GPT-2/3 style absolute positions (seqLen x hidden)
    bool biases = false; // linear and norm biases (GPT-3 style)
    bool dropout = false; // dropout after attention, MLP and embedding (stores 1-byte masks)
    // Parallel attention + MLP block: y = x + attention(norm(x)) + mlp(norm(x)), one norm whose output both
    // read and one tensor-parallel reduction of their summed outputs (PaLM, arXiv:2204.02311 sec. 2
    // "Parallel Layers"; GPT-J; Hugging Face GPT-NeoX use_parallel_residual; MegaScale's PTB,
    // arXiv:2402.15627 sec. 3.1). Dense layers only.
    bool parallelBlock = false;
    std::optional<MoeSpec> moe;
    std::optional<MlaSpec> mla;
    // Sliding-window attention (Mistral 7B, arXiv:2310.06825 sec. 2; Gemma 3): windowed layers attend to
    // the last slidingWindow tokens; with slidingWindowPattern N every Nth layer keeps full attention
    // (HF sliding_window_pattern), with 0 all layers are windowed. 0 window: full attention everywhere.
    int slidingWindow = 0;
    int slidingWindowPattern = 0;
    // The windowed layers attend within fixed chunks of slidingWindow tokens instead: a query sees the keys of
    // its own chunk up to itself, not the last slidingWindow tokens (Llama 4's chunked local attention, Hugging
    // Face attention_chunk_size, every fourth layer full: modeling_llama4.py). Their KV cache likewise holds one
    // chunk.
    bool chunkedAttention = false;
    // Multi-token prediction (arXiv:2412.19437 sec. 2.2): depths of one extra future token each, every
    // depth a projection of [norm(h); norm(embedding)] (2h -> h), one transformer block like the last
    // layer, and the shared output head; placed on the last pipeline stage (Megatron-Core
    // --mtp-num-layers; Hugging Face num_nextn_predict_layers). DeepSeek-V3: 1.
    int mtpLayers = 0;
    double publishedParams = 0; // display only; the engine counts parameters itself
    std::string source;

    int effectiveHeadDim() const { return headDim > 0 ? headDim : (heads > 0 ? static_cast<int>(hidden / heads) : 0); }
    bool isMoe() const { return moe.has_value() && moe->experts > 0; }
    bool isMoeLayer(int layer) const
    {
        return isMoe() && layer >= moe->firstDenseLayers && layer < layers
            && (layer - moe->firstDenseLayers + 1) % std::max(1, moe->layerStep) == 0;
    }
    // MoE layers among [begin, end).
    int moeLayersIn(int begin, int end) const
    {
        if (!isMoe())
            return 0;
        const int step = std::max(1, moe->layerStep);
        // Layers firstDenseLayers + step - 1 + k * step below `bound`.
        auto below = [&](int bound) {
            const int first = moe->firstDenseLayers + step - 1;
            return bound <= first ? 0 : (std::min(bound, layers) - first + step - 1) / step;
        };
        return std::max(0, below(end) - below(begin));
    }
    int moeLayerCount() const { return moeLayersIn(0, layers); }
    // The first MoE layer (layers when none) and whether any layer is dense: a dense and an MoE layer stand for
    // their kinds in the per-kind cost tables.
    int firstMoeLayer() const
    {
        return isMoe() ? std::min(layers, moe->firstDenseLayers + std::max(1, moe->layerStep) - 1) : layers;
    }
    bool hasDenseLayer() const { return moeLayerCount() < layers; }
    int firstDenseLayer() const
    {
        for (int l = 0; l < layers; ++l) {
            if (!isMoeLayer(l))
                return l;
        }
        return 0;
    }
    bool operator==(const ModelSpec&) const = default;
    bool isSlidingWindowLayer(int layer) const
    {
        return slidingWindow > 0 && (slidingWindowPattern <= 0 || (layer + 1) % slidingWindowPattern != 0);
    }
    // The kinds of layer whose costs differ, 0-3: dense or MoE, full or windowed attention.
    static constexpr int kLayerKinds = 4;
    int layerKind(int layer) const { return (isMoeLayer(layer) ? 1 : 0) + (isSlidingWindowLayer(layer) ? 2 : 0); }
    // Keys a query `context` tokens into a sequence attends on `layer`: all of them, the window, or within its
    // chunk, on average half a chunk once the first is full (the query's place in its chunk is uniform over a
    // long generation).
    double attendedKeys(int layer, double context) const
    {
        if (!isSlidingWindowLayer(layer) || context <= slidingWindow)
            return context;
        return chunkedAttention ? slidingWindow / 2.0 : static_cast<double>(slidingWindow);
    }
    // (query, key) pairs of causal attention over `tokens` tokens on `layer`: the lower triangle, s^2 / 2; each
    // query's window past the first one, s W; each chunk's own triangle, s W / 2.
    double attentionPairs(int layer, double tokens) const
    {
        if (!isSlidingWindowLayer(layer) || tokens <= slidingWindow)
            return tokens * tokens / 2.0;
        return chunkedAttention ? tokens * slidingWindow / 2.0 : tokens * slidingWindow;
    }
    // Some layer attends to less than a sequence of `tokens`: its window or chunk is shorter.
    bool windowedBelow(double tokens) const
    {
        return slidingWindow > 0 && slidingWindowPattern != 1 && tokens > slidingWindow;
    }
    // The keys per query a training sequence of `tokens` spans on `layer`, in the FLOP convention that counts
    // full causal attention as all s keys (twice the triangle's pairs per query, arXiv:2104.04473 sec. 3):
    // s on a full layer, 2W under a sliding window of W, W under chunks of W.
    double attentionSpan(int layer, double tokens) const
    {
        return tokens > 0 ? 2.0 * attentionPairs(layer, tokens) / tokens : 0.0;
    }
};

} // namespace parallax::core
