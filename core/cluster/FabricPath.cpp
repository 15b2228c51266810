// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/FabricPath.h"

#include "core/Units.h"
#include "core/cluster/Topology.h"

#include <algorithm>

namespace parallax::core {

namespace {

// One NVLink/NVSwitch hop before the NIC under PXN: NCCL's tuning model counts ~1-2 us per
// intra-node LL128 step (same figure as core/cluster/CommGroups.cpp).
constexpr double kPxnNvlinkHopSeconds = 2e-6;
// Cross-rail traffic without PXN climbs leaf -> spine -> leaf: two more switch traversals, each
// sub-microsecond cut-through on NDR (NVIDIA Quantum-2 QM9700 datasheet), counted as 0.5 us each.
constexpr double kSpineDetourSeconds = 1e-6;

std::vector<std::vector<int>> fabricsPerDomain(const Topology& t)
{
    std::vector<std::vector<int>> out(t.domains.size());
    for (std::size_t f = 0; f < t.fabrics.size(); ++f) {
        for (int d : t.fabrics[f].domains) {
            if (d >= 0 && d < static_cast<int>(out.size()) && (out[d].empty() || out[d].back() != static_cast<int>(f)))
                out[d].push_back(static_cast<int>(f));
        }
    }
    return out;
}

// Fabrics holding domain d, in order: fabricsPerDomain(t)[d] for one domain. A fabric that lists
// its domains in order holds d at position d (the regular form), which saves the scan.
void fabricsHolding(const Topology& t, int d, std::vector<int>& out)
{
    out.clear();
    for (std::size_t f = 0; f < t.fabrics.size(); ++f) {
        const std::vector<int>& ds = t.fabrics[f].domains;
        const auto at = static_cast<std::size_t>(d);
        if ((at < ds.size() && ds[at] == d) || std::find(ds.begin(), ds.end(), d) != ds.end())
            out.push_back(static_cast<int>(f));
    }
}

double nicSharePerGpu(const Topology& t, const Fabric& f, int domain)
{
    const int gpus = std::max(1, t.domains[domain].gpuCount);
    const int nics = f.nicsPerDomain > 0 ? f.nicsPerDomain : gpus;
    return gbpsToBytesPerSecond(f.nicGbps) * nics / gpus;
}

// The smallest fabric holding the domain: its leaf when it also sits on a spine.
int leafFabric(const Topology& t, const std::vector<int>& fabrics)
{
    int best = -1;
    for (int f : fabrics) {
        if (best < 0 || t.fabrics[f].domains.size() < t.fabrics[best].domains.size())
            best = f;
    }
    return best;
}

// The fastest fabric both domains sit on, for members at these positions inside their domains.
FabricRoute bestShared(const Topology& t, const int* fa, std::size_t na, const int* fb, std::size_t nb, int da, int db,
    const int* localA, std::size_t nLocalA, const int* localB, std::size_t nLocalB)
{
    thread_local std::vector<int> ra, rb;
    FabricRoute best;
    for (const int* pf = fa; pf != fa + na; ++pf) {
        const int f = *pf;
        if (std::find(fb, fb + nb, f) == fb + nb)
            continue;
        bool crossRail = false;
        if (t.fabrics[f].railOptimized) {
            ra.clear();
            rb.clear();
            for (std::size_t i = 0; i < nLocalA; ++i)
                ra.push_back(railOf(t, f, da, localA[i]));
            for (std::size_t i = 0; i < nLocalB; ++i)
                rb.push_back(railOf(t, f, db, localB[i]));
            std::sort(ra.begin(), ra.end());
            ra.erase(std::unique(ra.begin(), ra.end()), ra.end());
            std::sort(rb.begin(), rb.end());
            rb.erase(std::unique(rb.begin(), rb.end()), rb.end());
            crossRail = ra != rb;
        }
        const LinkLevel link = fabricLink(t, f, da, db, crossRail);
        if (best.fabric < 0 || link.bytesPerSecond > best.link.bytesPerSecond
            || (link.bytesPerSecond == best.link.bytesPerSecond && link.latencySeconds < best.link.latencySeconds))
            best = { link, f, crossRail };
    }
    return best;
}

// Topology::locate() for GPUs visited in ascending order (a group's members): a GPU in the domain of
// the previous one, or in one of the next few domains, is found by walking from there instead of a
// binary search over every domain; anything else falls back to locate(). Same answers as locate().
class AscendingLocator {
public:
    explicit AscendingLocator(const Topology& t)
        : m_t(t)
    {
    }
    GpuLocation locate(int gpu)
    {
        if (m_domain >= 0 && gpu >= m_start) {
            const int n = static_cast<int>(m_t.domains.size());
            int d = m_domain;
            int start = m_start;
            for (int walked = 0; d < n && walked <= kMaxWalk; ++d, ++walked) {
                const int size = std::max(0, m_t.domains[d].gpuCount);
                if (gpu - start < size)
                    return remember({ d, gpu - start }, start);
                start += size;
            }
        }
        const GpuLocation l = m_t.locate(gpu);
        return l.domain < 0 ? l : remember(l, gpu - l.indexInDomain);
    }

private:
    static constexpr int kMaxWalk = 4;
    GpuLocation remember(GpuLocation l, int start)
    {
        m_domain = l.domain;
        m_start = start;
        return l;
    }
    const Topology& m_t;
    int m_domain = -1;
    int m_start = 0;
};

} // namespace

int railOf(const Topology& t, int fabric, int domain, int indexInDomain)
{
    const Fabric& f = t.fabrics[fabric];
    const int gpus = std::max(1, t.domains[domain].gpuCount);
    const int nics = f.nicsPerDomain > 0 ? f.nicsPerDomain : gpus;
    return static_cast<int>(static_cast<long long>(indexInDomain) * nics / gpus);
}

LinkLevel fabricLink(const Topology& t, int fabric, int domainA, int domainB, bool crossRail)
{
    const Fabric& f = t.fabrics[fabric];
    LinkLevel link { std::min(nicSharePerGpu(t, f, domainA), nicSharePerGpu(t, f, domainB)), f.latencySeconds };
    const double oversubscription = std::max(1.0, f.oversubscription);
    if (!f.railOptimized) {
        // Fat tree: every flow may cross the oversubscribed tier.
        link.bytesPerSecond /= oversubscription;
    } else if (crossRail && f.pxn) {
        // PXN (NCCL 2.12+, NCCL_PXN_DISABLE=0): the data first moves over NVLink to the GPU on the
        // destination's rail, then leaves through that GPU's NIC and stays on the rail.
        link.bytesPerSecond = std::min(link.bytesPerSecond, t.nvlinkBytesPerSecond(domainA));
        link.latencySeconds += kPxnNvlinkHopSeconds;
    } else if (crossRail) {
        // Without PXN the flow changes rail through the spine, the oversubscribed tier.
        link.bytesPerSecond /= oversubscription;
        link.latencySeconds += kSpineDetourSeconds;
    }
    return link;
}

FabricRoute routeBetween(const Topology& t, int gpuA, int gpuB)
{
    const GpuLocation a = t.locate(gpuA);
    const GpuLocation b = t.locate(gpuB);
    if (a.domain < 0 || b.domain < 0)
        return {};
    thread_local std::vector<int> fa, fb;
    fabricsHolding(t, a.domain, fa);
    fabricsHolding(t, b.domain, fb);
    return bestShared(
        t, fa.data(), fa.size(), fb.data(), fb.size(), a.domain, b.domain, &a.indexInDomain, 1, &b.indexInDomain, 1);
}

GroupRoute groupRoute(const Topology& t, const std::vector<int>& gpus)
{
    GroupRoute out;
    // Members by (domain, index inside the domain).
    thread_local std::vector<std::pair<int, int>> loc;
    loc.clear();
    loc.reserve(gpus.size());
    AscendingLocator locator(t);
    for (int g : gpus) {
        const GpuLocation l = locator.locate(g);
        if (l.domain >= 0)
            loc.emplace_back(l.domain, l.indexInDomain);
    }
    // Members listed in rank order (every strided group) come out sorted already.
    if (!std::is_sorted(loc.begin(), loc.end()))
        std::sort(loc.begin(), loc.end());
    if (loc.empty() || loc.front().first == loc.back().first)
        return out;
    out.spansDomains = true;
    // One entry per domain: its members' indices and its fabrics, as ranges of flat arrays.
    struct DomainMembers {
        int domain;
        std::size_t begin, end; // into idx
        std::size_t fabricBegin, fabricEnd; // into fabrics
    };
    thread_local std::vector<int> idx, fabrics, scratch;
    thread_local std::vector<DomainMembers> doms;
    idx.clear();
    fabrics.clear();
    doms.clear();
    for (std::size_t i = 0; i < loc.size();) {
        const std::size_t first = idx.size();
        const int d = loc[i].first;
        for (; i < loc.size() && loc[i].first == d; ++i)
            idx.push_back(loc[i].second);
        fabricsHolding(t, d, scratch);
        const std::size_t fabricBegin = fabrics.size();
        fabrics.insert(fabrics.end(), scratch.begin(), scratch.end());
        doms.push_back({ d, first, idx.size(), fabricBegin, fabrics.size() });
    }
    auto leafOf = [&](const DomainMembers& d) {
        scratch.assign(fabrics.begin() + static_cast<std::ptrdiff_t>(d.fabricBegin),
            fabrics.begin() + static_cast<std::ptrdiff_t>(d.fabricEnd));
        return leafFabric(t, scratch);
    };
    // Domains alike in fabrics, size and member positions have alike routes: keep two of each kind
    // so that a 2048-domain group costs a handful of pair checks.
    auto sameKind = [&](const DomainMembers& a, const DomainMembers& b) {
        return std::equal(fabrics.begin() + static_cast<std::ptrdiff_t>(a.fabricBegin),
                   fabrics.begin() + static_cast<std::ptrdiff_t>(a.fabricEnd),
                   fabrics.begin() + static_cast<std::ptrdiff_t>(b.fabricBegin),
                   fabrics.begin() + static_cast<std::ptrdiff_t>(b.fabricEnd))
            && t.domains[a.domain].gpuCount == t.domains[b.domain].gpuCount
            && std::equal(idx.begin() + static_cast<std::ptrdiff_t>(a.begin),
                idx.begin() + static_cast<std::ptrdiff_t>(a.end), idx.begin() + static_cast<std::ptrdiff_t>(b.begin),
                idx.begin() + static_cast<std::ptrdiff_t>(b.end));
    };
    thread_local std::vector<std::size_t> reps, kinds; // kept domains; the first domain of each kind
    thread_local std::vector<int> repCount;
    reps.clear();
    kinds.clear();
    repCount.clear();
    const int firstLeaf = leafOf(doms.front());
    // A domain on the same fabrics as the first one has its leaf.
    auto sameFabricsAsFirst = [&](const DomainMembers& d) {
        const DomainMembers& f = doms.front();
        return std::equal(fabrics.begin() + static_cast<std::ptrdiff_t>(d.fabricBegin),
            fabrics.begin() + static_cast<std::ptrdiff_t>(d.fabricEnd),
            fabrics.begin() + static_cast<std::ptrdiff_t>(f.fabricBegin),
            fabrics.begin() + static_cast<std::ptrdiff_t>(f.fabricEnd));
    };
    std::size_t lastKind = 0;
    for (std::size_t i = 0; i < doms.size(); ++i) {
        // Kinds differ pairwise, so a domain is of at most one: the previous domain's is tried first.
        std::size_t k = lastKind;
        if (k >= kinds.size() || !sameKind(doms[kinds[k]], doms[i])) {
            k = 0;
            while (k < kinds.size() && !sameKind(doms[kinds[k]], doms[i]))
                ++k;
        }
        lastKind = k;
        if (k == kinds.size()) {
            kinds.push_back(i);
            repCount.push_back(0);
        }
        if (repCount[k] < 2) {
            ++repCount[k];
            reps.push_back(i);
        }
        out.crossesFabric = out.crossesFabric || (!sameFabricsAsFirst(doms[i]) && leafOf(doms[i]) != firstLeaf);
    }
    bool first = true;
    for (std::size_t i = 0; i < reps.size(); ++i) {
        for (std::size_t j = i + 1; j < reps.size(); ++j) {
            const DomainMembers& a = doms[reps[i]];
            const DomainMembers& b = doms[reps[j]];
            const FabricRoute r = bestShared(t, fabrics.data() + a.fabricBegin, a.fabricEnd - a.fabricBegin,
                fabrics.data() + b.fabricBegin, b.fabricEnd - b.fabricBegin, a.domain, b.domain, idx.data() + a.begin,
                a.end - a.begin, idx.data() + b.begin, b.end - b.begin);
            out.crossesRail = out.crossesRail || r.crossesRail;
            if (first || r.link.bytesPerSecond < out.link.bytesPerSecond)
                out.link.bytesPerSecond = r.link.bytesPerSecond;
            out.link.latencySeconds
                = first ? r.link.latencySeconds : std::max(out.link.latencySeconds, r.link.latencySeconds);
            first = false;
        }
    }
    return out;
}

GroupRoute chainRoute(const Topology& t, const std::vector<int>& gpus)
{
    GroupRoute out;
    bool first = true;
    thread_local std::vector<int> fa, fb;
    for (std::size_t i = 0; i + 1 < gpus.size(); ++i) {
        const GpuLocation a = t.locate(gpus[i]);
        const GpuLocation b = t.locate(gpus[i + 1]);
        if (a.domain < 0 || b.domain < 0 || a.domain == b.domain)
            continue;
        out.spansDomains = true;
        // routeBetween(t, gpus[i], gpus[i + 1]) with the locations and fabrics found once.
        fabricsHolding(t, a.domain, fa);
        fabricsHolding(t, b.domain, fb);
        const FabricRoute r = bestShared(t, fa.data(), fa.size(), fb.data(), fb.size(), a.domain, b.domain,
            &a.indexInDomain, 1, &b.indexInDomain, 1);
        out.crossesRail = out.crossesRail || r.crossesRail;
        out.crossesFabric = out.crossesFabric || leafFabric(t, fa) != leafFabric(t, fb);
        out.link.bytesPerSecond
            = first ? r.link.bytesPerSecond : std::min(out.link.bytesPerSecond, r.link.bytesPerSecond);
        out.link.latencySeconds = std::max(out.link.latencySeconds, r.link.latencySeconds);
        first = false;
    }
    return out;
}

bool fabricsConnectAllDomains(const Topology& t)
{
    const int domains = static_cast<int>(t.domains.size());
    if (domains <= 1)
        return true;
    for (const Fabric& f : t.fabrics) {
        std::vector<bool> on(domains, false);
        int count = 0;
        for (int d : f.domains) {
            if (d >= 0 && d < domains && !on[d]) {
                on[d] = true;
                ++count;
            }
        }
        if (count == domains)
            return true;
    }
    // Otherwise every pair of distinct membership sets must intersect.
    const std::vector<std::vector<int>> member = fabricsPerDomain(t);
    std::vector<std::vector<int>> sets(member.begin(), member.end());
    std::sort(sets.begin(), sets.end());
    sets.erase(std::unique(sets.begin(), sets.end()), sets.end());
    for (std::size_t i = 0; i < sets.size(); ++i) {
        if (sets[i].empty())
            return false;
        for (std::size_t j = i + 1; j < sets.size(); ++j) {
            bool shared = false;
            for (int f : sets[i])
                shared = shared || std::find(sets[j].begin(), sets[j].end(), f) != sets[j].end();
            if (!shared)
                return false;
        }
    }
    return true;
}

} // namespace parallax::core
