// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/launch/RankGroups.h"

#include <nlohmann/json.hpp>

namespace parallax::core {

class Topology;

// `rank_map.groups` { tp, cp, dp, pp, ep, etp, edp, dp-cp: [[global ranks]] } and `rank_map.ranks`
// [ { rank, tp, cp, dp, pp, ep, etp, edp, domain, index_in_domain, fabric } ] (SCENARIO.md).
// Placement follows the topology order; a rank beyond the topology's GPUs gets null placement.
nlohmann::json rankGroupsJson(const RankGroups& groups);
nlohmann::json rankPlacementJson(const RankGroups& groups, const Topology& topology);

} // namespace parallax::core
