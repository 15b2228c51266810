// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/cluster/RankMap.h"
#include "core/cluster/Topology.h"
#include "core/costs/CostModel.h"

#include <vector>

namespace parallax::core {

struct Calibration;

// Per-domain link numbers of a topology, looked up once (the search evaluates many configurations).
struct DomainLinks {
    std::vector<double> nvlink, scaleOut, latency;
    static DomainLinks of(const Topology& topology);
};

// Communicator geometry from (domain, members) pairs: members per domain (inner), domains spanned
// (outer), the slowest NVLink and scale-out links and the largest scale-out latency among them.
CommGroup commGroupFromDomains(
    int size, const std::vector<std::pair<int, int>>& membersPerDomain, const DomainLinks& links);

// Link geometry of a set of ranks: members per NVLink domain, domains spanned, and the slowest
// NVLink and scale-out links among them.
CommGroup commGroupFor(const std::vector<int>& ranks, const Topology& topology, const RankMap& map);

// The communicators the cost model needs, taken from the most spread-out group of each dimension.
struct EngineCommGroups {
    CommGroup tp, cp, ep, dp /* dp x cp: the gradient group */, edp;
};
EngineCommGroups buildCommGroups(const ParallelConfig& p, const Topology& topology, const RankMap& map,
    const Calibration* calibration, bool& calibrated);

} // namespace parallax::core
