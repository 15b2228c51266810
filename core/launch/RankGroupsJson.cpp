// SPDX-License-Identifier: Apache-2.0
#include "core/launch/RankGroupsJson.h"

#include "core/cluster/Topology.h"

namespace parallax::core {

using nlohmann::json;

json rankGroupsJson(const RankGroups& g)
{
    json out = json::object();
    for (int k = 0; k < RankGroups::KindCount; ++k) {
        const auto kind = static_cast<RankGroups::Kind>(k);
        out[RankGroups::name(kind)] = g.groups(kind);
    }
    return out;
}

json rankPlacementJson(const RankGroups& g, const Topology& topology)
{
    json ranks = json::array();
    const int gpus = topology.gpuCount();
    for (int r = 0; r < g.worldSize(); ++r) {
        json j { { "rank", r } };
        for (auto kind : { RankGroups::Tp, RankGroups::Cp, RankGroups::Dp, RankGroups::Pp, RankGroups::Ep,
                 RankGroups::Etp, RankGroups::Edp })
            j[RankGroups::name(kind)] = g.coordinate(kind, r);
        if (r < gpus) {
            const GpuLocation at = topology.locate(r);
            const int fabric = topology.fabricOfDomain(at.domain);
            j["domain"] = topology.domains[static_cast<std::size_t>(at.domain)].name;
            j["index_in_domain"] = at.indexInDomain;
            j["fabric"] = fabric >= 0 ? json(topology.fabrics[static_cast<std::size_t>(fabric)].name) : json(nullptr);
        } else {
            j["domain"] = nullptr;
            j["index_in_domain"] = nullptr;
            j["fabric"] = nullptr;
        }
        ranks.push_back(std::move(j));
    }
    return ranks;
}

} // namespace parallax::core
