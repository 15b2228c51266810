// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/cluster/Topology.h"
#include "core/parallel/ParallelConfig.h"

#include <array>
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
class RankMap {
public:
    // `topology` may be null: coordinates and groups only, no crossing detection.
    static RankMap build(const ParallelConfig& config, const Topology* topology);

    int worldSize() const { return static_cast<int>(m_coords.size()); }
    const RankCoords& coords(int rank) const { return m_coords[rank]; }
    int domainOfRank(int rank) const { return m_domainOfRank.empty() ? 0 : m_domainOfRank[rank]; }
    const std::vector<ParallelGroup>& groups(Dim d) const { return m_groups[static_cast<int>(d)]; }
    int groupsCrossingDomains(Dim d) const;
    // Index of the group of `dim` that `rank` belongs to.
    int groupOf(Dim d, int rank) const { return m_groupOfRank[static_cast<int>(d)][rank]; }
    // Rank at the given dense coordinates (tp, cp, dp, pp).
    int rankAt(int tp, int cp, int dp, int pp) const;

private:
    std::vector<RankCoords> m_coords;
    std::vector<int> m_domainOfRank;
    std::array<std::vector<ParallelGroup>, kDimCount> m_groups;
    std::array<std::vector<int>, kDimCount> m_groupOfRank;
    std::array<int, 4> m_denseSize {};
    std::array<int, 4> m_denseStride {};
};

} // namespace parallax::core
