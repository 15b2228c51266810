// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/parallel/ParallelConfig.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace parallax::core {

class Topology;

// The communicator groups Megatron-Core's initialize_model_parallel creates for a layout: dense
// groups (tp, cp, dp, pp, dp-cp) from its decoder RankGenerator, expert groups (ep, etp, edp) from
// its expert RankGenerator (tp -> etp, dp -> edp, cp = 1, same order string). Built on request
// only: its size grows with the GPU count.
class RankGroups {
public:
    enum Kind { Tp = 0, Cp, Dp, Pp, Ep, Etp, Edp, DpCp, KindCount };
    static const char* name(Kind k); // "tp" ... "dp-cp"
    static std::optional<Kind> parseKind(const std::string& name);

    // `moe`: the model has expert layers. A dense model gets etp = tp, as Megatron-LM does when
    // --expert-tensor-parallel-size is not given. `error` names the field and the fix.
    static std::optional<RankGroups> build(const ParallelConfig& config, bool moe, std::string& error);

    int worldSize() const { return m_world; }
    int expertTensorParallelSize() const { return m_etp; }
    int expertDataParallelSize() const { return m_edp; }
    const std::vector<std::vector<int>>& groups(Kind k) const { return m_groups[k]; }
    // Position of `rank` inside its group of kind `k` (its tp rank, dp rank, ...).
    int coordinate(Kind k, int rank) const { return m_coord[k][static_cast<std::size_t>(rank)]; }
    int groupIndex(Kind k, int rank) const { return m_groupOf[k][static_cast<std::size_t>(rank)]; }

private:
    int m_world = 0;
    int m_etp = 1;
    int m_edp = 1;
    std::array<std::vector<std::vector<int>>, KindCount> m_groups;
    std::array<std::vector<int>, KindCount> m_coord;
    std::array<std::vector<int>, KindCount> m_groupOf;
};

} // namespace parallax::core
