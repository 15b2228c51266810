// SPDX-License-Identifier: Apache-2.0
#include "core/inference/KvCache.h"

#include <algorithm>

namespace parallax::core {

double kvElementBytes(KvDtype d)
{
    // fp8 e4m3 with a per-tensor scale (vLLM --kv-cache-dtype fp8); bf16 otherwise.
    return d == KvDtype::Fp8 ? 1.0 : 2.0;
}

double kvBytesPerTokenPerLayer(const ModelSpec& m, KvDtype dtype, int tp)
{
    const double e = kvElementBytes(dtype);
    if (m.mla)
        return e * (m.mla->kvLoraRank + m.mla->qkRopeHeadDim);
    const double kvHeadsPerGpu = std::max(1.0, static_cast<double>(m.kvHeads) / std::max(1, tp));
    return 2.0 * kvHeadsPerGpu * m.effectiveHeadDim() * e;
}

double kvBytesPerToken(const ModelSpec& m, KvDtype dtype)
{
    return m.layers * kvBytesPerTokenPerLayer(m, dtype, 1);
}

double kvBytesPerRequest(const ModelSpec& m, KvDtype dtype, int tp, int firstLayer, int endLayer, double contextTokens)
{
    const double perLayer = kvBytesPerTokenPerLayer(m, dtype, tp);
    double bytes = 0;
    for (int l = firstLayer; l < endLayer; ++l)
        bytes += perLayer
            * (m.isSlidingWindowLayer(l) ? std::min(contextTokens, static_cast<double>(m.slidingWindow))
                                         : contextTokens);
    return bytes;
}

} // namespace parallax::core
