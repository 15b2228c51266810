// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vector>

namespace parallax::core {

// Megatron-Core's default gradient bucket, in parameters: max(40M, 1M x data-parallel size), "larger at
// very large DP so that the chunks of NCCL's ring stay bandwidth-bound rather than latency-bound"
// (megatron/core/distributed/distributed_data_parallel.py, DistributedDataParallel.__init__).
double megatronDefaultBucketParams(int dataParallelSize);
// The bucket of a run: --ddp-bucket-size when set (> 0), else the default for its data-parallel size without
// context parallelism (parallel_state.get_data_parallel_world_size(), though the gradients reduce over dp x cp).
double ddpBucketParams(long long configured, int dataParallelSize);

inline constexpr int kMaxGradBucketEntries = 1024;

// One bucket of a model chunk's gradient buffer and where its collectives sit in the chunk's passes.
struct GradBucket {
    double params = 0; // of each bucket
    // Consecutive equal buckets this entry stands for (their collectives back to back): a tiny bucket size
    // would otherwise make millions of entries. At most kMaxGradBucketEntries entries per chunk.
    double count = 1;
    // Share of the chunk's last backward pass done when the bucket's last gradient is ready (0-1).
    double readyFraction = 1;
    // Share of the chunk's first forward pass done when the bucket's first parameter is needed (0-1).
    double neededFraction = 0;
};

// The buckets of one model chunk in the order its backward fills them. Megatron-Core fills buckets in
// reverse parameter order (the backward's) and closes one once it holds bucketParams
// (param_and_grad_buffer.py); the reduction of a bucket starts when its last gradient is ready
// (--overlap-grad-reduce), and under --overlap-param-gather each bucket's all-gather must end before the
// forward reaches its first parameter. The layers' gradients are taken as ready evenly through the
// backward; the input embedding (tailParams) comes last, in the final bucket with the layers' remainder.
// bucketParams <= 0: one bucket for the whole chunk, ready at the end of the backward and needed at the
// start of the forward: Megatron-Core does not bucket the chunks after the first
// (training.py get_model: disable_bucketing=(model_chunk_idx > 0)) nor pipeline ranks above 0
// (DistributedDataParallel: "bucket_size = None" when the pipeline rank is > 0).
std::vector<GradBucket> gradBuckets(double layerParams, double tailParams, double bucketParams);

} // namespace parallax::core
