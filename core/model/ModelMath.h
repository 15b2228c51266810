// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/model/ModelSpec.h"

#include <optional>

namespace parallax::core {

// Parameter counts of one transformer layer's parts (elements). Router and norms are replicated
// across tensor-parallel ranks in Megatron-Core; the rest is split by tp.
struct LayerParameters {
    double attention = 0; // projections (and MLA's low-rank factors and their norms), with biases
    double denseMlp = 0; // 0 on MoE layers
    double routedExperts = 0; // all routed experts of the layer
    double oneExpert = 0;
    double sharedExperts = 0;
    double router = 0;
    double norms = 0;
    double total() const { return attention + denseMlp + routedExperts + sharedExperts + router + norms; }
};

LayerParameters layerParameters(const ModelSpec& m, int layer);

// One normalization layer: its scale, and a shift with biases (LayerNorm).
double normParameters(const ModelSpec& m);

// Sums perLayer(l) over the layers [first, end) in layer order, calling perLayer once per layer kind
// (dense or MoE, with full or windowed attention): every layer of a kind has one shape and one attention
// span, so the sum equals the sum of one call per layer bit for bit, at the cost of at most four calls.
// perLayer must depend on the layer only through its kind.
template <class T, class PerLayer> T sumOverLayers(const ModelSpec& m, int first, int end, T sum, PerLayer&& perLayer)
{
    std::optional<T> kinds[ModelSpec::kLayerKinds];
    for (int l = first; l < end; ++l) {
        std::optional<T>& kind = kinds[m.layerKind(l)];
        if (!kind)
            kind = perLayer(l);
        sum += *kind;
    }
    return sum;
}
double embeddingParameters(const ModelSpec& m); // token (+ learned position) embedding
double lmHeadParameters(const ModelSpec& m); // 0 when tied to the embedding
double finalNormParameters(const ModelSpec& m);
// One multi-token-prediction depth beside its block (a layer like the last one): the 2h x h projection
// and its three RMSNorms (the hidden state, the embedding, the output). Its embedding and output head are
// the main model's (shared); 0 without MTP.
double mtpProjectionParameters(const ModelSpec& m);
// All MTP depths: blocks and projections (arXiv:2412.19437 sec. 2.2).
double mtpParameters(const ModelSpec& m);
// The preset's or file's published total (`params`) where it differs from the engine's count by more
// than 1% (a model card rounds, or leaves out the MTP module or the embeddings); 0 otherwise. Display only.
double publishedParamsIfDifferent(const ModelSpec& m, double counted);
// The part of mtpParameters a token touches (its blocks' shared and top-k experts, the projections).
double mtpActiveParameters(const ModelSpec& m);
// Every parameter the model trains, the MTP modules included.
double totalParameters(const ModelSpec& m);
// Parameters a token touches: everything except the routed experts it is not sent to.
double activeParameters(const ModelSpec& m);

// Forward FLOPs per token of one layer (2 FLOPs per multiply-add; arXiv:2104.04473 sec. 3 counts
// 24 s h^2 + 4 s^2 h per layer and sequence for the GPT block: matmuls plus QK^T and AV over
// the full, non-causal s x s score matrix, the convention of the published MFU figures).
double layerForwardFlopsPerToken(const ModelSpec& m, int layer, int seqLen);
double lmHeadForwardFlopsPerToken(const ModelSpec& m); // 2 h V (arXiv:2104.04473 eq. 3 logits term)
// One MTP depth per token: its projection, its block and another pass of the output head.
double mtpForwardFlopsPerToken(const ModelSpec& m, int seqLen);
// Forward FLOPs of the whole model per token. Model FLOPs per token of a training step are 3x this
// (forward + backward at 2x forward; arXiv:2205.05198 eq. 7).
double forwardFlopsPerToken(const ModelSpec& m, int seqLen);

// Attention geometry: query/key width per head, value width per head (MLA widens QK by its rope part).
int queryKeyHeadDim(const ModelSpec& m);
int valueHeadDim(const ModelSpec& m);

} // namespace parallax::core
