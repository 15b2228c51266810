// SPDX-License-Identifier: Apache-2.0
#include "core/model/ModelMath.h"

#include <cmath>

namespace parallax::core {

namespace {
double mlpMatrices(const ModelSpec& m)
{
    return m.activation == Activation::SwiGlu ? 3.0 : 2.0;
}

double mlpParameters(const ModelSpec& m, double ffn)
{
    double p = mlpMatrices(m) * static_cast<double>(m.hidden) * ffn;
    if (m.biases)
        p += (m.activation == Activation::SwiGlu ? 2.0 * ffn : ffn) + static_cast<double>(m.hidden);
    return p;
}

double attentionParameters(const ModelSpec& m)
{
    const double h = static_cast<double>(m.hidden);
    const double heads = m.heads;
    if (m.mla) {
        // MLA projections (arXiv:2412.19437 sec. 2.1.1, eqs. 1-11): low-rank query and joint KV
        // compression with an RMSNorm on each latent, decoupled RoPE key shared by the heads.
        const MlaSpec& a = *m.mla;
        const double qk = a.qkNopeHeadDim + a.qkRopeHeadDim;
        double p = 0;
        if (a.qLoraRank > 0)
            p += h * a.qLoraRank + a.qLoraRank + a.qLoraRank * heads * qk;
        else
            p += h * heads * qk;
        p += h * (a.kvLoraRank + a.qkRopeHeadDim) + a.kvLoraRank;
        p += a.kvLoraRank * heads * (a.qkNopeHeadDim + a.vHeadDim);
        p += heads * a.vHeadDim * h;
        return p;
    }
    const double hd = m.effectiveHeadDim();
    const double kv = m.kvHeads > 0 ? m.kvHeads : m.heads;
    double p = h * heads * hd + 2.0 * h * kv * hd + heads * hd * h;
    if (m.biases)
        p += heads * hd + 2.0 * kv * hd + h;
    return p;
}

} // namespace

double normParameters(const ModelSpec& m)
{
    return (m.biases ? 2.0 : 1.0) * static_cast<double>(m.hidden);
}

int queryKeyHeadDim(const ModelSpec& m)
{
    return m.mla ? m.mla->qkNopeHeadDim + m.mla->qkRopeHeadDim : m.effectiveHeadDim();
}

int valueHeadDim(const ModelSpec& m)
{
    return m.mla ? m.mla->vHeadDim : m.effectiveHeadDim();
}

LayerParameters layerParameters(const ModelSpec& m, int layer)
{
    LayerParameters p;
    p.attention = attentionParameters(m);
    p.norms = 2.0 * normParameters(m);
    if (m.isMoeLayer(layer)) {
        const double effn = static_cast<double>(m.moe->expertFfnHidden);
        p.oneExpert = mlpParameters(m, effn);
        p.routedExperts = p.oneExpert * m.moe->experts;
        p.sharedExperts = p.oneExpert * m.moe->sharedExperts;
        p.router = static_cast<double>(m.hidden) * m.moe->experts;
    } else {
        p.denseMlp = mlpParameters(m, static_cast<double>(m.ffnHidden));
    }
    return p;
}

double embeddingParameters(const ModelSpec& m)
{
    double p = static_cast<double>(m.vocab) * static_cast<double>(m.hidden);
    if (m.learnedPositionEmbeddings)
        p += static_cast<double>(m.seqLen) * static_cast<double>(m.hidden);
    return p;
}

double lmHeadParameters(const ModelSpec& m)
{
    return m.tiedEmbeddings ? 0.0 : static_cast<double>(m.vocab) * static_cast<double>(m.hidden);
}

double finalNormParameters(const ModelSpec& m)
{
    return normParameters(m);
}

double mtpProjectionParameters(const ModelSpec& m)
{
    const double h = static_cast<double>(m.hidden);
    return m.mtpLayers > 0 ? 2.0 * h * h + 3.0 * normParameters(m) : 0.0;
}

double publishedParamsIfDifferent(const ModelSpec& m, double counted)
{
    if (m.publishedParams <= 0 || counted <= 0)
        return 0;
    return std::abs(counted / m.publishedParams - 1) > 0.01 ? m.publishedParams : 0;
}

double mtpParameters(const ModelSpec& m)
{
    if (m.mtpLayers <= 0 || m.layers <= 0)
        return 0;
    return m.mtpLayers * (layerParameters(m, m.layers - 1).total() + mtpProjectionParameters(m));
}

namespace {
// Parameters a token of layer `layer` touches: all but the routed experts it is not sent to.
double layerActiveParameters(const ModelSpec& m, int layer)
{
    const LayerParameters lp = layerParameters(m, layer);
    return lp.total() - lp.routedExperts + (m.isMoeLayer(layer) ? lp.oneExpert * m.moe->topK : 0.0);
}
} // namespace

double mtpActiveParameters(const ModelSpec& m)
{
    if (m.mtpLayers <= 0 || m.layers <= 0)
        return 0;
    return m.mtpLayers * (layerActiveParameters(m, m.layers - 1) + mtpProjectionParameters(m));
}

namespace {
// The whole model's sums, which add every layer: kept per thread for the last model asked about (an
// evaluation per edit, or per candidate of a search, reads them for one model over and over).
struct ModelSums {
    ModelSpec model;
    bool valid = false;
    double total = 0;
    double active = 0;
    int flopsSeqLen = -1;
    double forwardFlops = 0;
};

ModelSums& sumsOf(const ModelSpec& m)
{
    thread_local ModelSums sums;
    if (sums.valid && sums.model == m)
        return sums;
    sums.model = m;
    sums.valid = true;
    sums.flopsSeqLen = -1;
    const double p = embeddingParameters(m) + lmHeadParameters(m) + finalNormParameters(m);
    sums.total
        = sumOverLayers(m, 0, m.layers, p, [&](int l) { return layerParameters(m, l).total(); }) + mtpParameters(m);
    sums.active
        = sumOverLayers(m, 0, m.layers, p, [&](int l) { return layerActiveParameters(m, l); }) + mtpActiveParameters(m);
    return sums;
}
} // namespace

double totalParameters(const ModelSpec& m)
{
    return sumsOf(m).total;
}

double activeParameters(const ModelSpec& m)
{
    return sumsOf(m).active;
}

double layerForwardFlopsPerToken(const ModelSpec& m, int layer, int seqLen)
{
    const LayerParameters lp = layerParameters(m, layer);
    double matmul = lp.attention + lp.denseMlp + lp.sharedExperts + lp.router;
    if (m.isMoeLayer(layer))
        matmul += lp.oneExpert * m.moe->topK;
    // Scores QK^T and the weighted sum AV: 2 s (d_qk + d_v) per head and token (arXiv:2104.04473 sec. 3); a
    // windowed layer spans its window instead of s (ModelSpec::attentionSpan).
    const double scores = 2.0 * m.attentionSpan(layer, seqLen) * m.heads * (queryKeyHeadDim(m) + valueHeadDim(m));
    return 2.0 * matmul + scores;
}

double lmHeadForwardFlopsPerToken(const ModelSpec& m)
{
    return 2.0 * static_cast<double>(m.hidden) * static_cast<double>(m.vocab);
}

double mtpForwardFlopsPerToken(const ModelSpec& m, int seqLen)
{
    if (m.mtpLayers <= 0 || m.layers <= 0)
        return 0;
    const double h = static_cast<double>(m.hidden);
    return 2.0 * (2.0 * h * h) + layerForwardFlopsPerToken(m, m.layers - 1, seqLen) + lmHeadForwardFlopsPerToken(m);
}

double forwardFlopsPerToken(const ModelSpec& m, int seqLen)
{
    ModelSums& sums = sumsOf(m);
    if (sums.flopsSeqLen != seqLen) {
        sums.forwardFlops = sumOverLayers(m, 0, m.layers, lmHeadForwardFlopsPerToken(m), [&](int l) {
            return layerForwardFlopsPerToken(m, l, seqLen);
        }) + m.mtpLayers * mtpForwardFlopsPerToken(m, seqLen);
        sums.flopsSeqLen = seqLen;
    }
    return sums.forwardFlops;
}

} // namespace parallax::core
