// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/RankMap.h"

#include <sstream>

namespace parallax::core {

const char* toString(Dim d)
{
    static constexpr const char* kNames[] = { "tp", "cp", "dp", "pp", "ep", "edp", "etp" };
    const int i = static_cast<int>(d);
    return i >= 0 && i < kDimCount ? kNames[i] : "?";
}

namespace {
struct Axis {
    Dim dim;
    int size;
    int stride = 1;
};

// Splits "tp-cp-ep-dp-pp" into tokens; a malformed string falls back to the Megatron-Core default
// (validation reports it separately).
std::vector<std::string> orderTokens(const std::string& order)
{
    std::vector<std::string> tokens;
    std::stringstream in(order);
    std::string t;
    while (std::getline(in, t, '-'))
        tokens.push_back(t);
    bool ok = tokens.size() == 5;
    for (const char* need : { "tp", "cp", "ep", "dp", "pp" }) {
        int count = 0;
        for (const auto& tok : tokens)
            count += tok == need;
        ok = ok && count == 1;
    }
    return ok ? tokens : std::vector<std::string> { "tp", "cp", "ep", "dp", "pp" };
}

// Megatron-Core RankGenerator (megatron/core/parallel_state.py): ranks enumerate the axes in
// `order`, fastest first; the dense view drops ep, the expert view drops cp and renames
// tp->etp, dp->edp.
std::vector<Axis> axesFor(const std::vector<std::string>& tokens, bool expert, const ParallelConfig& c, int world)
{
    std::vector<Axis> axes;
    const int pp = c.pp;
    const int etp = std::max(1, c.etp);
    const int ep = std::max(1, c.ep);
    const int edp = std::max(1, world / std::max(1, pp * etp * ep));
    for (const auto& tok : tokens) {
        if (tok == "tp")
            axes.push_back(expert ? Axis { Dim::Etp, etp } : Axis { Dim::Tp, c.tp });
        else if (tok == "cp" && !expert)
            axes.push_back({ Dim::Cp, c.cp });
        else if (tok == "ep" && expert)
            axes.push_back({ Dim::Ep, ep });
        else if (tok == "dp")
            axes.push_back(expert ? Axis { Dim::Edp, edp } : Axis { Dim::Dp, c.dp });
        else if (tok == "pp")
            axes.push_back({ Dim::Pp, pp });
    }
    int stride = 1;
    for (auto& a : axes) {
        a.stride = stride;
        stride *= std::max(1, a.size);
    }
    return axes;
}
} // namespace

RankMap RankMap::build(const ParallelConfig& config, const Topology* topology)
{
    RankMap map;
    const int world = std::max(1, config.worldSize());
    map.m_coords.resize(world);
    const auto tokens = orderTokens(config.order);
    const std::vector<Axis> dense = axesFor(tokens, false, config, world);
    const std::vector<Axis> expert = axesFor(tokens, true, config, world);
    const bool expertValid = world % std::max(1, config.pp * std::max(1, config.etp) * std::max(1, config.ep)) == 0;

    for (const Axis& a : dense) {
        const int i = static_cast<int>(a.dim);
        map.m_denseSize[i] = a.size;
        map.m_denseStride[i] = a.stride;
    }

    auto coordOf = [](int rank, const Axis& a) { return (rank / a.stride) % std::max(1, a.size); };
    for (int r = 0; r < world; ++r) {
        RankCoords& rc = map.m_coords[r];
        for (const Axis& a : dense) {
            const int v = coordOf(r, a);
            if (a.dim == Dim::Tp)
                rc.tp = v;
            else if (a.dim == Dim::Cp)
                rc.cp = v;
            else if (a.dim == Dim::Dp)
                rc.dp = v;
            else
                rc.pp = v;
        }
        if (expertValid) {
            for (const Axis& a : expert) {
                const int v = coordOf(r, a);
                if (a.dim == Dim::Etp)
                    rc.etp = v;
                else if (a.dim == Dim::Ep)
                    rc.ep = v;
                else if (a.dim == Dim::Edp)
                    rc.edp = v;
            }
        }
    }

    if (topology && topology->gpuCount() >= world) {
        map.m_domainOfRank.resize(world);
        for (int r = 0; r < world; ++r)
            map.m_domainOfRank[r] = topology->domainOf(r);
    }

    auto buildGroups = [&](const Axis& a) {
        const int d = static_cast<int>(a.dim);
        auto& groups = map.m_groups[d];
        auto& groupOf = map.m_groupOfRank[d];
        groupOf.assign(world, -1);
        const int size = std::max(1, a.size);
        for (int r = 0; r < world; ++r) {
            if (groupOf[r] >= 0)
                continue;
            const int base = r - coordOf(r, a) * a.stride;
            ParallelGroup g;
            g.dim = a.dim;
            g.index = static_cast<int>(groups.size());
            g.ranks.reserve(size);
            for (int i = 0; i < size; ++i) {
                const int member = base + i * a.stride;
                g.ranks.push_back(member);
                groupOf[member] = g.index;
            }
            if (!map.m_domainOfRank.empty()) {
                g.firstDomain = g.lastDomain = map.m_domainOfRank[g.ranks.front()];
                for (int member : g.ranks) {
                    const int dom = map.m_domainOfRank[member];
                    g.crossesDomain = g.crossesDomain || dom != g.firstDomain;
                    g.firstDomain = std::min(g.firstDomain, dom);
                    g.lastDomain = std::max(g.lastDomain, dom);
                }
            }
            groups.push_back(std::move(g));
        }
    };
    for (const Axis& a : dense)
        buildGroups(a);
    if (expertValid) {
        for (const Axis& a : expert) {
            if (a.dim != Dim::Pp)
                buildGroups(a);
        }
    }
    return map;
}

int RankMap::groupsCrossingDomains(Dim d) const
{
    int n = 0;
    for (const auto& g : m_groups[static_cast<int>(d)])
        n += g.crossesDomain;
    return n;
}

int RankMap::rankAt(int tp, int cp, int dp, int pp) const
{
    const auto& s = m_denseStride;
    return tp * s[static_cast<int>(Dim::Tp)] + cp * s[static_cast<int>(Dim::Cp)] + dp * s[static_cast<int>(Dim::Dp)]
        + pp * s[static_cast<int>(Dim::Pp)];
}

} // namespace parallax::core
