// SPDX-License-Identifier: Apache-2.0
#include "core/launch/RankGroups.h"

#include "core/launch/RankGenerator.h"

namespace parallax::core {

const char* RankGroups::name(Kind k)
{
    static constexpr const char* kNames[] = { "tp", "cp", "dp", "pp", "ep", "etp", "edp", "dp-cp" };
    return k >= 0 && k < KindCount ? kNames[k] : "?";
}

std::optional<RankGroups::Kind> RankGroups::parseKind(const std::string& text)
{
    for (int k = 0; k < KindCount; ++k) {
        if (text == name(static_cast<Kind>(k)))
            return static_cast<Kind>(k);
    }
    return std::nullopt;
}

std::optional<RankGroups> RankGroups::build(const ParallelConfig& c, bool moe, std::string& error)
{
    auto dense = RankGenerator::make(c.tp, 1, c.dp, c.pp, c.cp, c.order, error);
    if (!dense) {
        error = "parallel.order: " + error;
        return std::nullopt;
    }
    RankGroups g;
    g.m_world = dense->worldSize();
    g.m_etp = moe ? c.etp : c.tp;
    const int ep = moe ? c.ep : 1;
    // initialize_model_parallel: expert_data_parallel_size = world / (etp * ep * pp).
    const long expertModel = static_cast<long>(g.m_etp) * ep * c.pp;
    if (expertModel <= 0 || g.m_world % expertModel != 0) {
        error = "parallel.ep: etp x ep x pp = " + std::to_string(expertModel) + " does not divide the "
            + std::to_string(g.m_world) + " ranks; choose ep and etp so that etp x ep divides tp x cp x dp";
        return std::nullopt;
    }
    g.m_edp = static_cast<int>(g.m_world / expertModel);
    auto expert = RankGenerator::make(g.m_etp, ep, g.m_edp, c.pp, 1, c.order, error);
    if (!expert) {
        error = "parallel.order: " + error;
        return std::nullopt;
    }
    const std::string order = c.order;
    const bool ppLast = order.size() >= 2 && order.compare(order.size() - 2, 2, "pp") == 0;
    // The same function asserts that attention and MoE layers share their pipeline groups, and that
    // without a pp-last order their data-parallel sizes agree.
    if (!ppLast && c.pp > 1 && g.m_edp != c.dp) {
        error = "parallel.order: with order \"" + order
            + "\" and pp > 1 Megatron-Core needs the expert data-parallel size (" + std::to_string(g.m_edp)
            + ") to equal dp (" + std::to_string(c.dp) + "); make etp x ep equal tp x cp or use order tp-cp-ep-dp-pp";
        return std::nullopt;
    }
    g.m_groups[Tp] = dense->ranks("tp");
    g.m_groups[Cp] = dense->ranks("cp");
    g.m_groups[Dp] = dense->ranks("dp");
    g.m_groups[Pp] = dense->ranks("pp");
    g.m_groups[DpCp] = dense->ranks("dp-cp");
    g.m_groups[Ep] = expert->ranks("ep");
    g.m_groups[Etp] = expert->ranks("tp");
    g.m_groups[Edp] = expert->ranks("dp");
    if (expert->ranks("pp") != g.m_groups[Pp]) {
        error = "parallel.order: the expert layers' pipeline groups differ from the dense layers' under order \""
            + order + "\"; use order tp-cp-ep-dp-pp";
        return std::nullopt;
    }
    for (int k = 0; k < KindCount; ++k) {
        auto& coord = g.m_coord[k];
        auto& groupOf = g.m_groupOf[k];
        coord.assign(static_cast<std::size_t>(g.m_world), 0);
        groupOf.assign(static_cast<std::size_t>(g.m_world), 0);
        const auto& groups = g.m_groups[k];
        for (std::size_t gi = 0; gi < groups.size(); ++gi) {
            for (std::size_t i = 0; i < groups[gi].size(); ++i) {
                coord[static_cast<std::size_t>(groups[gi][i])] = static_cast<int>(i);
                groupOf[static_cast<std::size_t>(groups[gi][i])] = static_cast<int>(gi);
            }
        }
    }
    return g;
}

} // namespace parallax::core
