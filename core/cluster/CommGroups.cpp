// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/CommGroups.h"

#include "core/calibration/Calibration.h"
#include "core/cluster/FabricPath.h"
#include "core/cluster/GradientGroupStride.h"
#include "core/cluster/GroupGeometry.h"

#include <algorithm>

namespace parallax::core {

DomainLinks DomainLinks::of(const Topology& topology)
{
    DomainLinks links;
    for (int d = 0; d < static_cast<int>(topology.domains.size()); ++d) {
        links.nvlink.push_back(topology.nvlinkBytesPerSecond(d));
        links.scaleOut.push_back(topology.scaleOutBytesPerSecondPerGpu(d));
        links.latency.push_back(topology.scaleOutLatencySeconds(d));
    }
    return links;
}

CommGroup commGroupFromDomains(
    int size, const std::vector<std::pair<int, int>>& membersPerDomain, const DomainLinks& links)
{
    CommGroup g;
    g.size = size;
    if (membersPerDomain.empty())
        return g;
    g.outer = static_cast<int>(membersPerDomain.size());
    g.inner = 1;
    double nvlink = 0;
    double scaleOut = 0;
    double latency = 0;
    for (const auto& [domain, count] : membersPerDomain) {
        g.inner = std::max(g.inner, count);
        const double nv = links.nvlink[domain];
        nvlink = nvlink == 0 ? nv : std::min(nvlink, nv);
        const double so = links.scaleOut[domain];
        scaleOut = scaleOut == 0 ? so : std::min(scaleOut, so);
        latency = std::max(latency, links.latency[domain]);
    }
    g.intra = { nvlink, kNvlinkHopLatencySeconds };
    g.inter = { scaleOut > 0 ? scaleOut : nvlink, latency };
    return g;
}

namespace {
// commGroupFromDomains() with the links of the listed domains only (DomainLinks::of() builds all).
CommGroup commGroupOfDomains(int size, std::vector<std::pair<int, int>>& perDomain, const Topology& topology)
{
    // (domain, 1) per member -> (domain, members), by domain.
    std::sort(perDomain.begin(), perDomain.end());
    std::size_t kept = 0;
    for (std::size_t i = 0; i < perDomain.size(); ++i) {
        if (kept > 0 && perDomain[kept - 1].first == perDomain[i].first)
            perDomain[kept - 1].second += perDomain[i].second;
        else
            perDomain[kept++] = perDomain[i];
    }
    perDomain.resize(kept);
    // Links of the listed domains, indexed by their position in the list.
    DomainLinks links;
    for (auto& [d, count] : perDomain) {
        links.nvlink.push_back(topology.nvlinkBytesPerSecond(d));
        links.scaleOut.push_back(topology.scaleOutBytesPerSecondPerGpu(d));
        links.latency.push_back(topology.scaleOutLatencySeconds(d));
        d = static_cast<int>(links.nvlink.size()) - 1;
    }
    return commGroupFromDomains(size, perDomain, links);
}

template <typename DomainOf>
CommGroup commGroupWith(const std::vector<int>& ranks, const Topology& topology, DomainOf domainOf)
{
    std::vector<std::pair<int, int>> perDomain;
    perDomain.reserve(ranks.size());
    for (int r : ranks)
        perDomain.emplace_back(domainOf(r), 1);
    CommGroup g = commGroupOfDomains(static_cast<int>(ranks.size()), perDomain, topology);
    // The scale-out level runs over the path the members' fabrics and rails give (rank r on GPU r).
    if (const GroupRoute route = groupRoute(topology, ranks); route.spansDomains && route.link.bytesPerSecond > 0)
        g.inter = route.link;
    return g;
}
} // namespace

CommGroup commGroupFor(const std::vector<int>& ranks, const Topology& topology, const RankMap& map)
{
    return commGroupWith(ranks, topology, [&](int r) { return map.domainOfRank(r); });
}

CommGroup commGroupFor(const std::vector<int>& ranks, const Topology& topology)
{
    return commGroupWith(ranks, topology, [&](int r) { return topology.domainOf(r); });
}

EngineCommGroups buildCommGroups(const ParallelConfig& p, const Topology& topology, const RankMap& map,
    const Calibration* calibration, bool& calibrated)
{
    return buildCommGroups(p, topology, DomainShape::of(topology), map, calibration, calibrated);
}

EngineCommGroups buildCommGroups(const ParallelConfig& p, const Topology& topology, const DomainShape& shape,
    const RankMap& map, const Calibration* calibration, bool& calibrated)
{
    EngineCommGroups out;
    // The more spread of the first and the last group of a dimension (groups are numbered by their
    // smallest rank).
    auto fromDim = [&](Dim d) {
        const int count = map.groupCount(d);
        if (count == 0)
            return CommGroup {};
        const int size = map.groupSize(d), stride = map.groupStride(d);
        auto spread = [&](int base) { return map.domainOfRank(base + (size - 1) * stride) - map.domainOfRank(base); };
        const int front = map.member(d, 0, 0), back = map.member(d, count - 1, 0);
        const int base = spread(back) > spread(front) ? back : front;
        if (!map.hasTopology()) {
            std::vector<int> ranks(size);
            for (int i = 0; i < size; ++i)
                ranks[i] = base + i * stride;
            return commGroupFor(ranks, topology, map);
        }
        return stridedCommGroup(topology, shape, base, stride, size);
    };
    out.tp = fromDim(Dim::Tp);
    out.cp = fromDim(Dim::Cp);
    out.ep = fromDim(Dim::Ep);
    out.edp = fromDim(Dim::Edp);
    // Gradients of dense parameters are reduced over dp x cp: ranks (0, c, d, 0).
    const int stride = gradientGroupStride(p.cp, map.groupStride(Dim::Cp), p.dp, map.groupStride(Dim::Dp));
    if (stride > 0 && map.hasTopology() && p.cp > 0 && p.dp > 0) {
        out.dp = stridedCommGroup(topology, shape, 0, stride, p.cp * p.dp);
    } else {
        std::vector<int> dpcp;
        for (int c = 0; c < p.cp; ++c) {
            for (int d = 0; d < p.dp; ++d)
                dpcp.push_back(map.rankAt(0, c, d, 0));
        }
        out.dp = commGroupFor(dpcp, topology, map);
    }

    calibrated = false;
    if (calibration) {
        // A measured intra-domain bus bandwidth replaces the NVLink datasheet number.
        if (auto bus = calibration->collectiveBusBytesPerSecond(CollectiveKind::AllReduce, 64e6)) {
            for (CommGroup* g : { &out.tp, &out.cp, &out.ep, &out.dp, &out.edp })
                g->intra.bytesPerSecond = *bus;
            calibrated = true;
        }
    }
    return out;
}

} // namespace parallax::core
