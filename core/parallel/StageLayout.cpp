// SPDX-License-Identifier: Apache-2.0
#include "core/parallel/StageLayout.h"

#include "core/parallel/PipelineSplit.h"

#include <algorithm>

namespace parallax::core {

StageLayout::StageLayout(int layers, int stages)
{
    stages = std::max(1, stages);
    std::vector<int> count(stages, layers / stages);
    int extra = layers % stages;
    // Middle stages take the remainder first, then the last, then the first.
    for (int s = 1; s + 1 < stages && extra > 0; ++s, --extra)
        ++count[s];
    if (extra > 0 && stages > 1) {
        ++count[stages - 1];
        --extra;
    }
    if (extra > 0)
        ++count[0];
    m_first.assign(stages + 1, 0);
    for (int s = 0; s < stages; ++s)
        m_first[s + 1] = m_first[s] + count[s];
}

StageLayout::StageLayout(const std::vector<int>& layersPerStage)
{
    m_first.assign(layersPerStage.size() + 1, 0);
    for (std::size_t s = 0; s < layersPerStage.size(); ++s)
        m_first[s + 1] = m_first[s] + std::max(0, layersPerStage[s]);
    if (layersPerStage.empty())
        m_first.assign(2, 0);
}

StageLayout StageLayout::of(int layers, const ScheduleShape& shape, const ParallelConfig& p)
{
    const std::vector<int> uneven = unevenStageLayerCounts(layers, shape, p);
    if (!uneven.empty())
        return StageLayout(uneven);
    return StageLayout(layers, modelStageCount(shape));
}

} // namespace parallax::core
