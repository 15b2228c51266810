// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/cluster/GroupGeometry.h"
#include "core/cluster/Topology.h"

namespace parallax::core {

// What one evaluation needs to know about the whole topology, from one pass over its domains and
// fabrics (kept by the topology until they change: Topology::cachedSummary): the GPU count, whether the domains are
// alike (DomainShape), the slowest GPU and the smallest HBM, and whether the fabrics connect every domain. A value,
// computed from a topology that does not change while it is read (evaluate() builds it once from its const Scenario; a
// search builds it once per scratch scenario and hands it to every evaluate() on that scenario); every field equals
// what the Topology member of the same name computes.
struct TopologySummary {
    int gpus = 0; // Topology::gpuCount()
    DomainShape shape; // DomainShape::of()
    int slowestDomain = -1; // first domain with the lowest bf16 peak; -1 without domains
    double minHbmBytes = 0; // smallest HBM of any domain's GPU
    bool connected = true; // Topology::connected()
    RankMap::DomainCounts domainCounts; // RankMap::DomainCounts::of()
    static TopologySummary of(const Topology& topology);

    // Whether this summary was computed from `topology` (the same object, with the same domain and
    // fabric lists: nothing added, removed or reallocated since). evaluate() ignores a summary that
    // does not describe its scenario's topology. Edits of a domain in place are not seen: a caller that
    // keeps a summary must not edit the topology meanwhile.
    bool describes(const Topology& topology) const;

private:
    static TopologySummary compute(const Topology& topology); // the pass over the domains and fabrics
    void bind(const Topology& topology); // describes(topology) from now on
    const Topology* m_source = nullptr;
    const NvlinkDomain* m_domains = nullptr;
    std::size_t m_domainCount = 0;
    const Fabric* m_fabrics = nullptr;
    std::size_t m_fabricCount = 0;
};

} // namespace parallax::core
