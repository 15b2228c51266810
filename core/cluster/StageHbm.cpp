// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/StageHbm.h"

#include "core/cluster/RankMap.h"
#include "core/cluster/Topology.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace parallax::core {

std::vector<double> pipelineRankHbmBytes(const Topology& topology, const RankMap& map, int pp)
{
    const int stages = std::max(1, pp);
    double low = std::numeric_limits<double>::infinity();
    double high = 0;
    for (const NvlinkDomain& d : topology.domains) {
        if (d.gpuCount <= 0)
            continue;
        low = std::min(low, d.gpu.hbmBytes);
        high = std::max(high, d.gpu.hbmBytes);
    }
    if (high <= 0)
        return std::vector<double>(static_cast<std::size_t>(stages), 0.0);
    if (low == high)
        return std::vector<double>(static_cast<std::size_t>(stages), low);
    std::vector<double> hbm(static_cast<std::size_t>(stages), std::numeric_limits<double>::infinity());
    const int world = map.worldSize();
    int gpu = 0;
    for (const NvlinkDomain& d : topology.domains) {
        for (int i = 0; i < d.gpuCount && gpu < world; ++i, ++gpu) {
            const int stage = map.coords(gpu).pp;
            if (stage >= 0 && stage < stages)
                hbm[static_cast<std::size_t>(stage)] = std::min(hbm[static_cast<std::size_t>(stage)], d.gpu.hbmBytes);
        }
    }
    // A stage no GPU holds (the cluster is smaller than the layout: the layout is invalid then) keeps
    // the smallest HBM of the cluster.
    for (double& h : hbm)
        h = std::isinf(h) ? low : h;
    return hbm;
}

} // namespace parallax::core
