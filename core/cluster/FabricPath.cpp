// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/FabricPath.h"

#include "core/Units.h"
#include "core/cluster/Topology.h"

#include <algorithm>
#include <map>
#include <tuple>

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
FabricRoute bestShared(const Topology& t, const std::vector<int>& fa, const std::vector<int>& fb, int da, int db,
    const std::vector<int>& localA, const std::vector<int>& localB)
{
    FabricRoute best;
    for (int f : fa) {
        if (std::find(fb.begin(), fb.end(), f) == fb.end())
            continue;
        bool crossRail = false;
        if (t.fabrics[f].railOptimized) {
            std::vector<int> ra, rb;
            for (int i : localA)
                ra.push_back(railOf(t, f, da, i));
            for (int i : localB)
                rb.push_back(railOf(t, f, db, i));
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
    const std::vector<int> fa = t.fabricsOfDomain(a.domain);
    const std::vector<int> fb = t.fabricsOfDomain(b.domain);
    return bestShared(t, fa, fb, a.domain, b.domain, { a.indexInDomain }, { b.indexInDomain });
}

GroupRoute groupRoute(const Topology& t, const std::vector<int>& gpus)
{
    GroupRoute out;
    // Members per domain, by index inside the domain.
    std::map<int, std::vector<int>> local;
    for (int g : gpus) {
        const GpuLocation loc = t.locate(g);
        if (loc.domain >= 0)
            local[loc.domain].push_back(loc.indexInDomain);
    }
    if (local.size() <= 1)
        return out;
    out.spansDomains = true;
    const std::vector<std::vector<int>> member = fabricsPerDomain(t);
    // Domains alike in fabrics, size and member positions have alike routes: keep two of each kind
    // so that a 2048-domain group costs a handful of pair checks.
    using Kind = std::tuple<std::vector<int>, int, std::vector<int>>;
    std::map<Kind, std::vector<int>> kinds;
    int firstLeaf = -2;
    for (auto& [d, idx] : local) {
        std::sort(idx.begin(), idx.end());
        auto& reps = kinds[Kind { member[d], t.domains[d].gpuCount, idx }];
        if (reps.size() < 2)
            reps.push_back(d);
        const int leaf = leafFabric(t, member[d]);
        if (firstLeaf == -2)
            firstLeaf = leaf;
        out.crossesFabric = out.crossesFabric || leaf != firstLeaf;
    }
    std::vector<int> reps;
    for (const auto& [kind, ds] : kinds)
        reps.insert(reps.end(), ds.begin(), ds.end());
    bool first = true;
    for (std::size_t i = 0; i < reps.size(); ++i) {
        for (std::size_t j = i + 1; j < reps.size(); ++j) {
            const int da = reps[i], db = reps[j];
            const FabricRoute r = bestShared(t, member[da], member[db], da, db, local[da], local[db]);
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
    for (std::size_t i = 0; i + 1 < gpus.size(); ++i) {
        const GpuLocation a = t.locate(gpus[i]);
        const GpuLocation b = t.locate(gpus[i + 1]);
        if (a.domain < 0 || b.domain < 0 || a.domain == b.domain)
            continue;
        out.spansDomains = true;
        const FabricRoute r = routeBetween(t, gpus[i], gpus[i + 1]);
        out.crossesRail = out.crossesRail || r.crossesRail;
        out.crossesFabric = out.crossesFabric
            || leafFabric(t, t.fabricsOfDomain(a.domain)) != leafFabric(t, t.fabricsOfDomain(b.domain));
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
