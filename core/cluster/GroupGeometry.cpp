// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/GroupGeometry.h"

#include "core/cluster/CommGroups.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <numeric>

namespace parallax::core {

namespace {
// Members of the group that stand for all of it when domains are alike: those in its first
// 2 period + 2 domains and in its last one. Inside the group the pattern of member positions per
// domain repeats every `period` domains: stride / gcd(stride, domainSize) of them when several
// members share a domain (stride < domainSize), domainSize / gcd(stride, domainSize) members when
// each member has its own. So the sample holds every kind of domain of the group, twice where the
// group has it twice (what groupRoute() keeps of each kind); only the first and last domains can
// be cut short.
void sampledMembers(int base, int stride, int size, int domainSize, std::vector<int>& out)
{
    out.clear();
    const int g = std::gcd(stride, domainSize);
    const int period = stride < domainSize ? stride / g : domainSize / g;
    const int keep = 2 * period + 2;
    int domains = 0, lastDomain = -1, i = 0;
    for (; i < size; ++i) {
        const int r = base + i * stride;
        const int d = r / domainSize;
        if (d != lastDomain && ++domains > keep)
            break;
        lastDomain = d;
        out.push_back(r);
    }
    if (i == size)
        return;
    const int finalDomain = (base + (size - 1) * stride) / domainSize;
    int j = size - 1;
    while (j >= i && (base + j * stride) / domainSize == finalDomain)
        --j;
    for (int k = j + 1; k < size; ++k)
        out.push_back(base + k * stride);
}

// Results of strided groups on alike domains, per thread, direct-mapped: an entry holds the route
// cache id of the shape it was computed on and the group's pattern (its base's position inside a
// domain, stride, size, chain), so an entry of another topology or pattern is a miss and is
// overwritten. No allocation, no clearing, no lock.
template <typename Value> class StridedCache {
public:
    struct Key {
        std::uint64_t id = 0;
        int baseInDomain = 0;
        int stride = 0;
        int size = 0;
        bool chain = false;
        bool operator==(const Key&) const = default;
    };
    // The cached value of `key`, else compute() stored under it.
    template <typename Compute> Value get(const Key& key, Compute compute)
    {
        std::uint64_t h = key.id * 0x9E3779B97F4A7C15ull;
        h ^= static_cast<std::uint64_t>(static_cast<unsigned>(key.baseInDomain)) * 0xC2B2AE3D27D4EB4Full;
        h ^= static_cast<std::uint64_t>(static_cast<unsigned>(key.stride)) * 0x165667B19E3779F9ull;
        h ^= (static_cast<std::uint64_t>(static_cast<unsigned>(key.size)) << 1 | (key.chain ? 1u : 0u))
            * 0x27D4EB2F165667C5ull;
        Entry& e = m_entries[(h >> 32) % kEntries];
        if (!(e.key == key)) {
            e.value = compute();
            e.key = key;
        }
        return e.value;
    }

private:
    static constexpr std::size_t kEntries = 1024;
    struct Entry {
        Key key; // id 0: empty (ids start at 1)
        Value value {};
    };
    Entry m_entries[kEntries];
};

template <typename Value> StridedCache<Value>& stridedCache()
{
    thread_local StridedCache<Value> cache;
    return cache;
}

bool fabricHoldsAllInOrder(const Fabric& f, int domains)
{
    if (static_cast<int>(f.domains.size()) != domains)
        return false;
    for (int d = 0; d < domains; ++d) {
        if (f.domains[d] != d)
            return false;
    }
    return true;
}
} // namespace

DomainShape DomainShape::of(const Topology& topology)
{
    return of(topology, topology.scanDomains());
}

DomainShape DomainShape::of(const Topology& topology, const Topology::DomainScan& scan)
{
    DomainShape s;
    const int n = static_cast<int>(topology.domains.size());
    if (n == 0 || !scan.uniformSize || !scan.uniformNvlink)
        return s;
    for (const Fabric& f : topology.fabrics) {
        if (!fabricHoldsAllInOrder(f, n))
            return s;
    }
    s.alike = true;
    s.domainSize = scan.firstSize;
    s.routeCacheId = routeCacheIdOf(topology, scan.firstSize, scan.firstNvlink);
    return s;
}

namespace {
// What a strided route on alike domains reads of its topology (alikeStridedCommGroup, groupRoute and
// chainRoute in core/cluster/FabricPath.cpp, Topology's link lookups): the domain count and size, the
// NVLink bandwidth, and each fabric's links, every fabric holding every domain in order. Topologies
// equal in these have equal routes, bit for bit.
struct RouteContent {
    struct FabricLinks {
        double nicGbps = 0;
        int nicsPerDomain = 0;
        double latencySeconds = 0;
        double oversubscription = 0;
        bool railOptimized = false;
        bool pxn = false;
        bool operator==(const FabricLinks&) const = default;
    };
    int domains = 0;
    int domainSize = 0;
    double nvlink = 0;
    std::vector<FabricLinks> fabrics;

