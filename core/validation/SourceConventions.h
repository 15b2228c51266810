// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"

#include <nlohmann/json.hpp>
#include <string>

namespace parallax::core {

// How a source counts the FLOPs behind its printed TFLOP/s (data/README.md, "FLOPs").
enum class FlopConvention {
    MegatronCore, // Megatron-Core num_floating_point_operations (model FLOPs, GQA/SwiGLU aware)
    NarayananEq3, // arXiv:2104.04473 eq. 3 (includes the recompute forward)
    BigScience, // 8 x params x tokens (hardware FLOPs with full recompute)
};

// What the publications do not print but their frameworks did by default. The same values hold for
// every row of a source; none is fitted per row. Its fields are grouped by what they describe, not by size:
// one instance per source, read once per validate (clang-tidy's optin.performance.Padding asks to reorder).
struct SourceConventions { // NOLINT(clang-analyzer-optin.performance.Padding)
    std::string label;
    double nicGbps = 400;
    int nicsPerNode = 8;
    std::string networkNote;
    bool gptStyle = false; // biases and learned absolute positions (GPT-2/3 lineage)
    bool tiedEmbeddings = false;
    bool dropout = false;
    std::int64_t defaultVocab = 0;
    std::string vocabNote;
    bool sequenceParallelDefault = true;
    int defaultZero = 1;
    std::string zeroNote;
    Recompute defaultRecompute = Recompute::None;
    std::string recomputeNote;
    // The modules selective recompute re-runs, the optimizer's state precision and the activation storage,
    // where the source's framework is not Megatron-Core's default (DeepSeek-V3's own framework).
    unsigned selectiveModules = recompute_module::kDefault;
    OptimizerPrecision optimizer;
    bool deepseekActivationCache = false;
    // The MoE token dispatch of the source's framework (DeepSeek-V3: DeepEP-style, fp8 dispatch under FP8).
    MoeDispatcher moeDispatcher = MoeDispatcher::AllToAll;
    bool deepseekFp8Dispatch = false;
    // Multi-token-prediction depths the source trained where its record does not say (DeepSeek-V3: 1).
    int mtpLayers = 0;
    // The source's method trains its dense layers as parallel attention + MLP blocks (MegaScale's PTB).
    bool parallelBlock = false;
    std::string parallelBlockNote;
    // The source balances its pipeline where its record prints no split: the first/last split that Parallax
    // finds for the head (and MTP) on the end ranks (core/parallel/PipelineSplit.h).
    bool balancedPipelineSplit = false;
    std::string memoryNote;
    bool flashAttention = true;
    bool tpCommOverlap = false;
    // The source's context-parallel communication where its record names none (Megatron-Core's default: the p2p
    // ring; Llama 3: all-gather of K and V, arXiv:2407.21783 sec. 3.3.2).
    CpCommType cpCommType = CpCommType::P2p;
    bool dpOverlap = true;
    bool p2pOverlap = true;
    bool gradReduceInFp32 = true; // Megatron's bf16 default; fp16 runs reduce 16-bit gradients regardless
    // Experts are sharded over the dense TP degree unless the record prints etp: Megatron-Core's
    // expert_tensor_parallel_size defaults to tensor_model_parallel_size (parallel_state.py,
    // initialize_model_parallel; training/arguments.py). DeepSpeed-MoE does not shard experts by TP.
    bool expertTensorParallelFollowsTp = true;
    std::string kernelNote;
    int defaultVirtualStages = 1;
    FlopConvention flopConvention = FlopConvention::MegatronCore;
    double memoryUnitBytes = 1e9; // what the source's "GB" means
};

SourceConventions sourceConventions(const nlohmann::json& record);

// FLOPs per iteration as the source counts them, for comparing its printed TFLOP/s per GPU.
double sourceFlopsPerStep(FlopConvention convention, const Scenario& s, const nlohmann::json& record);

} // namespace parallax::core
