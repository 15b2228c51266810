// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/cluster/Collectives.h"

#include <vector>

namespace parallax::core {

class Topology;

// Scale-out paths between NVLink domains over one or more fabrics. A pair of domains talks over a
// fabric both sit on (leaf fabrics under a spine: domains of one leaf share the leaf, all share the
// spine); of several such fabrics NCCL's topology search takes the fastest, and so do we.
struct FabricRoute {
    LinkLevel link; // per GPU, per direction; zero bandwidth when the domains share no fabric
    int fabric = -1;
    bool crossesRail = false;
};

// The rail a GPU's NIC sits on: GPU i of a domain of g GPUs with n NICs uses NIC floor(i n / g).
int railOf(const Topology& t, int fabric, int domain, int indexInDomain);

// One fabric's link between two domains, for traffic that stays on its rail or changes rail.
LinkLevel fabricLink(const Topology& t, int fabric, int domainA, int domainB, bool crossRail);

// Best route between two GPUs of different domains.
FabricRoute routeBetween(const Topology& t, int gpuA, int gpuB);

// The scale-out level of a communicator over `gpus` (rank r on GPU r): the slowest domain pair's best
// route (a ring over the domains is as fast as its slowest hop). It stays on its rails when every
// domain holds members at the same rails: NCCL then pairs GPUs of one rail across domains.
struct GroupRoute {
    LinkLevel link;
    bool spansDomains = false;
    bool crossesFabric = false; // members' leaf fabrics (the smallest fabric holding each domain) differ
    bool crossesRail = false; // on a rail-optimised fabric, some traffic changes rail
};
GroupRoute groupRoute(const Topology& t, const std::vector<int>& gpus);

// The same for a chain of point-to-point hops (a pipeline group: member i sends to member i+1 and
// back): the slowest hop, and whether any hop leaves its leaf fabric or changes rail.
GroupRoute chainRoute(const Topology& t, const std::vector<int>& gpus);

// Whether every pair of domains shares at least one fabric.
bool fabricsConnectAllDomains(const Topology& t);

} // namespace parallax::core
