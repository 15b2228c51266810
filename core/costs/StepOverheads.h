// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/costs/CostModel.h"

namespace parallax::core {

// The fixed work of one training step that runs on the critical path besides the pipeline and the
// data-parallel collectives, per GPU (Megatron-Core training loop). Small against the compute of a
// large run, visible on small runs and short steps.
struct StepOverheadTimes {
    double optimizerSeconds = 0; // Adam over the local optimizer shard
    double gradNormSeconds = 0; // L2 norm of the local gradient shard + its all-reduce
    double clipSeconds = 0; // scaling the gradients by the clip coefficient
    double zeroGradSeconds = 0; // clearing the gradient buffer for the next step
    double dataSeconds = 0; // per micro-batch broadcast of the batch inside the TP group
    double loggingSeconds = 0; // loss reduction over data parallelism for the step's log line
    double total() const
    {
        return optimizerSeconds + gradNormSeconds + clipSeconds + zeroGradSeconds + dataSeconds + loggingSeconds;
    }
};

struct StepOverheadInputs {
    double optimizerShardParams = 0; // parameters whose Adam state this GPU holds
    OptimizerPrecision optimizer; // the dtypes of that state (its bytes read and written per update)
    double gradBufferBytes = 0; // this GPU's gradient buffer
    int microbatches = 1;
    double tokensPerMicrobatch = 0; // s x b
    CommGroup tp; // the batch is broadcast from TP rank 0
    CommGroup dp; // loss and grad-norm reductions
};

StepOverheadTimes stepOverheads(const StepOverheadInputs& in, const ComputeRates& rates);

// The collectives of stepOverheads(): they depend on the communicators and the batch, not on the
// rank's shard, so a caller that prices many shards on one layout (the search's scorer: every
// pipeline rank and ZeRO stage) computes them once and hands them to the overload below.
struct StepOverheadCollectives {
    double gradNormDpSeconds = 0; // the norm's fp32 all-reduce over data parallelism
    double gradNormTpSeconds = 0; // ... and over tensor parallelism
    double dataSeconds = 0; // StepOverheadTimes::dataSeconds
    double loggingSeconds = 0; // StepOverheadTimes::loggingSeconds
    double total() const { return gradNormDpSeconds + gradNormTpSeconds + dataSeconds + loggingSeconds; }
};
StepOverheadCollectives stepOverheadCollectives(const StepOverheadInputs& in);
// The part of stepOverheads(...).total() that depends on the rank's own shard: Adam, the norm's and the
// clip's passes over its gradients and the buffer's memset. total() = this + gradNormDp + gradNormTp + data +
// logging (to rounding); the search prices it once per pipeline rank and ZeRO stage of a layout.
double stepOverheadShardSeconds(const StepOverheadInputs& in, const ComputeRates& rates);
// stepOverheads(in, rates), bit for bit, with `collectives` == stepOverheadCollectives(in).
StepOverheadTimes stepOverheads(
    const StepOverheadInputs& in, const ComputeRates& rates, const StepOverheadCollectives& collectives);

} // namespace parallax::core
