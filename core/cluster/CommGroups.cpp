// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/CommGroups.h"

#include "core/calibration/Calibration.h"
#include "core/cluster/FabricPath.h"

#include <algorithm>
#include <map>

namespace parallax::core {

namespace {
// Per-hop latency of NCCL over NVLink/NVSwitch (order of microseconds; NCCL's tuning model uses
// ~1-2 us per LL128 step intra-node).
constexpr double kNvlinkHopLatencySeconds = 2e-6;
} // namespace

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

CommGroup commGroupFor(const std::vector<int>& ranks, const Topology& topology, const RankMap& map)
{
    std::map<int, int> perDomain;
    for (int r : ranks)
        ++perDomain[map.domainOfRank(r)];
    CommGroup g = commGroupFromDomains(
        static_cast<int>(ranks.size()), { perDomain.begin(), perDomain.end() }, DomainLinks::of(topology));
    // The scale-out level runs over the path the members' fabrics and rails give (rank r on GPU r).
    if (const GroupRoute route = groupRoute(topology, ranks); route.spansDomains && route.link.bytesPerSecond > 0)
        g.inter = route.link;
    return g;
}

namespace {
const ParallelGroup* mostSpread(const std::vector<ParallelGroup>& groups)
{
    const ParallelGroup* best = nullptr;
    for (const auto* g : { groups.empty() ? nullptr : &groups.front(), groups.empty() ? nullptr : &groups.back() }) {
        if (g && (!best || g->lastDomain - g->firstDomain > best->lastDomain - best->firstDomain))
            best = g;
    }
    return best;
}
} // namespace

EngineCommGroups buildCommGroups(const ParallelConfig& p, const Topology& topology, const RankMap& map,
    const Calibration* calibration, bool& calibrated)
{
    EngineCommGroups out;
    auto fromDim = [&](Dim d) {
        const ParallelGroup* g = mostSpread(map.groups(d));
        return g ? commGroupFor(g->ranks, topology, map) : CommGroup {};
    };
    out.tp = fromDim(Dim::Tp);
    out.cp = fromDim(Dim::Cp);
    out.ep = fromDim(Dim::Ep);
    out.edp = fromDim(Dim::Edp);
    // Gradients of dense parameters are reduced over dp x cp (Megatron-Core's data-parallel group
    // with context parallelism folded in).
    std::vector<int> dpcp;
    for (int c = 0; c < p.cp; ++c) {
        for (int d = 0; d < p.dp; ++d)
            dpcp.push_back(map.rankAt(0, c, d, 0));
    }
    out.dp = commGroupFor(dpcp, topology, map);

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