    static FabricLinks linksOf(const Fabric& f)
    {
        return { f.nicGbps, f.nicsPerDomain, f.latencySeconds, f.oversubscription, f.railOptimized, f.pxn };
    }
    bool describes(const Topology& t, int size, double bandwidth) const
    {
        if (domains != static_cast<int>(t.domains.size()) || domainSize != size || nvlink != bandwidth
            || fabrics.size() != t.fabrics.size())
            return false;
        for (std::size_t f = 0; f < fabrics.size(); ++f) {
            if (!(fabrics[f] == linksOf(t.fabrics[f])))
                return false;
        }
        return true;
    }
};
} // namespace

std::uint64_t DomainShape::routeCacheIdOf(const Topology& topology, int domainSize, double nvlink)
{
    // The last few contents seen on this thread and their ids; an evicted content that comes back gets
    // a new id (its old entries in the route caches are then misses, never wrong).
    struct Seen {
        RouteContent content;
        std::uint64_t id = 0;
    };
    constexpr std::size_t kSeen = 8;
    thread_local std::array<Seen, kSeen> seen;
    thread_local std::size_t next = 0;
    for (const Seen& e : seen) {
        if (e.id != 0 && e.content.describes(topology, domainSize, nvlink))
            return e.id;
    }
    Seen& e = seen[next];
    next = (next + 1) % kSeen;
    e.content.domains = static_cast<int>(topology.domains.size());
    e.content.domainSize = domainSize;
    e.content.nvlink = nvlink;
    e.content.fabrics.clear();
    for (const Fabric& f : topology.fabrics)
        e.content.fabrics.push_back(RouteContent::linksOf(f));
    // Ids are unique over all threads, so a shape computed on one thread and read on another names
    // its own topology's routes in that thread's caches too.
    static std::atomic<std::uint64_t> counter { 1 };
    e.id = counter.fetch_add(1, std::memory_order_relaxed);
    return e.id;
}

namespace {
CommGroup alikeStridedCommGroup(const Topology& topology, const DomainShape& shape, int base, int stride, int size)
{
    thread_local std::vector<int> ranks;
    CommGroup g;
    g.size = size;
    if (size <= 0)
        return g;
    const int D = shape.domainSize;
    sampledMembers(base, stride, size, D, ranks);
    // Members per domain: the largest count is one of the sampled kinds.
    int inner = 0;
    for (std::size_t i = 0; i < ranks.size();) {
        std::size_t j = i;
        while (j < ranks.size() && ranks[j] / D == ranks[i] / D)
            ++j;
        inner = std::max(inner, static_cast<int>(j - i));
        i = j;
    }
    const int first = base / D, last = (base + (size - 1) * stride) / D;
    // A stride below the domain size touches every domain in between; a larger one, one domain per member.
    g.outer = stride < D ? last - first + 1 : size;
    g.inner = std::max(1, inner);
    const double nvlink = topology.nvlinkBytesPerSecond(first);
    const double scaleOut = topology.scaleOutBytesPerSecondPerGpu(first);
    g.intra = { nvlink, kNvlinkHopLatencySeconds };
    g.inter = { scaleOut > 0 ? scaleOut : nvlink, topology.scaleOutLatencySeconds(first) };
    if (const GroupRoute route = groupRoute(topology, ranks); route.spansDomains && route.link.bytesPerSecond > 0)
        g.inter = route.link;
    return g;
}

GroupRoute uncachedStridedGroupRoute(
    const Topology& topology, const DomainShape& shape, int base, int stride, int size, bool chain)
{
    thread_local std::vector<int> ranks;
    if (shape.alike && chain) {
        // A hop between alike domains depends only on the two members' positions inside their
        // domains: route each distinct hop once and combine as chainRoute() does (slowest link,
        // largest latency, any crossing).
        GroupRoute out;
        bool first = true;
        const int D = shape.domainSize;
        thread_local std::vector<std::pair<int, int>> seen;
        seen.clear();
        for (int i = 0; i + 1 < size; ++i) {
            const int a = base + i * stride, b = a + stride;
            if (a / D == b / D)
                continue;
            const std::pair<int, int> key { a % D, b % D };
            if (std::find(seen.begin(), seen.end(), key) != seen.end())
                continue;
            seen.push_back(key);
            ranks.assign({ a, b });
            const GroupRoute hop = chainRoute(topology, ranks);
            out.spansDomains = true;
            out.crossesRail = out.crossesRail || hop.crossesRail;
            out.crossesFabric = out.crossesFabric || hop.crossesFabric;
            out.link.bytesPerSecond
                = first ? hop.link.bytesPerSecond : std::min(out.link.bytesPerSecond, hop.link.bytesPerSecond);
            out.link.latencySeconds = std::max(out.link.latencySeconds, hop.link.latencySeconds);
            first = false;
        }
        return out;
    }
    if (shape.alike) {
        sampledMembers(base, stride, size, shape.domainSize, ranks);
    } else {
        ranks.resize(size);
        for (int i = 0; i < size; ++i)
            ranks[i] = base + i * stride;
    }
    return chain ? chainRoute(topology, ranks) : groupRoute(topology, ranks);
}
} // namespace

CommGroup stridedCommGroup(const Topology& topology, const DomainShape& shape, int base, int stride, int size)
{
    if (!shape.alike) {
        thread_local std::vector<int> ranks;
        ranks.resize(size);
        for (int i = 0; i < size; ++i)
            ranks[i] = base + i * stride;
        return commGroupFor(ranks, topology);
    }
    if (shape.routeCacheId == 0 || size <= 0 || base < 0)
        return alikeStridedCommGroup(topology, shape, base, stride, size);
    const StridedCache<CommGroup>::Key key { shape.routeCacheId, base % shape.domainSize, stride, size, false };
    return stridedCache<CommGroup>().get(
        key, [&] { return alikeStridedCommGroup(topology, shape, key.baseInDomain, stride, size); });
}

GroupRoute stridedGroupRoute(
    const Topology& topology, const DomainShape& shape, int base, int stride, int size, bool chain)
{
    if (!shape.alike || shape.routeCacheId == 0 || size <= 0 || base < 0)
        return uncachedStridedGroupRoute(topology, shape, base, stride, size, chain);
    const StridedCache<GroupRoute>::Key key { shape.routeCacheId, base % shape.domainSize, stride, size, chain };
    return stridedCache<GroupRoute>().get(
        key, [&] { return uncachedStridedGroupRoute(topology, shape, key.baseInDomain, stride, size, chain); });
}

namespace {
GroupCrossings alikeGroupCrossings(const Topology& topology, const DomainShape& shape, const RankMap& map, Dim d);

// Adds `groups` groups of dimension d like the one whose first member is `base`, when it leaves its domain.
void addGroupCrossing(GroupCrossings& out, const Topology& topology, const DomainShape& shape, const RankMap& map,
    Dim d, int base, long long groups)
{
    const int n = map.groupSize(d), s = map.groupStride(d);
    if (map.domainOfRank(base) == map.domainOfRank(base + (n - 1) * s))
        return;
    const GroupRoute route = stridedGroupRoute(topology, shape, base, s, n, d == Dim::Pp);
    out.fabrics += static_cast<int>(route.crossesFabric * groups);
    out.rails += static_cast<int>(route.crossesRail * groups);
}
} // namespace

GroupCrossings groupCrossings(const Topology& topology, const DomainShape& shape, const RankMap& map, Dim d)
{
    GroupCrossings out;
    const int n = map.groupSize(d), s = map.groupStride(d), count = map.groupCount(d);
    if (n <= 1 || map.groupsCrossingDomains(d) == 0)
        return out;
    const bool chain = d == Dim::Pp;
    if (!shape.alike) {
        for (int g = 0; g < count; ++g)
            addGroupCrossing(out, topology, shape, map, d, map.member(d, g, 0), 1);
        return out;
    }
    // On alike domains the counts depend on the route content, the group size and stride and the world
    // size only: kept per thread like the routes (an evaluation after an edit that leaves the layout
    // alone, a search's micro-batch, recompute and ZeRO variants of one layout). The key's base field
    // holds the world size: every group of the dimension is counted.
    if (shape.routeCacheId != 0) {
        const StridedCache<GroupCrossings>::Key key { shape.routeCacheId, map.worldSize(), s, n, chain };
        return stridedCache<GroupCrossings>().get(key, [&] { return alikeGroupCrossings(topology, shape, map, d); });
    }
    return alikeGroupCrossings(topology, shape, map, d);
}

namespace {
// groupCrossings on alike domains, without the cache.
GroupCrossings alikeGroupCrossings(const Topology& topology, const DomainShape& shape, const RankMap& map, Dim d)
{
    GroupCrossings out;
    const int n = map.groupSize(d), s = map.groupStride(d);
    // Group bases are low + high * s * n (low < s, high < world / (s n)). Shifting a base by whole
    // domains shifts the group by whole domains, so groups with the same base % D have the same
    // route: count the groups per residue (low and high residues combine cyclically) and route one of each.
    const long long D = shape.domainSize;
    const long long block = static_cast<long long>(s) * n;
    const long long highs = map.worldSize() / block;
    thread_local std::vector<long long> lowCount, highCount, highFirst; // no allocation per evaluation
    lowCount.assign(D, 0);
    highCount.assign(D, 0);
    highFirst.assign(D, -1);
    for (long long j = 0; j < std::min<long long>(D, s); ++j)
        lowCount[j] = s / D + (j < s % D ? 1 : 0);
    const long long step = block % D;
    const long long period = step == 0 ? 1 : D / std::gcd(step, D);
    for (long long h = 0; h < std::min(period, highs); ++h) {
        const long long c = (h * step) % D;
        highCount[c] += highs / period + (h < highs % period ? 1 : 0);
        if (highFirst[c] < 0)
            highFirst[c] = h;
    }
    for (long long k = 0; k < D; ++k) {
        long long groups = 0;
        long long base = -1;
        for (long long j = 0; j < D; ++j) {
            const long long c = k >= j ? k - j : k - j + D; // (k - j) mod D without a division (k, j < D)
            if (lowCount[j] == 0 || highCount[c] == 0)
                continue;
            groups += lowCount[j] * highCount[c];
            const long long b = j + highFirst[c] * block;
            base = base < 0 ? b : std::min(base, b);
        }
        if (groups > 0)
            addGroupCrossing(out, topology, shape, map, d, static_cast<int>(base), groups);
    }
    return out;
}
} // namespace

} // namespace parallax::core
