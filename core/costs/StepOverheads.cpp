// SPDX-License-Identifier: Apache-2.0
#include "core/costs/StepOverheads.h"

namespace parallax::core {

namespace {
// Adam reads and writes the master weights, momentum and variance and reads the gradient
// (adamTrafficBytesPerParam: 28 B with fp32 states). Megatron-Core clip_grad_norm_fp32:
// multi_tensor_l2norm reads the main gradients once; clip_grads' multi_tensor_scale reads and
// writes them once more.
constexpr double kClipPasses = 2.0;
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
    const double gradBytes = mainGradBytesPerParam(in.optimizer) * in.optimizerShardParams;
    t.optimizerSeconds = rates.memorySeconds(adamTrafficBytesPerParam(in.optimizer) * in.optimizerShardParams);
    t.gradNormSeconds = rates.memorySeconds(gradBytes) + collectives.gradNormDpSeconds + collectives.gradNormTpSeconds;
    t.clipSeconds = rates.memorySeconds(kClipPasses * gradBytes);
    // Megatron-Core DistributedDataParallel.zero_grad_buffer() memsets the whole buffer each step.
    t.zeroGradSeconds = rates.memorySeconds(in.gradBufferBytes);
    t.dataSeconds = collectives.dataSeconds;
    t.loggingSeconds = collectives.loggingSeconds;
    return t;
}

double stepOverheadShardSeconds(const StepOverheadInputs& in, const ComputeRates& rates)
{
    const StepOverheadTimes t = stepOverheads(in, rates, StepOverheadCollectives {});
    return t.optimizerSeconds + t.gradNormSeconds + t.clipSeconds + t.zeroGradSeconds;
}

StepOverheadTimes stepOverheads(const StepOverheadInputs& in, const ComputeRates& rates)
{
    return stepOverheads(in, rates, stepOverheadCollectives(in));
}

} // namespace parallax::core
