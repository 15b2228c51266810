// SPDX-License-Identifier: Apache-2.0
#include "core/parallel/StageLayout.h"

#include "core/parallel/PipelineSplit.h"

#include <algorithm>

namespace parallax::core {

StageLayout::StageLayout(int layers, int stages)
{
    assignEven(layers, stages);
}

void StageLayout::assignEven(int layers, int stages)
{
    stages = std::max(1, stages);
    const int base = layers / stages;
    const int extra = layers % stages;
    // Middle stages take the remainder first, then the last, then the first.
    const int middleExtra = std::min(extra, std::max(0, stages - 2));
    const bool lastExtra = stages > 1 && extra > middleExtra;
    const bool firstExtra = extra > middleExtra + (lastExtra ? 1 : 0);
    m_first.assign(stages + 1, 0);
    for (int s = 0; s < stages; ++s) {
        const bool more = (s == 0 && firstExtra) || (s == stages - 1 && stages > 1 && lastExtra)
            || (s > 0 && s < stages - 1 && s <= middleExtra);
        m_first[s + 1] = m_first[s] + base + (more ? 1 : 0);
    }
}

void StageLayout::assign(int layers, const ScheduleShape& shape, const ParallelConfig& p)
{
    m_mtp.clear();
    if (const std::optional<PipelineLayoutStages> custom = customLayoutStages(layers, shape, p)) {
        assignCounts(custom->layers);
        if (!custom->mtpOnLastStage())
            m_mtp = custom->mtp;
        return;
    }
    const std::vector<int> uneven = unevenStageLayerCounts(layers, shape, p);
    if (!uneven.empty()) {
        assignCounts(uneven);
        return;
    }
    assignEven(layers, modelStageCount(shape));
}

StageLayout::StageLayout(const std::vector<int>& layersPerStage)
{
    assignCounts(layersPerStage);
}

void StageLayout::assignCounts(const std::vector<int>& layersPerStage)
{
    m_first.assign(layersPerStage.size() + 1, 0);
    for (std::size_t s = 0; s < layersPerStage.size(); ++s)
        m_first[s + 1] = m_first[s] + std::max(0, layersPerStage[s]);
    if (layersPerStage.empty())
        m_first.assign(2, 0);
}

StageLayout StageLayout::of(int layers, const ScheduleShape& shape, const ParallelConfig& p)
{
    StageLayout layout(0, 1);
    layout.assign(layers, shape, p);
    return layout;
}

int StageLayout::mtpLayersIn(int stage, int mtpLayers) const
{
    if (m_mtp.empty() || static_cast<int>(m_mtp.size()) != stages())
        return stage == stages() - 1 ? mtpLayers : 0;
    return m_mtp[stage];
}

StageHolds StageLayout::holds(int stage, int mtpLayers, bool rankHoldsEmbedding) const
{
    return StageHolds { stage == 0, stage == stages() - 1, mtpLayersIn(stage, mtpLayers), rankHoldsEmbedding };
}

} // namespace parallax::core
