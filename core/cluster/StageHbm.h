// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vector>

namespace parallax::core {

class Topology;
class RankMap;

// The HBM each pipeline rank has to fit in: the smallest HBM among the GPUs that hold it (rank r runs
// on GPU r, as RankMap maps them). In a cluster of one GPU type every entry is that GPU's HBM; in a
// mixed one a stage placed on the larger GPUs gets their HBM, so a layout that puts its fullest stage
// there is not judged by the smaller GPUs it does not use. O(domains) for one HBM size, O(world) else.
std::vector<double> pipelineRankHbmBytes(const Topology& topology, const RankMap& map, int pp);

} // namespace parallax::core
