// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vector>

namespace parallax::core {

// Communication hidden behind compute is not free: NCCL kernels occupy SMs while they run (up to
// NCCL_MAX_NCHANNELS CTAs, 16-32 of an H100's 132 SMs) and share HBM bandwidth, so the compute they
// overlap slows down. Stated default: 15% of the hidden time is added back (measured: 18.9% on average,
// 40% at most, on 4-GPU A100 / H100 / MI250 / MI210 nodes, arXiv:2507.03114; docs/validation.md says why 15%).
inline constexpr double kOverlapComputeTax = 0.15;

// Seconds of `commSeconds` not hidden by a compute window of `windowSeconds`, plus the tax on the part
// that is hidden.
double exposedAfterOverlap(double commSeconds, double windowSeconds);

// One pipeline rank's data-parallel collectives for one step (dense and expert groups summed).
struct DpCollectives {
    double allReduce = 0; // gradients, ZeRO-0
    double reduceScatter = 0; // gradients, ZeRO >= 1
    double allGather = 0; // bf16 parameters, ZeRO >= 1
    // ZeRO-3's per-micro-batch gathers and reduce-scatters as flat rings over the whole group: the
    // implementations issue one collective per layer (or per tensor) on the DP communicator, and a
    // ring's inter-node step runs through one NIC. Narayanan et al. measured DeepSpeed ZeRO-3 at
    // 384-2240 A100s at this per-GPU NIC bound (arXiv:2104.04473 Table 2, sec. 5.3.2), far below the
    // hierarchical bound.
    double flatReduceScatter = 0;
    double flatAllGather = 0;
};

struct DpSyncTimes {
    double totalSeconds = 0;
    double exposedSeconds = 0;
};

// ZeRO stages and their traffic (arXiv:1910.02054 sec. 5 and 7):
//  0: one all-reduce of the gradients per step, hidden behind the last micro-batch's backward
//     (Megatron-Core --overlap-grad-reduce);
//  1: one reduce-scatter per step plus one all-gather of the updated parameters, hidden behind the
//     first forward of the next step (--overlap-param-gather);
//  2: gradients are kept sharded, so each micro-batch's gradients are reduce-scattered right after its
//     backward (m reduce-scatters), plus the parameter all-gather;
//  3: also the parameters are sharded: each micro-batch gathers them for its forward and again for its
//     backward (arXiv:1910.02054 sec. 7.2.2), and reduce-scatters its gradients.
DpSyncTimes dataParallelSync(
    int zero, int microbatches, const DpCollectives& c, double forwardWindowSeconds, double backwardWindowSeconds);

// One collective of a model chunk's data-parallel sync on a pipeline rank's simulated timeline (seconds
// from the start of the step's pipeline).
struct DpTimedCollective {
    // Reductions: when the bucket's gradients are ready (it starts no earlier). Gathers: when the forward
    // needs the bucket's first parameter (it must have ended by then).
    double atSeconds = 0;
    double seconds = 0;
};

// One model chunk's collectives: a reduction per gradient bucket (ZeRO 0-1: once, after the chunk's last
// micro-batch; ZeRO-2: after every micro-batch) and an all-gather per bucket of its updated bf16
// parameters (ZeRO 1-2; none under ZeRO-0), in forward order.
struct ChunkDpSync {
    std::vector<DpTimedCollective> grads;
    std::vector<DpTimedCollective> gathers;
    double firstForwardStartSeconds = 0; // orders the chunks' gathers on the stream
};

// Data-parallel sync of one pipeline rank placed on its simulated timeline, one NCCL stream per rank.
// Megatron-Core's --overlap-grad-reduce launches a bucket's reduction once its gradients are ready,
// during the backward of the chunk's last micro-batch, chunk by chunk under interleaving (schedules.py
// calls grad_sync_func per model chunk; MegaScale, arXiv:2402.15627 sec. 3.2), and --overlap-param-gather
// gathers each bucket's parameters ahead of the forward that uses them (core/costs/GradBuckets.h). A
// reduction that finishes before the pipeline's makespan is hidden (a rank p-1..1 ends its last backward
// while ranks below it still run theirs: the cooldown bubble); gathers queue from the step's start in the
// order the chunks first run forward and delay the step where one ends after its bucket is needed (ranks
// above 0 wait for their first input anyway). Exposed = reductions past the makespan + the largest gather
// delay; with overlap, the hidden part pays kOverlapComputeTax.
DpSyncTimes pipelinedDataParallelSync(const std::vector<ChunkDpSync>& chunks, double makespanSeconds, bool overlap);

} // namespace parallax::core
