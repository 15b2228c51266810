// SPDX-License-Identifier: Apache-2.0
#include "core/inference/SpeculativeDecoding.h"

#include "core/inference/KvCache.h"
#include "core/inference/WeightBytes.h"
#include "core/model/ModelMath.h"

#include <cmath>

namespace parallax::core {

int draftTokensPerStep(const ModelSpec& m, const InferenceConfig& c)
{
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
    const double block
        = servingWeightBytes(m, c.weightFormat, tp, expertShards, m.layers - 1, m.layers, false, false).total();
    return m.mtpLayers * (block + 2.0 * mtpProjectionParameters(m));
}

double draftKvBytesPerRequest(const ModelSpec& m, const InferenceConfig& c, int tp, double contextTokens)
{
    if (draftTokensPerStep(m, c) == 0)
        return 0;
    return m.mtpLayers * kvBytesPerRequest(m, c.kvDtype, tp, m.layers - 1, m.layers, contextTokens);
}

} // namespace parallax::core
