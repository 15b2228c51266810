// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/model/ModelSpec.h"
#include "core/parallel/ParallelConfig.h"
#include "core/parallel/ParameterShard.h"
#include "core/schedule/PipelineSchedule.h"

#include <vector>

namespace parallax::core {

// Which transformer layers each model stage holds. Layers are split as evenly as possible; when
// they do not divide, the first and last stages (which also carry the embedding and the LM head)
// get the fewer layers, as Llama 3 did (arXiv:2407.21783 sec. 3.3.2).
class StageLayout {
public:
    StageLayout(int layers, int stages);
    // Layers per model stage given explicitly (an uneven split, core/parallel/PipelineSplit.h).
    explicit StageLayout(const std::vector<int>& layersPerStage);
    // The parallel config's split: Megatron's uneven first/last-rank split when one is set and
    // valid, else the even split above.
    static StageLayout of(int layers, const ScheduleShape& shape, const ParallelConfig& p);
    // The same into this layout, reusing its storage (an engine evaluation per edit).
    void assign(int layers, const ScheduleShape& shape, const ParallelConfig& p);
    int stages() const { return static_cast<int>(m_first.size()) - 1; }
    int firstLayer(int stage) const { return m_first[stage]; }
    int endLayer(int stage) const { return m_first[stage + 1]; }
    int layerCount(int stage) const { return endLayer(stage) - firstLayer(stage); }
    // The model's `mtpLayers` multi-token-prediction depths in `stage`: all in the last stage (Megatron-Core's
    // default, with the loss) unless a custom layout places them in stages of their own ("standalone").
    int mtpLayersIn(int stage, int mtpLayers) const;
    // What `stage` holds beside its layers (core/parallel/ParameterShard.h).
    StageHolds holds(int stage, int mtpLayers, bool rankHoldsEmbedding) const;

private:
    void assignEven(int layers, int stages);
    void assignCounts(const std::vector<int>& layersPerStage);
    std::vector<int> m_first;
    std::vector<int> m_mtp; // a custom layout's MTP depths per stage; empty: all with the loss
};

} // namespace parallax::core
