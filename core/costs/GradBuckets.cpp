// SPDX-License-Identifier: Apache-2.0
#include "core/costs/GradBuckets.h"

#include <algorithm>
#include <cmath>

namespace parallax::core {

double megatronDefaultBucketParams(int dataParallelSize)
{
    // megatron/core/distributed/distributed_data_parallel.py: max(40000000, 1000000 * dp_world_size).
    return std::max(40e6, 1e6 * std::max(1, dataParallelSize));
}

double ddpBucketParams(long long configured, int dataParallelSize)
{
    return configured > 0 ? static_cast<double>(configured) : megatronDefaultBucketParams(dataParallelSize);
}

std::vector<GradBucket> gradBuckets(double layerParams, double tailParams, double bucketParams)
{
    layerParams = std::max(0.0, layerParams);
    tailParams = std::max(0.0, tailParams);
    std::vector<GradBucket> out;
    if (layerParams + tailParams <= 0)
        return out;
    if (bucketParams <= 0 || layerParams + tailParams <= bucketParams) {
        out.push_back({ layerParams + tailParams, 1, 1.0, 0.0 });
        return out;
    }
    // Full buckets over the layers, in backward order; a remainder too small to close a bucket rides with
    // the embedding in the last one. Past kMaxGradBucketEntries, runs of equal buckets share an entry that
    // is ready with the last of them.
    const double full = std::floor(layerParams / bucketParams);
    const double remainder = layerParams - full * bucketParams;
    const double perEntry = std::ceil(full / (kMaxGradBucketEntries - 1));
    for (double done = 0; done < full;) {
        const double n = std::min(perEntry, full - done);
        done += n;
        const double filled = done * bucketParams / layerParams;
        out.push_back({ bucketParams, n, filled, 1.0 - filled });
    }
    if (remainder + tailParams > 0)
        out.push_back({ remainder + tailParams, 1, 1.0, 0.0 });
    return out;
}

} // namespace parallax::core
