// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/Collectives.h"

#include <algorithm>

namespace parallax::core {

const char* toString(CollectiveKind k)
{
    switch (k) {
    case CollectiveKind::AllReduce:
        return "all-reduce";
    case CollectiveKind::AllGather:
        return "all-gather";
    case CollectiveKind::ReduceScatter:
        return "reduce-scatter";
    case CollectiveKind::AllToAll:
        return "all-to-all";
    case CollectiveKind::P2P:
        return "p2p";
    }
    return "?";
}

double ringCollectiveSeconds(CollectiveKind kind, int ranks, double bytes, LinkLevel link)
{
    if (bytes <= 0)
        return 0;
    if (kind == CollectiveKind::P2P)
        return link.latencySeconds + bytes / link.bytesPerSecond;
    if (ranks <= 1 || link.bytesPerSecond <= 0)
        return 0;
    const double n = ranks;
    const double share = (n - 1) / n * bytes / link.bytesPerSecond;
    switch (kind) {
    case CollectiveKind::AllReduce:
        // Ring all-reduce: 2 (n-1)/n S/B + 2 (n-1) alpha (Thakur et al. 2005; DESIGN.md).
        return 2 * share + 2 * (n - 1) * link.latencySeconds;
    case CollectiveKind::AllGather:
    case CollectiveKind::ReduceScatter:
        // (n-1)/n S/B + (n-1) alpha (Thakur et al. 2005).
        return share + (n - 1) * link.latencySeconds;
    case CollectiveKind::AllToAll:
        // Pairwise exchange: each rank sends (n-1)/n of its buffer; one alpha per round.
        return share + (n - 1) * link.latencySeconds;
    case CollectiveKind::P2P:
        break;
    }
    return 0;
}

double hierarchicalCollectiveSeconds(
    CollectiveKind kind, int inner, int outer, double bytes, LinkLevel intra, LinkLevel inter)
{
    const int n = inner * outer;
    if (n <= 1 || bytes <= 0)
        return 0;
    if (outer <= 1)
        return ringCollectiveSeconds(kind, inner, bytes, intra);
    const double flat = ringCollectiveSeconds(kind, n, bytes, inter);
    if (inner <= 1)
        return flat;
    double hierarchical = flat;
    switch (kind) {
    case CollectiveKind::AllReduce:
        // Reduce-scatter in the domain, all-reduce of 1/inner across domains (each GPU on its own
        // rail), all-gather in the domain (NCCL tree/ring hierarchy; Jeaugey, GTC 2019).
        hierarchical = 2 * ringCollectiveSeconds(CollectiveKind::ReduceScatter, inner, bytes, intra)
            + ringCollectiveSeconds(CollectiveKind::AllReduce, outer, bytes / inner, inter);
        break;
    case CollectiveKind::AllGather:
    case CollectiveKind::ReduceScatter:
        hierarchical = ringCollectiveSeconds(kind, inner, bytes, intra)
            + ringCollectiveSeconds(kind, outer, bytes / inner, inter);
        break;
    case CollectiveKind::AllToAll: {
        // Of each rank's buffer, (inner-1)/n stays on NVLink and (n-inner)/n crosses IB.
        const double local = (inner - 1.0) / n * bytes / intra.bytesPerSecond + (inner - 1) * intra.latencySeconds;
        const double remote
            = (n - inner) / static_cast<double>(n) * bytes / inter.bytesPerSecond + (outer - 1) * inter.latencySeconds;
        hierarchical = std::max(local, remote);
        break;
    }
    case CollectiveKind::P2P:
        break;
    }
    return std::min(flat, hierarchical);
}

} // namespace parallax::core
