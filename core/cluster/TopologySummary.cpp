// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/TopologySummary.h"

#include "core/cluster/FabricPath.h"

#include <algorithm>

namespace parallax::core {

TopologySummary TopologySummary::of(const Topology& topology)
{
    // The topology keeps its last summary until its domains or fabrics change (VersionedList), so a
    // repeated evaluation of one cluster does not pass over its domains again: 16,384 GPUs cost what 64 do.
    if (const std::shared_ptr<const TopologySummary> cached = topology.cachedSummary()) {
        TopologySummary s = *cached;
        s.bind(topology);
        return s;
    }
    TopologySummary s = compute(topology);
    topology.storeSummary(std::make_shared<const TopologySummary>(s));
    return s;
}

void TopologySummary::bind(const Topology& topology)
{
    m_source = &topology;
    m_domains = topology.domains.data();
    m_domainCount = topology.domains.size();
    m_fabrics = topology.fabrics.data();
    m_fabricCount = topology.fabrics.size();
}

TopologySummary TopologySummary::compute(const Topology& topology)
{
    TopologySummary s;
    s.bind(topology);
    const int n = static_cast<int>(topology.domains.size());
    // One pass over the domains, which also refreshes the table locate() reads, so that the routes of
    // this evaluation see the topology as it is now.
    const Topology::DomainScan scan = topology.scanDomains();
    s.gpus = scan.gpus;
    s.domainCounts.gpus = s.gpus;
    if (n == 0)
        return s;
    s.slowestDomain = scan.slowestDomain;
    s.minHbmBytes = scan.minHbmBytes;
    s.domainCounts = { s.gpus, scan.uniformSize ? scan.firstSize : 0 };
    s.shape = DomainShape::of(topology, scan);
    // A fabric that lists every domain in order connects them all (every fabric of an alike shape does).
    bool someFabricHoldsAll = s.shape.alike && !topology.fabrics.empty();
    for (std::size_t f = 0; !someFabricHoldsAll && f < topology.fabrics.size(); ++f) {
        const std::vector<int>& ds = topology.fabrics[f].domains;
        bool inOrder = static_cast<int>(ds.size()) == n;
        for (int d = 0; inOrder && d < n; ++d)
            inOrder = ds[d] == d;
        someFabricHoldsAll = inOrder;
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
