// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace parallax::core {

// Megatron-Core's custom pipeline layout (--pipeline-model-parallel-layout; TransformerConfig
// pipeline_model_parallel_layout; Megatron-LM docs "Custom Pipeline Model Parallel Layout"): the virtual
// pipeline stages in order, split by '|', each a run of symbols: 'E' the embedding, 't' a transformer layer,
// 'm' a multi-token-prediction layer, 'L' the loss (LM head). "X*N" repeats a symbol, "(...)*N" a group;
// commas and spaces are cosmetic; a stage may be empty. Virtual stage k runs on pipeline rank k % pp as its
// chunk k / pp. DeepSeek-V3 on PP16 x VPP2: "Et*3|(tt|)*29,m|L".
struct PipelineLayoutStages {
    std::vector<int> layers; // transformer layers per virtual stage
    std::vector<int> mtp; // MTP layers per virtual stage
    std::vector<int> embedding; // 'E' per virtual stage
    std::vector<int> loss; // 'L' per virtual stage
    int stages() const { return static_cast<int>(layers.size()); }
    int transformerLayers() const; // every 't'
    bool mtpOnLastStage() const; // every 'm' (if any) in the last stage, with the loss
};

// The stages of `text`, or nullopt with `error` saying what is wrong and where ("position 7: ...").
std::optional<PipelineLayoutStages> parsePipelineLayout(const std::string& text, std::string& error);

// The problem of a parsed layout for a model of `layers` transformer layers and `mtpLayers` MTP depths on
// `stages` = pp x vpp virtual stages, as "message with the fix"; empty when Parallax can run it. The embedding
// sits on the first stage and the loss on the last; the MTP layers with the loss (Megatron-Core's default) or,
// "standalone", in stages of their own after the last transformer layer (the docs' DeepSeek-V3 example).
std::string pipelineLayoutProblem(const PipelineLayoutStages& l, int layers, int mtpLayers, int pp, int stages);

} // namespace parallax::core
