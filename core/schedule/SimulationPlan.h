// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/schedule/PipelineSimulator.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace parallax::core {

// The simulator's inputs resolved into flat tables, once per call: for every (rank, chunk,
// direction) and op kind, which dependency slot the op waits for and which it completes, the p2p
// delay of its input, its duration and its effect on the rank's stored activations. The
// simulator then runs an op with a table lookup and two slot accesses.
//
// Dependency slots hold the end time of one (direction, stage, micro-batch)'s forward or
// backward, laid out in blocks of m slots (index = block + micro-batch): per direction a block
// that is done at time 0 (the input of stage 0's forwards) followed by the forwards of stages
// 0 .. S-1, then per direction the backwards of stages 0 .. S-1, then a sink that W ops complete
// and nothing waits on.
class SimulationPlan {
public:
    // Forward, Backward, BackwardInput, BackwardWeight; an overlapped F&B pair uses its halves' plans.
    static constexpr int kKinds = 4;

    struct KindPlan {
        std::size_t input = 0; // block of the slot the op waits for
        std::ptrdiff_t outputOffset = 0; // slot it completes, relative to the one it waits for
        double inputDelay = 0; // p2p time from the producing rank, 0 on the same rank
        double duration = 0;
        double comm = 0; // exposed communication drawn as the op's tail, at most `duration`
        double inflightDelta = 0; // change of the rank's stored activation weight when the op ends
        int inflightChunkDelta = 0;
        // What the op is, so that its TimedOp is written from the plan: its micro-batch is its input
        // slot minus `input`. With these the entry fills one 64-byte line.
        std::int16_t chunk = 0;
        std::int8_t direction = 0;
        OpKind kind = OpKind::Forward;
    };

    // Per (rank, chunk): what an overlapped F&B pair needs beyond its halves' plans.
    struct ChunkCost {
        double forward = 1;
        double backward = 2;
        double forwardBackward = -1;
        double exposedComm = 0;
        double activation = 1;
    };

    explicit SimulationPlan(const SimulationInput& input);

    // False for a shape with no rank, no micro-batch or a negative chunk count: nothing can run.
    bool usable() const { return usable_; }
    int ranks() const { return ranks_; }
    int chunks() const { return chunks_; }
    int directions() const { return directions_; }
    int microbatches() const { return microbatches_; }

    bool validOp(int microbatch, int chunk, int direction) const
    {
        return static_cast<unsigned>(microbatch) < static_cast<unsigned>(microbatches_)
            && static_cast<unsigned>(chunk) < static_cast<unsigned>(chunks_)
            && static_cast<unsigned>(direction) < static_cast<unsigned>(directions_);
    }
    // Index into kinds(); kind is Forward .. BackwardWeight.
    std::uint32_t kindIndex(int rank, int chunk, int direction, OpKind kind) const
    {
        return static_cast<std::uint32_t>(
            ((static_cast<std::size_t>(rank) * chunks_ + chunk) * directions_ + direction) * kKinds
            + static_cast<int>(kind));
    }
    const KindPlan* kinds() const { return kinds_.data(); }
    const ChunkCost& cost(int rank, int chunk) const
    {
        return costs_[static_cast<std::size_t>(rank) * chunks_ + chunk];
    }
    // Duration of an overlapped pair whose forward half runs `chunk` and backward half `chunk2`.
    double overlappedDuration(int rank, int chunk, int chunk2) const;

    std::size_t slotCount() const { return slotCount_; }
    // First slot of the block that is done at time 0, per direction.
    std::size_t zeroBlock(int direction) const
    {
        return static_cast<std::size_t>(direction) * (stages_ + 1) * microbatches_;
    }

private:
    std::size_t forwardBlock(int direction, int stage) const
    {
        return zeroBlock(direction) + static_cast<std::size_t>(stage + 1) * microbatches_;
    }
    std::size_t backwardBlock(int direction, int stage) const
    {
        return (static_cast<std::size_t>(directions_) * (stages_ + 1) + static_cast<std::size_t>(direction) * stages_
                   + stage)
            * microbatches_;
    }
    std::size_t sinkBlock() const { return backwardBlock(directions_, 0); }

    void buildCosts(const SimulationInput& input, std::vector<ChunkDurations>& durations);
    void buildKinds(const SimulationInput& input, const std::vector<ChunkDurations>& durations);

    ScheduleShape shape_;
    int ranks_;
    int chunks_;
    int stages_;
    int directions_;
    int microbatches_;
    bool usable_;
    std::size_t slotCount_ = 0;
    std::vector<ChunkCost> costs_; // [rank][chunk]
    std::vector<KindPlan> kinds_; // [rank][chunk][direction][kind]
};

} // namespace parallax::core
