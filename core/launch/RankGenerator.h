// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace parallax::core {

// Megatron-Core's rank enumeration (megatron/core/parallel_state.py, RankGenerator and
// generate_masked_orthogonal_rank_groups): the global rank is a mixed-radix number over the axes of
// `order`, fastest first; a group for a token such as "dp-cp" holds the ranks that differ only in
// the named axes, its members enumerated with the order's faster axis varying fastest, and the
// groups enumerated over the remaining axes the same way.
class RankGenerator {
public:
    // Axes missing from `order` are appended when their size is 1; an axis of size > 1 missing
    // from it, an unknown or a repeated token is an error (the message names the order).
    static std::optional<RankGenerator> make(
        int tp, int ep, int dp, int pp, int cp, const std::string& order, std::string& error);

    int worldSize() const { return m_world; }
    const std::vector<std::string>& axes() const { return m_axes; }
    // Groups of global ranks for a token of axis names joined by '-' ("tp", "dp-cp", "tp-ep-pp").
    // An unknown axis name gives no groups.
    std::vector<std::vector<int>> ranks(const std::string& token) const;

private:
    std::vector<std::string> m_axes;
    std::vector<int> m_sizes;
    int m_world = 1;
};

} // namespace parallax::core
