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
    return c.draftModel.empty() ? nullptr : PresetLibrary::instance().findModel(c.draftModel);
}

int draftTokensPerStep(const ModelSpec& m, const InferenceConfig& c)
{
    if (!c.draftModel.empty())
        return draftModelOf(c) ? c.speculativeTokens : 0;
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
    return m.mtpLayers * kvBytesPerRequest(m, c.kvDtype, tp, m.layers - 1, m.layers, contextTokens);
}

double draftKvBytesPerToken(const ModelSpec& m, const InferenceConfig& c, int tp)
{
    if (draftTokensPerStep(m, c) == 0)
        return 0;
    if (const ModelSpec* d = draftModelOf(c))
        return d->layers * kvBytesPerTokenPerLayer(*d, c.kvDtype, tp);
    return m.mtpLayers * kvBytesPerTokenPerLayer(m, c.kvDtype, tp);
}

} // namespace parallax::core
