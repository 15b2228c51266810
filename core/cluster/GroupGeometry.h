// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/cluster/FabricPath.h"
#include "core/cluster/RankMap.h"
#include "core/cluster/Topology.h"
#include "core/costs/CostModel.h"

#include <cstdint>

namespace parallax::core {

// Per-hop latency of NCCL over NVLink/NVSwitch (order of microseconds; NCCL's tuning model uses
// ~1-2 us per LL128 step intra-node): the intra-domain latency of every communicator.
inline constexpr double kNvlinkHopLatencySeconds = 2e-6;

// Whether every NVLink domain looks the same to a communicator: the same GPU count and NVLink
// bandwidth, and every fabric holding every domain in order (the regular form). Then a group's
// links depend only on where its members sit inside their domains, which repeats along the
// cluster, and a handful of domains stand for all of them. One pass over the domains.
struct DomainShape {
    bool alike = false;
    int domainSize = 0; // GPUs per domain when alike
    // Nonzero when alike: the id under which the strided routes below cache their results per thread,
    // the same for every topology equal in what those routes read (domain count and size, NVLink
    // bandwidth, each fabric's links: routeCacheIdOf()), different for any other. Shifting a group by
    // whole alike domains leaves its route unchanged, so a result keyed by (base % domainSize, stride,
    // size) serves every group of that pattern, in this evaluation and in every later one on an equal
    // cluster (a search's scratch scenarios, the GUI's evaluations between topology edits). Zero:
    // nothing cached (a shape built by hand).
    std::uint64_t routeCacheId = 0;
    static DomainShape of(const Topology& topology);
    // The same from a scan of that topology's domains (Topology::scanDomains()), which of() makes itself.
    static DomainShape of(const Topology& topology, const Topology::DomainScan& scan);
    // The id of an alike topology of `domainSize` GPUs and `nvlink` bytes/s per domain (as of() finds
    // them): a per-thread lookup among the last few topologies seen, O(fabrics).
    static std::uint64_t routeCacheIdOf(const Topology& topology, int domainSize, double nvlink);
};

// commGroupFor() (core/cluster/CommGroups.h) of the ranks base, base + stride, ...,
// base + (size - 1) stride, from rank arithmetic: O(domain size) when domains are alike, O(size)
// otherwise. Bit-identical to commGroupFor() of the listed ranks.
CommGroup stridedCommGroup(const Topology& topology, const DomainShape& shape, int base, int stride, int size);

// groupRoute() (or chainRoute() when `chain`) of the same ranks, with the same bound.
GroupRoute stridedGroupRoute(
    const Topology& topology, const DomainShape& shape, int base, int stride, int size, bool chain);

// Groups of `d` whose members sit on different leaf fabrics, and groups whose scale-out traffic
// changes rail (core/cluster/FabricPath.h). Alike domains: one group per position of its first
// member inside a domain stands for all groups at that position. Otherwise every group crossing
// a domain is routed.
struct GroupCrossings {
    int fabrics = 0;
    int rails = 0;
};
GroupCrossings groupCrossings(const Topology& topology, const DomainShape& shape, const RankMap& map, Dim d);

} // namespace parallax::core
