// SPDX-License-Identifier: Apache-2.0
#include "core/inference/SpeculativeDecoding.h"

#include "core/inference/KvCache.h"
#include "core/inference/WeightBytes.h"
#include "core/io/PresetLibrary.h"
#include "core/model/ModelMath.h"

#include <cmath>

namespace parallax::core {

const ModelSpec* draftModelOf(const InferenceConfig& c)
{
    return c.speculativeMethod != SpeculativeMethod::DraftModel || c.draftModel.empty()
        ? nullptr
        : PresetLibrary::instance().findModel(c.draftModel);
}

bool eagle3Fits(const ModelSpec& m)
{
    return m.layers > 0 && !m.isMoe() && !m.mla;
}

LayerShape eagle3LayerShape(const ModelSpec& m)
{
    LayerShape s = layerShape(m, m.layers - 1);
    for (LinearShape& lin : s.linears) {
        if (lin.part == LinearPart::Attention && !lin.rowParallel)
            lin.inFeatures = 2.0 * static_cast<double>(m.hidden); // [embedding ; fused feature]
    }
    return s;
}

int draftTokensPerStep(const ModelSpec& m, const InferenceConfig& c)
{
    switch (c.speculativeMethod) {
    case SpeculativeMethod::DraftModel:
        return draftModelOf(c) ? c.speculativeTokens : 0;
    case SpeculativeMethod::Eagle3:
        return eagle3Fits(m) ? c.speculativeTokens : 0;
    case SpeculativeMethod::Mtp:
        break;
    }
    return m.mtpLayers > 0 && m.layers > 0 ? c.speculativeTokens : 0;
}

double acceptedTokensPerStep(int draftTokens, double acceptance)
{
    if (draftTokens <= 0)
        return 1.0;
    if (acceptance >= 1.0)
        return draftTokens + 1.0;
    return (1.0 - std::pow(acceptance, draftTokens + 1)) / (1.0 - acceptance);
}

double draftWeightBytes(const ModelSpec& m, const InferenceConfig& c, int tp, int expertShards)
{
    if (draftTokensPerStep(m, c) == 0)
        return 0;
    if (const ModelSpec* d = draftModelOf(c))
        return servingWeightBytes(*d, kDraftModelWeightFormat, tp, tp, 0, d->layers, true, true).total();
    if (c.speculativeMethod == SpeculativeMethod::Eagle3) {
        const double h = static_cast<double>(m.hidden);
        double parameters = 3.0 * h * h + kEagle3DraftVocab * h / tp + 4.0 * normParameters(m); // fc, head, norms
        for (const LinearShape& lin : eagle3LayerShape(m).linears)
            parameters += lin.inFeatures * lin.outFeatures / (lin.tensorParallel ? tp : 1);
        return 2.0 * parameters; // bf16
    }
    const double block
        = servingWeightBytes(m, c.weightFormat, tp, expertShards, m.layers - 1, m.layers, false, false).total();
    return m.mtpLayers * (block + 2.0 * mtpProjectionParameters(m));
}

double draftKvBytesPerRequest(const ModelSpec& m, const InferenceConfig& c, int tp, double contextTokens)
{
    if (draftTokensPerStep(m, c) == 0)
        return 0;
    if (const ModelSpec* d = draftModelOf(c))
        return kvBytesPerRequest(*d, c.kvDtype, tp, 0, d->layers, contextTokens);
    if (c.speculativeMethod == SpeculativeMethod::Eagle3)
        return kvBytesPerRequest(m, c.kvDtype, tp, m.layers - 1, m.layers, contextTokens);
    return m.mtpLayers * kvBytesPerRequest(m, c.kvDtype, tp, m.layers - 1, m.layers, contextTokens);
}

double draftKvBytesPerToken(const ModelSpec& m, const InferenceConfig& c, int tp)
{
    if (draftTokensPerStep(m, c) == 0)
        return 0;
    if (const ModelSpec* d = draftModelOf(c))
        return d->layers * kvBytesPerTokenPerLayer(*d, c.kvDtype, tp);
    if (c.speculativeMethod == SpeculativeMethod::Eagle3)
        return kvBytesPerTokenPerLayer(m, c.kvDtype, tp);
    return m.mtpLayers * kvBytesPerTokenPerLayer(m, c.kvDtype, tp);
}

} // namespace parallax::core
