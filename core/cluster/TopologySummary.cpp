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
    const int n = static_cast<int>(topology.domains.size());
    // One pass over the domains, which also refreshes the table locate() reads, so that the routes of
    // this evaluation see the topology as it is now.
    const Topology::DomainScan scan = topology.scanDomains();
    s.gpus = scan.gpus;
    s.domainCounts.gpus = s.gpus;
    if (n == 0)
        return s;
    const int size = scan.firstSize;
    const double nvlink = scan.firstNvlink;
    const bool uniform = scan.uniformSize; // every domain has `size` GPUs (RankMap::DomainCounts)
    const bool alike = uniform && scan.uniformNvlink;
    s.slowestDomain = scan.slowestDomain;
    s.minHbmBytes = scan.minHbmBytes;
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
