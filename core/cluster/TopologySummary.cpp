// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/TopologySummary.h"

#include "core/cluster/FabricPath.h"

#include <algorithm>

namespace parallax::core {

TopologySummary TopologySummary::of(const Topology& topology)
{
    TopologySummary s;
    s.m_source = &topology;
    s.m_domains = topology.domains.data();
    s.m_domainCount = topology.domains.size();
    s.m_fabrics = topology.fabrics.data();
    s.m_fabricCount = topology.fabrics.size();
    const auto& domains = topology.domains;
    const int n = static_cast<int>(domains.size());
    if (n == 0) {
        s.gpus = topology.gpuCount();
        s.domainCounts.gpus = s.gpus;
        return s;
    }
    // Topology::nvlinkBytesPerSecond(d), read in place.
    auto nvlinkOf = [](const NvlinkDomain& d) {
        return d.nvlinkBytesPerSecond > 0 ? d.nvlinkBytesPerSecond : d.gpu.nvlinkBytesPerSecond;
    };
    const int size = domains.front().gpuCount;
    const double nvlink = nvlinkOf(domains.front());
    bool alike = size > 0;
    bool uniform = size > 0; // every domain has `size` GPUs (RankMap::DomainCounts)
    s.slowestDomain = 0;
    s.minHbmBytes = domains.front().gpu.hbmBytes;
    double slowestFlops = domains.front().gpu.bf16FlopsPerSecond;
    for (int d = 0; d < n; ++d) {
        const NvlinkDomain& dom = domains[d];
        uniform = uniform && dom.gpuCount == size;
        alike = alike && uniform && nvlinkOf(dom) == nvlink;
        if (dom.gpu.bf16FlopsPerSecond < slowestFlops) {
            slowestFlops = dom.gpu.bf16FlopsPerSecond;
            s.slowestDomain = d;
        }
        s.minHbmBytes = std::min(s.minHbmBytes, dom.gpu.hbmBytes);
    }
    // Topology::gpuCount() also refreshes the domain table that locate() reads, so that the routes of
    // this evaluation see the topology as it is now.
    s.gpus = topology.gpuCount();
    s.domainCounts = { s.gpus, uniform ? size : 0 };
    // A fabric that lists every domain in order connects them all; the regular form has only such fabrics.
    bool allInOrder = true;
    bool someFabricHoldsAll = false;
    for (const Fabric& f : topology.fabrics) {
        bool inOrder = static_cast<int>(f.domains.size()) == n;
        for (int d = 0; inOrder && d < n; ++d)
            inOrder = f.domains[d] == d;
        allInOrder = allInOrder && inOrder;
        someFabricHoldsAll = someFabricHoldsAll || inOrder;
    }
    if (alike && allInOrder) {
        s.shape.alike = true;
        s.shape.domainSize = size;
        s.shape.routeCacheId = DomainShape::routeCacheIdOf(topology, size, nvlink);
    }
    s.connected = n <= 1 || someFabricHoldsAll || fabricsConnectAllDomains(topology);
    return s;
}

bool TopologySummary::describes(const Topology& topology) const
{
    return m_source == &topology && m_domains == topology.domains.data() && m_domainCount == topology.domains.size()
        && m_fabrics == topology.fabrics.data() && m_fabricCount == topology.fabrics.size();
}

} // namespace parallax::core
