#pragma once

#include "core/CostModel.h"
#include "core/RankMap.h"
#include "core/Topology.h"

#include <vector>

namespace parallax::core {

struct Calibration;

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
