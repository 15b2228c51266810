// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/parallel/ParallelConfig.h"
#include "core/parallel/ParameterShard.h"

namespace parallax::core {

// Bytes one GPU holds for its parameters, gradients and Adam states, as Megatron-Core lays them out
// (Megatron-Core docs, "Distributed Optimizer"; core/distributed/param_and_grad_buffer.py):
// - the bf16 parameters live in one contiguous param buffer, whole on every data-parallel rank until
//   ZeRO-3 shards them;
// - the gradients accumulate in one contiguous grad buffer, whole (not sharded) under the distributed
//   optimizer, in fp32 with --accumulate-allreduce-grads-in-fp32 (Megatron's bf16 default) or in the
//   parameter dtype with --grad-reduce-in-bf16 / NeMo's grad_reduce_in_fp32=False;
// - fp32 main parameters plus Adam m and v (12 B) are sharded over the data-parallel group by
//   --use-distributed-optimizer (ZeRO-1);
// - with 16-bit gradients the optimizer casts its shard of the reduced gradients to fp32 (4 B / d),
//   allocated at the optimizer step, after the activations are freed, and released by zero_grad.
// So bf16 parameters with fp32 gradients cost 6 + 12/d bytes per parameter and 16-bit gradients
// 4 + 16/d at the optimizer step (the Megatron-Core table). The precision-aware optimizer
// (core/parallel/OptimizerPrecision.h) changes the 12 and the 4 of the copy to its dtypes' sizes.
struct ModelStateBytes {
    double weights = 0;
    double grads = 0; // the grad buffer (sharded only by ZeRO-2/3)
    double optimizer = 0; // main parameters, Adam m and v
    double mainGradShard = 0; // main-gradient copy of the reduced gradient shard, held only during the step
    double total() const { return weights + grads + optimizer; }
};

// Bytes per parameter of the grad buffer: 4 (fp32) or 2 (bf16 / fp16).
double gradBufferBytesPerParam(bool gradReduceInFp32);

// State bytes of `params` on one GPU: dense parameters shard over dpGroup (dp * cp), expert parameters
// over edpGroup, each from the ZeRO stage that shards them (arXiv:1910.02054 sec. 5.1-5.3).
ModelStateBytes modelStateBytes(const ParameterShard& params, int zeroStage, bool gradReduceInFp32,
    const OptimizerPrecision& optimizer, double dpGroup, double edpGroup);

// ZeRO-3 gathers parameters module by module ahead of use and frees them after; the largest module's
// full 16-bit weights plus its 16-bit gradients before their reduce-scatter are live at once
// (DeepSpeed deepspeed/runtime/zero/stage3.py, estimate_zero3_model_states_mem_needs: 4 bytes x the
// largest layer's parameters). Two such modules with prefetch of the next one.
double zeroThreeGatheredBytes(double largestModuleParams);

} // namespace parallax::core
