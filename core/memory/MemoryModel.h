// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/costs/CostModel.h"
#include "core/costs/DataParallelSync.h"
#include "core/memory/ActivationMemory.h"
#include "core/parallel/ParameterShard.h"
#include "core/parallel/StageLayout.h"
#include "core/report/Report.h"

#include <vector>

namespace parallax::core {

struct MemoryInputs {
    const ModelSpec& model;
    const ParallelConfig& parallel;
    const TrainingConfig& training;
    const ScheduleShape& shape;
    const StageLayout& layout;
    const SimulationResult& schedule; // peak in-flight activation bytes per rank
    const SimulationInput& simulation; // per-chunk activation bytes
    const std::vector<double>& backwardWorkingSet; // per rank: one layer's activation gradients at a time
    const ActivationContext& context;
};

// Stated defaults for memory outside weights, optimizer and activations.
// CUDA context and cuBLAS/cuDNN workspaces: ~0.5-1 GiB per process on Hopper (PyTorch CUDA context
// measurements; NVIDIA CUDA C Programming Guide, "Lazy loading"). NCCL: NCCL_BUFFSIZE 4 MiB per
// channel and peer, ~0.25 GiB per communicator in practice (NCCL environment variable docs).
// Caching-allocator reserve above the allocated bytes: the parameter, gradient and optimizer buffers are
// a few large contiguous allocations (Megatron-Core param_and_grad_buffer.py) that the allocator only
// rounds up to 2 MiB (c10/cuda/CUDACachingAllocator.cpp, kRoundLarge); the many activation and
// transient tensors of varying size leave split, cached blocks: a stated 5% of that dynamic memory.
struct OtherMemoryDefaults {
    double cudaContextBytes = 0.75 * 1024 * 1024 * 1024;
    double ncclBytesPerCommunicator = 0.25 * 1024 * 1024 * 1024;
    double fragmentationFraction = 0.05;
};

// Transient bytes of the LM head and loss for one micro-batch on the last stage: the fp32 logits,
// vocabulary-parallel, plus the final norm and head inputs (arXiv:2205.05198 sec. 4.3:
// 4 s b v / t + 4 s b h / t).
double lmHeadTransientBytes(double tokens, double vocab, double hidden, int tp, double replicatedShare);

// Parameters of the largest single module (one linear, or the vocabulary table) among layers
// [firstLayer, endLayer) and, when holdsVocab, the embedding / LM head, as one GPU holds it: the unit
// ZeRO-3 gathers at a time.
double largestModuleParameters(
    const ModelSpec& m, const ParallelConfig& p, int firstLayer, int endLayer, bool holdsVocab);

ParameterShard rankParameters(const MemoryInputs& in, int rank);
std::vector<StageMemory> memoryPerStage(const MemoryInputs& in);

// Gradient reduction and ZeRO parameter gathers for one pipeline rank (core/costs/DataParallelSync.h):
// ZeRO 0-2 per model chunk on the rank's simulated timeline (pipelinedDataParallelSync); ZeRO-3, or a
// schedule in closed form (no ops), against the given one-micro-batch forward / backward windows.
// `rankParams`: rankParameters(in, rank) when the caller has it (memoryPerStage's StageMemory).
DpSyncTimes dpSyncSeconds(const MemoryInputs& in, int rank, const CommGroup& dp, const CommGroup& edp,
    double forwardWindowSeconds, double backwardWindowSeconds, const ParameterShard* rankParams = nullptr);

} // namespace parallax::core
