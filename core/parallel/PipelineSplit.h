// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/model/ModelSpec.h"
#include "core/parallel/ParallelConfig.h"
#include "core/parallel/PipelineLayout.h"
#include "core/schedule/PipelineSchedule.h"

#include <optional>
#include <string>
#include <vector>

namespace parallax::core {

// Megatron-Core's uneven pipeline split (megatron/core/transformer/transformer_config.py and
// transformer_block.py get_num_layers_to_build):
// - num_layers_in_first/last_pipeline_stage: the first / last pipeline rank hold that many
//   transformer layers; the others share the rest evenly (it must divide). With virtual stages each
//   rank's count is split evenly over its vpp chunks (it must divide too).
// - account_for_embedding/loss_in_pipeline_split: the embedding / the loss counts as one layer, so
//   (layers + 1 or 2) must divide by pp (x vpp), and the first / last rank holds one layer fewer.
// The two forms exclude each other and need pp > 1. Under the V-shaped ZB-V, DualPipe and DualPipeV, whose
// rank 0 holds the first and the last model stage, only the counts apply, as layers of those model stages.
// A custom layout (parallel.pipeline_layout, core/parallel/PipelineLayout.h) counts as one, for 1F1B and
// interleaved 1F1B only.
bool hasUnevenSplit(const ParallelConfig& p);

// Empty when the split is valid, else "field: message with the fix". `mtpLayers` checks a custom layout's 'm'.
std::string pipelineSplitProblem(int layers, const ParallelConfig& p, int mtpLayers = 0);

// The custom layout's stages (parallel.pipeline_layout) when it parses and matches the shape and the
// model's layers, else nullopt.
std::optional<PipelineLayoutStages> customLayoutStages(int layers, const ScheduleShape& shape, const ParallelConfig& p);

// Transformer layers per model stage (as modelStageOf numbers them) for a valid split; empty when
// the split is invalid or even.
std::vector<int> unevenStageLayerCounts(int layers, const ScheduleShape& shape, const ParallelConfig& p);

// The first/last rank layer counts that best balance the LM head on the last rank: the valid pair
// (Megatron's divisibility rules) minimising the heaviest rank's forward FLOPs, the head counted as
// `headLayerEquivalents` layers; under the V schedules the first and last model stage's counts, both on
// rank 0. {0, 0} when the even split is already best or no split applies.
struct StageSplit {
    int firstStageLayers = 0;
    int lastStageLayers = 0;
};
StageSplit balancedPipelineSplit(int layers, int pp, int vpp, ScheduleKind kind, double headLayerEquivalents);

// The LM head's forward FLOPs per token, with the MTP depths that share its stage, in units of the mean
// transformer layer's.
double lmHeadLayerEquivalents(const ModelSpec& m, int seqLen);

} // namespace parallax::core
