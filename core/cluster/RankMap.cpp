// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/RankMap.h"

#include <algorithm>
#include <mutex>
#include <numeric>
#include <string_view>

namespace parallax::core {

const char* toString(Dim d)
{
    static constexpr const char* kNames[] = { "tp", "cp", "dp", "pp", "ep", "edp", "etp" };
    const int i = static_cast<int>(d);
    return i >= 0 && i < kDimCount ? kNames[i] : "?";
}

struct RankMap::GroupCache {
    std::array<std::once_flag, kDimCount> once;
    std::array<std::vector<ParallelGroup>, kDimCount> groups;
};

namespace {
enum Token { kTpToken = 0, kCpToken, kEpToken, kDpToken, kPpToken, kTokenCount };

// Reads "tp-cp-ep-dp-pp" (fastest first); a malformed string falls back to the Megatron-Core
// default (validation reports it separately).
std::array<int, kTokenCount> orderTokens(std::string_view order)
{
    static constexpr std::string_view kNames[] = { "tp", "cp", "ep", "dp", "pp" };
    std::array<int, kTokenCount> tokens {};
    int count = 0;
    bool seen[kTokenCount] = {};
    bool ok = true;
    std::size_t start = 0;
    while (ok) {
        const std::size_t dash = order.find('-', start);
        const std::string_view tok = order.substr(start, dash == std::string_view::npos ? order.npos : dash - start);
        const auto* it = std::find(std::begin(kNames), std::end(kNames), tok);
        const int id = static_cast<int>(it - std::begin(kNames));
        ok = id < kTokenCount && !seen[id] && count < kTokenCount;
        if (ok) {
            seen[id] = true;
            tokens[count++] = id;
        }
        // A trailing dash ends the list, as std::getline reads it.
        if (dash == std::string_view::npos || dash + 1 == order.size())
            break;
        start = dash + 1;
    }
    if (ok && count == kTokenCount)
        return tokens;
    return { kTpToken, kCpToken, kEpToken, kDpToken, kPpToken };
}

// Bases (members with coordinate 0) of the groups of an axis below rank x: groups are runs of
// `size` ranks `stride` apart, so every block of stride * size ranks starts `stride` of them.
long long basesBelow(long long x, long long stride, long long size)
{
    const long long block = stride * size;
    return (x / block) * stride + std::min(x % block, stride);
}
} // namespace

RankMap::DomainCounts RankMap::DomainCounts::of(const Topology& topology)
{
    DomainCounts c;
    const auto& domains = topology.domains;
    const int first = domains.empty() ? 0 : std::max(0, domains.front().gpuCount);
    bool uniform = first > 0;
    for (const NvlinkDomain& d : domains) {
        const int n = std::max(0, d.gpuCount);
        uniform = uniform && n == first;
        c.gpus += n;
    }
    c.uniformSize = uniform ? first : 0;
    return c;
}

RankMap RankMap::build(const ParallelConfig& config, const Topology* topology)
{
    return build(config, topology, topology ? DomainCounts::of(*topology) : DomainCounts {});
}

RankMap RankMap::build(const ParallelConfig& config, const Topology* topology, const DomainCounts& counts)
{
    RankMap map;
    const int world = std::max(1, config.worldSize());
    map.m_world = world;
    map.m_cache = std::make_shared<GroupCache>();
    const auto tokens = orderTokens(config.order);
    const int etp = std::max(1, config.etp);
    const int ep = std::max(1, config.ep);
    const int edp = std::max(1, world / std::max(1, config.pp * etp * ep));
    const bool expertValid = world % std::max(1, config.pp * etp * ep) == 0;

    // Megatron-Core RankGenerator (megatron/core/parallel_state.py): ranks enumerate the axes in
    // `order`, fastest first; the dense view drops ep, the expert view drops cp and renames
    // tp->etp, dp->edp.
    auto place = [&map](Dim d, int size, int& stride) {
        map.m_axis[static_cast<int>(d)] = { std::max(1, size), stride };
        stride *= std::max(1, size);
    };
    int dense = 1, expert = 1;
    for (int tok : tokens) {
        switch (tok) {
        case kTpToken:
            place(Dim::Tp, config.tp, dense);
            place(Dim::Etp, etp, expert);
            break;
        case kCpToken:
            place(Dim::Cp, config.cp, dense);
            break;
        case kEpToken:
            place(Dim::Ep, ep, expert);
            break;
        case kDpToken:
            place(Dim::Dp, config.dp, dense);
            place(Dim::Edp, edp, expert);
            break;
        default:
            place(Dim::Pp, config.pp, dense);
            expert *= std::max(1, config.pp);
            break;
        }
    }
    if (!expertValid) {
        for (Dim d : { Dim::Etp, Dim::Ep, Dim::Edp })
            map.m_axis[static_cast<int>(d)] = {};
    }

    if (topology) {
        // Alike domains need no table: a rank's domain is rank / size.
        const auto& domains = topology->domains;
        map.m_hasTopology = counts.gpus >= world;
        if (map.m_hasTopology && counts.uniformSize > 0) {
            map.m_uniformDomainSize = counts.uniformSize;
        } else if (map.m_hasTopology) {
            auto starts = std::make_shared<std::vector<int>>(domains.size() + 1, 0);
            for (std::size_t d = 0; d < domains.size(); ++d)
                (*starts)[d + 1] = (*starts)[d] + std::max(0, domains[d].gpuCount);
            map.m_domainStart = std::move(starts);
        }
    }
    return map;
}

RankCoords RankMap::coords(int rank) const
{
    auto at = [&](Dim d) {
        const Axis& a = m_axis[static_cast<int>(d)];
        return a.size > 0 ? (rank / a.stride) % a.size : 0;
    };
    RankCoords c;
    c.tp = at(Dim::Tp);
    c.cp = at(Dim::Cp);
    c.dp = at(Dim::Dp);
    c.pp = at(Dim::Pp);
    c.etp = at(Dim::Etp);
    c.ep = at(Dim::Ep);
    c.edp = at(Dim::Edp);
    return c;
}

int RankMap::domainOfRank(int rank) const
{
    if (!m_hasTopology)
        return 0;
    if (m_uniformDomainSize > 0)
        return rank / m_uniformDomainSize;
    const auto& starts = *m_domainStart;
    return static_cast<int>(std::upper_bound(starts.begin(), starts.end(), rank) - starts.begin()) - 1;
}

int RankMap::groupCount(Dim d) const
{
    const Axis& a = m_axis[static_cast<int>(d)];
    return a.size > 0 ? m_world / a.size : 0;
}

int RankMap::groupOf(Dim d, int rank) const
{
    const Axis& a = m_axis[static_cast<int>(d)];
    if (a.size == 0)
        return -1;
    return rank % a.stride + (rank / (a.stride * a.size)) * a.stride;
}

int RankMap::groupBase(Dim d, int index) const
{
    const Axis& a = m_axis[static_cast<int>(d)];
    return index % a.stride + (index / a.stride) * a.stride * a.size;
}

int RankMap::member(Dim d, int index, int i) const
{
    return groupBase(d, index) + i * m_axis[static_cast<int>(d)].stride;
}

ParallelGroup RankMap::group(Dim d, int index) const
{
    const Axis& a = m_axis[static_cast<int>(d)];
    ParallelGroup g;
    g.dim = d;
    g.index = index;
    const int base = groupBase(d, index);
    g.ranks.resize(a.size);
    for (int i = 0; i < a.size; ++i)
        g.ranks[i] = base + i * a.stride;
    if (m_hasTopology && a.size > 0) {
        // Domains hold consecutive ranks and members ascend: the ends bound the span.
        g.firstDomain = domainOfRank(g.ranks.front());
        g.lastDomain = domainOfRank(g.ranks.back());
        g.crossesDomain = g.firstDomain != g.lastDomain;
    }
    return g;
}

const std::vector<ParallelGroup>& RankMap::groups(Dim d) const
{
    static const std::vector<ParallelGroup> kNone;
    if (!m_cache)
        return kNone;
    const int i = static_cast<int>(d);
    std::call_once(m_cache->once[i], [&] {
        auto& out = m_cache->groups[i];
        const int n = groupCount(d);
        out.reserve(n);
        for (int g = 0; g < n; ++g)
            out.push_back(group(d, g));
    });
    return m_cache->groups[i];
}

int RankMap::groupsCrossingDomains(Dim d) const
{
    const Axis& a = m_axis[static_cast<int>(d)];
    if (!m_hasTopology || a.size <= 1)
        return 0;
    const long long s = a.stride, n = a.size, world = m_world;
    const long long span = (n - 1) * s; // last member - first member
    // Groups that stay inside a domain [begin, end): bases in [begin, end - span).
    auto inside = [&](long long begin, long long end) {
        end = std::min(end, world);
        return end - span > begin ? basesBelow(end - span, s, n) - basesBelow(begin, s, n) : 0;
    };
    long long within = 0;
    if (m_uniformDomainSize > 0) {
        const long long size = m_uniformDomainSize;
        const long long full = world / size;
        if (span < size && full > 0 && s * n > 0) {
            // The count per domain repeats every block * period ranks (basesBelow(x + block) adds
            // stride), so one period of domains suffices.
            const long long block = s * n;
            const long long period = block / std::gcd(block, size);
            long long perPeriod = 0, head = 0;
            const long long reps = full / period, rest = full % period;
            for (long long k = 0; k < std::min(period, full); ++k) {
                const long long c = inside(k * size, (k + 1) * size);
                perPeriod += c;
                head += k < rest ? c : 0;
            }
            within = reps > 0 ? reps * perPeriod + head : perPeriod;
        }
        if (world % size != 0)
            within += inside(full * size, world);
    } else {
        const auto& starts = *m_domainStart;
        for (std::size_t k = 0; k + 1 < starts.size() && starts[k] < world; ++k)
            within += inside(starts[k], starts[k + 1]);
    }
    return static_cast<int>(groupCount(d) - within);
}

int RankMap::rankAt(int tp, int cp, int dp, int pp) const
{
    return tp * m_axis[static_cast<int>(Dim::Tp)].stride + cp * m_axis[static_cast<int>(Dim::Cp)].stride
        + dp * m_axis[static_cast<int>(Dim::Dp)].stride + pp * m_axis[static_cast<int>(Dim::Pp)].stride;
}

} // namespace parallax::core
