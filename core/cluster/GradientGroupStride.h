// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace parallax::core {

// Dense gradients are reduced over dp x cp (Megatron-Core's data-parallel group with context
// parallelism folded in): ranks (0, c, d, 0). They are evenly spaced when cp and dp are adjacent
// in the rank order; then this is their spacing, else 0 (list them member by member).
inline int gradientGroupStride(int cp, int cpStride, int dp, int dpStride)
{
    if (dp == 1)
        return cpStride;
    if (cp == 1 || dpStride == cpStride * cp)
        return cp == 1 ? dpStride : cpStride;
    if (cpStride == dpStride * dp)
        return dpStride;
    return 0;
}

} // namespace parallax::core
