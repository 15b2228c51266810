// SPDX-License-Identifier: Apache-2.0
#include "core/costs/DataParallelSync.h"

#include <algorithm>

namespace parallax::core {

double exposedAfterOverlap(double commSeconds, double windowSeconds)
{
    const double hidden = std::clamp(windowSeconds, 0.0, commSeconds);
    return commSeconds - hidden + kOverlapComputeTax * hidden;
}

DpSyncTimes dataParallelSync(
    int zero, int microbatches, const DpCollectives& c, double forwardWindowSeconds, double backwardWindowSeconds)
{
    DpSyncTimes t;
    const double m = std::max(1, microbatches);
    switch (zero) {
    case 0:
        t.totalSeconds = c.allReduce;
        t.exposedSeconds = exposedAfterOverlap(c.allReduce, backwardWindowSeconds);
        break;
    case 1:
        t.totalSeconds = c.reduceScatter + c.allGather;
        t.exposedSeconds = exposedAfterOverlap(c.reduceScatter, backwardWindowSeconds)
            + exposedAfterOverlap(c.allGather, forwardWindowSeconds);
        break;
    case 2:
        t.totalSeconds = m * c.reduceScatter + c.allGather;
        t.exposedSeconds = m * exposedAfterOverlap(c.reduceScatter, backwardWindowSeconds)
            + exposedAfterOverlap(c.allGather, forwardWindowSeconds);
        break;
    default:
        t.totalSeconds = m * (c.flatReduceScatter + 2 * c.flatAllGather);
        t.exposedSeconds = m
            * (exposedAfterOverlap(c.flatReduceScatter, backwardWindowSeconds)
                + exposedAfterOverlap(c.flatAllGather, forwardWindowSeconds)
                + exposedAfterOverlap(c.flatAllGather, backwardWindowSeconds));
        break;
    }
    return t;
}

} // namespace parallax::core
