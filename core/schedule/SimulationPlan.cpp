// SPDX-License-Identifier: Apache-2.0
#include "core/schedule/SimulationPlan.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace parallax::core {

namespace {

double weightAt(const std::vector<std::vector<double>>& table, int r, int c, double fallback)
{
    if (r < static_cast<int>(table.size()) && c < static_cast<int>(table[r].size()))
        return table[r][c];
    return fallback;
}

double p2pSeconds(const SimulationInput& input, int from, int to)
{
    if (from == to || from < 0 || from >= static_cast<int>(input.p2pSeconds.size()) || to < 0
        || to >= static_cast<int>(input.p2pSeconds[from].size()))
        return 0;
    return std::max(0.0, input.p2pSeconds[from][to]);
}

} // namespace

SimulationPlan::SimulationPlan(const SimulationInput& input)
    : shape_(input.shape)
    , ranks_(input.shape.ranks)
    , chunks_(chunksPerRank(input.shape))
    , stages_(modelStageCount(input.shape))
    , directions_(directionCount(input.shape))
    , microbatches_(input.shape.microbatches)
    , usable_(ranks_ >= 1 && microbatches_ >= 1 && chunks_ >= 0 && stages_ >= 0)
{
    if (!usable_)
        return;
    slotCount_ = sinkBlock() + microbatches_;
    // Compiled ops hold 32-bit slot indices; a shape this large would not fit in memory anyway.
    if (slotCount_ > std::numeric_limits<std::uint32_t>::max()) {
        usable_ = false;
        return;
    }
    std::vector<ChunkDurations> durations;
    buildCosts(input, durations);
    buildKinds(input, durations);
}

double SimulationPlan::overlappedDuration(int rank, int chunk, int chunk2) const
{
    const ChunkCost& c = cost(rank, chunk);
    if (c.forwardBackward >= 0)
        return c.forwardBackward;
    return std::max(c.forward, cost(rank, chunk2).backward) + c.exposedComm;
}

void SimulationPlan::buildCosts(const SimulationInput& input, std::vector<ChunkDurations>& durations)
{
    durations.assign(static_cast<std::size_t>(ranks_) * chunks_, ChunkDurations {});
    costs_.resize(durations.size());
    for (int r = 0; r < ranks_; ++r) {
        for (int c = 0; c < chunks_; ++c) {
            ChunkDurations& d = durations[static_cast<std::size_t>(r) * chunks_ + c];
            if (r < static_cast<int>(input.durations.size()) && c < static_cast<int>(input.durations[r].size())) {
                const ChunkDurations& given = input.durations[r][c];
                d.forward = std::max(0.0, given.forward);
                d.backwardInput = std::max(0.0, given.backwardInput);
                d.backwardWeight = std::max(0.0, given.backwardWeight);
                d.forwardBackward = given.forwardBackward;
                d.overlapExposedComm = std::max(0.0, given.overlapExposedComm);
                d.forwardComm = std::max(0.0, given.forwardComm);
                d.backwardComm = std::max(0.0, given.backwardComm);
            }
            ChunkCost& cost = costs_[static_cast<std::size_t>(r) * chunks_ + c];
            cost.forward = d.forward;
            cost.backward = d.backwardInput + d.backwardWeight;
            cost.forwardBackward = d.forwardBackward;
            cost.exposedComm = d.overlapExposedComm;
            cost.activation = weightAt(input.activationWeight, r, c, 1.0);
        }
    }
}

// The last stage's backward starts from its own forward (the loss); the others from the gradient
// the next stage's backward sends. A forward of stage s waits for stage s-1's; W for its own B.
void SimulationPlan::buildKinds(const SimulationInput& input, const std::vector<ChunkDurations>& durations)
{
    const auto offset = [](std::size_t to, std::size_t from) {
        return static_cast<std::ptrdiff_t>(to) - static_cast<std::ptrdiff_t>(from);
    };
    kinds_.resize(static_cast<std::size_t>(ranks_) * chunks_ * directions_ * kKinds);
    for (int r = 0; r < ranks_; ++r) {
        for (int c = 0; c < chunks_; ++c) {
            const int stage = modelStageOf(shape_, r, c);
            const ChunkDurations& du = durations[static_cast<std::size_t>(r) * chunks_ + c];
            const double activation = cost(r, c).activation;
            const double wPending = weightAt(input.wPendingWeight, r, c, 0.0);
            for (int d = 0; d < directions_; ++d) {
                KindPlan& f = kinds_[kindIndex(r, c, d, OpKind::Forward)];
                KindPlan& b = kinds_[kindIndex(r, c, d, OpKind::Backward)];
                KindPlan& bi = kinds_[kindIndex(r, c, d, OpKind::BackwardInput)];
                KindPlan& w = kinds_[kindIndex(r, c, d, OpKind::BackwardWeight)];
                f.input = stage == 0 ? zeroBlock(d) : forwardBlock(d, stage - 1);
                f.outputOffset = offset(forwardBlock(d, stage), f.input);
                f.inputDelay = stage == 0 ? 0.0 : p2pSeconds(input, rankOfStage(shape_, stage - 1, d), r);
                f.duration = du.forward;
                f.comm = std::min(du.forwardComm, du.forward);
                f.inflightDelta = activation;
                f.inflightChunkDelta = 1;

                const bool last = stage == stages_ - 1;
                b.input = last ? forwardBlock(d, stage) : backwardBlock(d, stage + 1);
                b.outputOffset = offset(backwardBlock(d, stage), b.input);
                b.inputDelay = last ? 0.0 : p2pSeconds(input, rankOfStage(shape_, stage + 1, d), r);
                b.duration = du.backward();
                b.comm = std::min(du.backwardComm, b.duration);
                b.inflightDelta = -activation;
                b.inflightChunkDelta = -1;

                bi = b;
                bi.duration = du.backwardInput;
                bi.comm = std::min(du.backwardComm, bi.duration);
                bi.inflightDelta = wPending - activation;

                w.input = backwardBlock(d, stage);
                w.outputOffset = offset(sinkBlock(), w.input);
                w.inputDelay = 0;
                w.duration = du.backwardWeight;
                w.comm = 0;
                w.inflightDelta = -wPending;
                w.inflightChunkDelta = 0;
                for (const OpKind kind :
                    { OpKind::Forward, OpKind::Backward, OpKind::BackwardInput, OpKind::BackwardWeight }) {
                    KindPlan& k = kinds_[kindIndex(r, c, d, kind)];
                    k.chunk = static_cast<std::int16_t>(c);
                    k.direction = static_cast<std::int8_t>(d);
                    k.kind = kind;
                }
            }
        }
    }
}

} // namespace parallax::core
