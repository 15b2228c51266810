// SPDX-License-Identifier: Apache-2.0
#include "core/costs/DataParallelSync.h"

#include <algorithm>
#include <utility>

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

DpSyncTimes pipelinedDataParallelSync(const std::vector<ChunkDpSync>& chunks, double makespanSeconds, bool overlap)
{
    DpSyncTimes t;
    // Gradient reductions in the order they become ready, queued on the rank's one DP stream.
    std::vector<std::pair<double, double>> grads; // (ready, seconds)
    for (const ChunkDpSync& c : chunks) {
        for (const DpTimedCollective& g : c.grads) {
            grads.emplace_back(g.atSeconds, g.seconds);
            t.totalSeconds += g.seconds;
        }
        for (const DpTimedCollective& g : c.gathers)
            t.totalSeconds += g.seconds;
    }
    std::sort(grads.begin(), grads.end());
    double streamFree = 0;
    for (const auto& [ready, seconds] : grads)
        streamFree = std::max(streamFree, ready) + seconds;
    const double gradExposed = std::max(0.0, streamFree - makespanSeconds);

    // Parameter gathers from the step's start, chunk by chunk in the order they first run forward.
    std::vector<const ChunkDpSync*> order;
    order.reserve(chunks.size());
    for (const ChunkDpSync& c : chunks)
        order.push_back(&c);
    std::stable_sort(order.begin(), order.end(), [](const ChunkDpSync* a, const ChunkDpSync* b) {
        return a->firstForwardStartSeconds < b->firstForwardStartSeconds;
    });
    double gathered = 0, gatherDelay = 0;
    for (const ChunkDpSync* c : order) {
        for (const DpTimedCollective& g : c->gathers) {
            gathered += g.seconds;
            gatherDelay = std::max(gatherDelay, gathered - g.atSeconds);
        }
    }
    t.exposedSeconds = gradExposed + gatherDelay;
    if (overlap)
        t.exposedSeconds += kOverlapComputeTax * std::max(0.0, t.totalSeconds - t.exposedSeconds);
    return t;
}

} // namespace parallax::core
