// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/cluster/Topology.h"
#include "core/parallel/ParallelConfig.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace parallax::core {

// Parallel dimensions. Dense layers use tp, cp, dp, pp; expert layers use etp, ep, edp, pp
// (Megatron-Core parallel_state: expert groups are carved out of the tp*cp*dp ranks of a stage).
enum class Dim { Tp = 0, Cp, Dp, Pp, Ep, Edp, Etp, Count };
inline constexpr int kDimCount = static_cast<int>(Dim::Count);
const char* toString(Dim d);

struct RankCoords {
    int tp = 0, cp = 0, dp = 0, pp = 0; // dense view
    int etp = 0, ep = 0, edp = 0; // expert view
};

struct ParallelGroup {
    Dim dim = Dim::Tp;
    int index = 0;
    std::vector<int> ranks; // in group order
    int firstDomain = 0;
    int lastDomain = 0;
    bool crossesDomain = false; // members sit in more than one NVLink domain
};

// Rank <-> coordinates <-> GPU. Rank r runs on GPU r in topology order (domains in order, GPUs
// in order within a domain), as a launcher that fills nodes in order does.
//
// Closed form: building costs O(dims) plus one pass over the domains (O(1) memory when every
// domain has the same size, a table of domain starts otherwise); coordinates, group of a rank,
// members of a group and the domain of a rank are rank arithmetic. Only groups() materialises
// every group of a dimension, once, on first use (views and exports), shared by copies.
class RankMap {
public:
    // What build() reads of the domains, from one pass over them. A caller that has it already (the
    // engine's TopologySummary) hands it to build(), which then does not walk the domains again.
    struct DomainCounts {
        long long gpus = 0; // GPUs in every domain together
        int uniformSize = 0; // the size every domain has; 0 when sizes differ or there is no domain
        static DomainCounts of(const Topology& topology);
    };

    // `topology` may be null: coordinates and groups only, no crossing detection.
    static RankMap build(const ParallelConfig& config, const Topology* topology);
    // The same, with `counts` == DomainCounts::of(*topology) supplied by the caller.
    static RankMap build(const ParallelConfig& config, const Topology* topology, const DomainCounts& counts);

    int worldSize() const { return m_world; }
    RankCoords coords(int rank) const;
    int domainOfRank(int rank) const;
    // Whether ranks map to the topology's domains (it was given and has at least worldSize() GPUs).
    bool hasTopology() const { return m_hasTopology; }
    // Whether dimension d has groups (the expert dimensions need world % (pp etp ep) == 0).
    bool hasDim(Dim d) const { return m_axis[static_cast<int>(d)].size > 0; }
    int groupCount(Dim d) const;
    int groupSize(Dim d) const { return m_axis[static_cast<int>(d)].size; }
    // Rank distance between consecutive members of a group of `d`.
    int groupStride(Dim d) const { return m_axis[static_cast<int>(d)].stride; }
    // Index of the group of `d` that `rank` belongs to (groups are numbered by their smallest rank);
    // -1 when the dimension has no groups.
    int groupOf(Dim d, int rank) const;
    // The i-th member of group `index` of `d`.
    int member(Dim d, int index, int i) const;
    // One group, materialised (O(group size)).
    ParallelGroup group(Dim d, int index) const;
    // Every group of `d`, materialised on first call and cached.
    const std::vector<ParallelGroup>& groups(Dim d) const;
    // Groups of `d` whose members sit in more than one NVLink domain, counted per domain
    // (O(domains), O(domain size) when domains are alike), without building the groups.
    int groupsCrossingDomains(Dim d) const;
    // Rank at the given dense coordinates (tp, cp, dp, pp).
    int rankAt(int tp, int cp, int dp, int pp) const;

private:
    struct Axis {
        int size = 0; // 0: the dimension has no groups
        int stride = 1;
    };
    struct GroupCache;
    int groupBase(Dim d, int index) const;

    int m_world = 0;
    std::array<Axis, kDimCount> m_axis {};
    // Domain of rank r is r / m_uniformDomainSize when every domain holds that many GPUs; else
    // looked up in m_domains. No topology (or too few GPUs): every rank in domain 0.
    bool m_hasTopology = false;
    int m_uniformDomainSize = 0;
    std::shared_ptr<const std::vector<int>> m_domainStart;
    std::shared_ptr<GroupCache> m_cache;
};

} // namespace parallax::core
