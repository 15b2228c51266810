// SPDX-License-Identifier: Apache-2.0
#include "core/costs/StepOverheads.h"

namespace parallax::core {

namespace {
// Adam reads and writes fp32 master weights, momentum and variance, reads the fp32 gradient and
// writes the bf16 copy: 28 bytes of HBM traffic per parameter (arXiv:1910.02054 sec. 3.1 state sizes).
constexpr double kAdamBytesPerParam = 28.0;
// Megatron-Core clip_grad_norm_fp32: multi_tensor_l2norm reads the fp32 main gradients once.
constexpr double kNormBytesPerParam = 4.0;
// clip_grads: multi_tensor_scale reads and writes them once more.
constexpr double kClipBytesPerParam = 8.0;
// get_batch broadcasts tokens, labels, loss mask and position ids (int64 / float) inside the TP group.
constexpr int kBatchTensors = 4;
constexpr double kBatchBytesPerToken = 8.0;
} // namespace

StepOverheadCollectives stepOverheadCollectives(const StepOverheadInputs& in)
{
    StepOverheadCollectives c;
    // The norm is reduced as one fp32 scalar over the model- and data-parallel ranks: latency-bound.
    c.gradNormDpSeconds = in.dp.seconds(CollectiveKind::AllReduce, 4.0);
    c.gradNormTpSeconds = in.tp.seconds(CollectiveKind::AllReduce, 4.0);
    if (in.tp.size > 1) {
        // A pipelined ring broadcast costs what an all-gather of the same output does.
        const double perTensor = in.tp.seconds(CollectiveKind::AllGather, kBatchBytesPerToken * in.tokensPerMicrobatch);
        c.dataSeconds = in.microbatches * kBatchTensors * perTensor;
    }
    // average_losses_across_data_parallel_group: one small all-reduce per step.
    c.loggingSeconds = in.dp.seconds(CollectiveKind::AllReduce, 8.0);
    return c;
}

StepOverheadTimes stepOverheads(
    const StepOverheadInputs& in, const ComputeRates& rates, const StepOverheadCollectives& collectives)
{
    StepOverheadTimes t;
    t.optimizerSeconds = rates.memorySeconds(kAdamBytesPerParam * in.optimizerShardParams);
    t.gradNormSeconds = rates.memorySeconds(kNormBytesPerParam * in.optimizerShardParams)
        + collectives.gradNormDpSeconds + collectives.gradNormTpSeconds;
    t.clipSeconds = rates.memorySeconds(kClipBytesPerParam * in.optimizerShardParams);
    // Megatron-Core DistributedDataParallel.zero_grad_buffer() memsets the whole buffer each step.
    t.zeroGradSeconds = rates.memorySeconds(in.gradBufferBytes);
    t.dataSeconds = collectives.dataSeconds;
    t.loggingSeconds = collectives.loggingSeconds;
    return t;
}

StepOverheadTimes stepOverheads(const StepOverheadInputs& in, const ComputeRates& rates)
{
    return stepOverheads(in, rates, stepOverheadCollectives(in));
}

} // namespace parallax::core
