// SPDX-License-Identifier: Apache-2.0
// The simulator against a straightforward reference kept here: the same rules written the plain
// way (maps keyed by op, ranks swept round-robin until nothing can run), compared field by field and
// bit for bit over many seeded shapes, every schedule kind, random times, latencies and weights,
// and broken programs that deadlock.
#include "core/schedule/PipelineSimulator.h"
#include "tests/core/schedule/ScheduleTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace parallax::core {
namespace {

using test::describe;

class ReferenceSimulator {
public:
    ReferenceSimulator(const SimulationInput& input, const std::vector<RankProgram>& programs)
        : in_(input)
        , s_(input.shape)
        , programs_(programs)
    {
    }

    SimulationResult run()
    {
        SimulationResult r;
        const int p = s_.ranks;
        if (p < 1 || s_.microbatches < 1 || static_cast<int>(programs_.size()) != p) {
            r.deadlock = true;
            return r;
        }
        std::vector<std::size_t> pc(p, 0);
        std::vector<double> free(p, 0), first(p, 0), busy(p, 0), inflight(p, 0), peak(p, 0);
        std::vector<int> chunksInFlight(p, 0), peakChunks(p, 0);
        std::vector<std::vector<TimedOp>> ran(p);
        for (bool progress = true; progress;) {
            progress = false;
            for (int rank = 0; rank < p; ++rank) {
                while (pc[rank] < programs_[rank].size()) {
                    const PipelineOp& op = programs_[rank][pc[rank]];
                    double inputAt = 0;
                    if (!ready(rank, op, inputAt))
                        break;
                    const double duration = durationOf(rank, op);
                    const double start = std::max(free[rank], inputAt);
                    const double end = start + duration;
                    if (pc[rank] == 0)
                        first[rank] = start;
                    free[rank] = end;
                    busy[rank] += duration;
                    ran[rank].push_back({ rank, op.kind, op.microbatch, op.chunk, op.direction, op.microbatch2,
                        op.chunk2, op.direction2, start, end, std::min(commOf(rank, op), duration) });
                    finish(rank, op, end, inflight[rank], chunksInFlight[rank]);
                    peak[rank] = std::max(peak[rank], inflight[rank]);
                    peakChunks[rank] = std::max(peakChunks[rank], chunksInFlight[rank]);
                    ++pc[rank];
                    progress = true;
                }
            }
        }
        double idle = 0;
        for (int rank = 0; rank < p; ++rank) {
            r.deadlock = r.deadlock || pc[rank] < programs_[rank].size();
            r.makespan = std::max(r.makespan, free[rank]);
            r.ops.insert(r.ops.end(), ran[rank].begin(), ran[rank].end());
        }
        for (int rank = 0; rank < p; ++rank) {
            r.bubbleFractionPerRank.push_back(r.makespan > 0 ? (r.makespan - busy[rank]) / r.makespan : 0.0);
            idle += r.makespan - busy[rank];
            r.spanSecondsPerRank.push_back(pc[rank] > 0 ? free[rank] - first[rank] : 0.0);
            r.parameterCopies.push_back(parameterCopies(s_));
        }
        if (r.makespan > 0)
            r.bubbleFraction = idle / (p * r.makespan);
        r.busySecondsPerRank = busy;
        r.peakInflightWeight = peak;
        r.peakInflightChunks = peakChunks;
        return r;
    }

private:
    using Key = std::tuple<int, int, int>; // direction, micro-batch, stage

    bool valid(int mb, int chunk, int direction) const
    {
        return mb >= 0 && mb < s_.microbatches && chunk >= 0 && chunk < chunksPerRank(s_) && direction >= 0
            && direction < directionCount(s_);
    }

    ChunkDurations durations(int rank, int chunk) const
    {
        ChunkDurations d;
        if (rank < static_cast<int>(in_.durations.size()) && chunk < static_cast<int>(in_.durations[rank].size())) {
            const ChunkDurations& g = in_.durations[rank][chunk];
            d.forward = std::max(0.0, g.forward);
            d.backwardInput = std::max(0.0, g.backwardInput);
            d.backwardWeight = std::max(0.0, g.backwardWeight);
            d.forwardBackward = g.forwardBackward;
            d.overlapExposedComm = std::max(0.0, g.overlapExposedComm);
            d.forwardComm = std::max(0.0, g.forwardComm);
            d.backwardComm = std::max(0.0, g.backwardComm);
        }
        return d;
    }

    static double weight(const std::vector<std::vector<double>>& t, int rank, int chunk, double fallback)
    {
        return rank < static_cast<int>(t.size()) && chunk < static_cast<int>(t[rank].size()) ? t[rank][chunk]
                                                                                             : fallback;
    }

    double p2p(int from, int to) const
    {
        if (from == to || from >= static_cast<int>(in_.p2pSeconds.size())
            || to >= static_cast<int>(in_.p2pSeconds[from].size()))
            return 0;
        return std::max(0.0, in_.p2pSeconds[from][to]);
    }

    bool forwardInput(int rank, int direction, int mb, int stage, double& at) const
    {
        if (stage == 0) {
            at = 0;
            return true;
        }
        const auto it = forwardEnd_.find({ direction, mb, stage - 1 });
        if (it == forwardEnd_.end())
            return false;
        at = it->second + p2p(rankOfStage(s_, stage - 1, direction), rank);
        return true;
    }

    bool backwardInput(int rank, int direction, int mb, int stage, double& at) const
    {
        if (stage == modelStageCount(s_) - 1) {
            const auto it = forwardEnd_.find({ direction, mb, stage });
            if (it == forwardEnd_.end())
                return false;
            at = it->second;
            return true;
        }
        const auto it = backwardEnd_.find({ direction, mb, stage + 1 });
        if (it == backwardEnd_.end())
            return false;
        at = it->second + p2p(rankOfStage(s_, stage + 1, direction), rank);
        return true;
    }

    bool ready(int rank, const PipelineOp& op, double& at) const
    {
        if (!valid(op.microbatch, op.chunk, op.direction))
            return false;
        const int stage = modelStageOf(s_, rank, op.chunk);
        switch (op.kind) {
        case OpKind::Forward:
            return forwardInput(rank, op.direction, op.microbatch, stage, at);
        case OpKind::Backward:
        case OpKind::BackwardInput:
            return backwardInput(rank, op.direction, op.microbatch, stage, at);
        case OpKind::BackwardWeight: {
            const auto it = backwardEnd_.find({ op.direction, op.microbatch, stage });
            if (it == backwardEnd_.end())
                return false;
            at = it->second;
            return true;
        }
        case OpKind::ForwardBackward: {
            double gradient = 0;
            if (!valid(op.microbatch2, op.chunk2, op.direction2)
                || !forwardInput(rank, op.direction, op.microbatch, stage, at)
                || !backwardInput(rank, op.direction2, op.microbatch2, modelStageOf(s_, rank, op.chunk2), gradient))
                return false;
            at = std::max(at, gradient);
            return true;
        }
        }
        return false;
    }

    double durationOf(int rank, const PipelineOp& op) const
    {
        const ChunkDurations d = durations(rank, op.chunk);
        switch (op.kind) {
        case OpKind::Forward:
            return d.forward;
        case OpKind::Backward:
            return d.backward();
        case OpKind::BackwardInput:
            return d.backwardInput;
        case OpKind::BackwardWeight:
            return d.backwardWeight;
        case OpKind::ForwardBackward:
            return d.forwardBackward >= 0
                ? d.forwardBackward
                : std::max(d.forward, durations(rank, op.chunk2).backward()) + d.overlapExposedComm;
        }
        return 0;
    }

    double commOf(int rank, const PipelineOp& op) const
    {
        const ChunkDurations d = durations(rank, op.chunk);
        switch (op.kind) {
        case OpKind::Forward:
            return d.forwardComm;
        case OpKind::Backward:
        case OpKind::BackwardInput:
            return d.backwardComm;
        case OpKind::ForwardBackward:
            return d.overlapExposedComm;
        case OpKind::BackwardWeight:
            return 0;
        }
        return 0;
    }

    void finish(int rank, const PipelineOp& op, double end, double& inflight, int& chunks)
    {
        const int stage = modelStageOf(s_, rank, op.chunk);
        const double activation = weight(in_.activationWeight, rank, op.chunk, 1.0);
        const double wPending = weight(in_.wPendingWeight, rank, op.chunk, 0.0);
        switch (op.kind) {
        case OpKind::Forward:
            forwardEnd_[{ op.direction, op.microbatch, stage }] = end;
            inflight += activation;
            ++chunks;
            break;
        case OpKind::Backward:
            backwardEnd_[{ op.direction, op.microbatch, stage }] = end;
            inflight -= activation;
            --chunks;
            break;
        case OpKind::BackwardInput:
            backwardEnd_[{ op.direction, op.microbatch, stage }] = end;
            inflight += wPending - activation;
            --chunks;
            break;
        case OpKind::BackwardWeight:
            inflight -= wPending;
            break;
        case OpKind::ForwardBackward:
            forwardEnd_[{ op.direction, op.microbatch, stage }] = end;
            backwardEnd_[{ op.direction2, op.microbatch2, modelStageOf(s_, rank, op.chunk2) }] = end;
            inflight += activation - weight(in_.activationWeight, rank, op.chunk2, 1.0);
            break;
        }
    }

    const SimulationInput& in_;
    const ScheduleShape& s_;
    const std::vector<RankProgram>& programs_;
    std::map<Key, double> forwardEnd_;
    std::map<Key, double> backwardEnd_;
};

constexpr ScheduleKind kKinds[] = { ScheduleKind::GPipe, ScheduleKind::OneFOneB, ScheduleKind::Interleaved1F1B,
    ScheduleKind::ZbH1, ScheduleKind::ZbH2, ScheduleKind::ZbV, ScheduleKind::DualPipe, ScheduleKind::DualPipeV };

// A shape the kind accepts and, by turns, every way of giving the inputs: none (unit times, free
// p2p), full tables, tables that are too short (defaults fill in), and negative or zero entries.
SimulationInput randomInput(ScheduleKind kind, std::mt19937& rng, int round)
{
    const auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const auto real = [&rng](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
    SimulationInput input;
    ScheduleShape& s = input.shape;
    s.kind = kind;
    s.ranks = kind == ScheduleKind::DualPipe ? 2 * pick(1, 5) : pick(1, 10);
    switch (kind) {
    case ScheduleKind::Interleaved1F1B:
        s.virtualStages = pick(1, 4);
        s.microbatches = s.ranks * pick(1, 5);
        break;
    case ScheduleKind::DualPipe:
        s.microbatches = 2 * s.ranks + 2 * pick(0, 6);
        break;
    case ScheduleKind::DualPipeV:
        s.microbatches = 2 * s.ranks + pick(0, 12);
        break;
    default:
        s.microbatches = pick(1, 4 * s.ranks + 3);
        break;
    }
    const int mode = round % 4;
    if (mode == 0)
        return input;
    const int chunks = chunksPerRank(s);
    const int ranksGiven = mode == 2 ? pick(0, s.ranks) : s.ranks;
    const int chunksGiven = mode == 2 ? pick(0, chunks) : chunks;
    const auto maybeNegative
        = [&](double lo, double hi) { return mode == 3 && pick(0, 5) == 0 ? -real(0, 1) : real(lo, hi); };
    input.durations.assign(ranksGiven, std::vector<ChunkDurations>(chunksGiven));
    for (auto& rank : input.durations) {
        for (ChunkDurations& d : rank) {
            d.forward = maybeNegative(0.2, 2);
            d.backwardInput = maybeNegative(0.2, 2);
            d.backwardWeight = maybeNegative(0.1, 1.5);
            d.forwardBackward = pick(0, 2) == 0 ? real(0.5, 3) : -1;
            d.overlapExposedComm = maybeNegative(0, 0.3);
            d.forwardComm = maybeNegative(0, 0.5);
            d.backwardComm = maybeNegative(0, 0.5);
        }
    }
    const int p2pGiven = mode == 2 ? pick(0, s.ranks) : s.ranks;
    input.p2pSeconds.assign(p2pGiven, std::vector<double>(p2pGiven, 0.0));
    for (auto& row : input.p2pSeconds)
        for (double& t : row)
            t = maybeNegative(0, 0.5);
    input.activationWeight.assign(ranksGiven, std::vector<double>(chunksGiven));
    input.wPendingWeight.assign(ranksGiven, std::vector<double>(chunksGiven));
    for (int r = 0; r < ranksGiven; ++r) {
        for (int c = 0; c < chunksGiven; ++c) {
            input.activationWeight[r][c] = real(0.1, 3);
            input.wPendingWeight[r][c] = real(0, 1);
        }
    }
    return input;
}

// Breaks the programs so that some rank cannot finish: an op moved earlier than its input can
// exist, an op dropped (its consumers wait forever), or an op naming a micro-batch or chunk
// outside the shape. Every op stays unique, so the outcome does not depend on the order in which
// the simulators visit the ranks.
void breakPrograms(std::vector<RankProgram>& programs, std::mt19937& rng)
{
    const auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    RankProgram& program = programs[pick(0, static_cast<int>(programs.size()) - 1)];
    if (program.size() < 2)
        return;
    const int at = pick(1, static_cast<int>(program.size()) - 1);
    switch (pick(0, 3)) {
    case 0:
        std::rotate(program.begin(), program.begin() + at, program.begin() + at + 1);
        break;
    case 1:
        program.erase(program.begin() + at);
        break;
    case 2:
        program[at].microbatch = pick(0, 1) == 0 ? -1 : 100000;
        break;
    default:
        program[at].chunk = 7;
        break;
    }
}

void expectSame(const SimulationResult& got, const SimulationResult& want)
{
    ASSERT_EQ(got.deadlock, want.deadlock);
    ASSERT_EQ(got.ops.size(), want.ops.size());
    for (std::size_t i = 0; i < got.ops.size(); ++i) {
        const TimedOp& a = got.ops[i];
        const TimedOp& b = want.ops[i];
        ASSERT_TRUE(a.rank == b.rank && a.kind == b.kind && a.microbatch == b.microbatch && a.chunk == b.chunk
            && a.direction == b.direction && a.microbatch2 == b.microbatch2 && a.chunk2 == b.chunk2
            && a.direction2 == b.direction2)
            << "op " << i << " differs in identity";
        ASSERT_EQ(a.start, b.start) << "op " << i;
        ASSERT_EQ(a.end, b.end) << "op " << i;
        ASSERT_EQ(a.commSeconds, b.commSeconds) << "op " << i;
    }
    EXPECT_EQ(got.makespan, want.makespan);
    EXPECT_EQ(got.bubbleFraction, want.bubbleFraction);
    EXPECT_EQ(got.bubbleFractionPerRank, want.bubbleFractionPerRank);
    EXPECT_EQ(got.busySecondsPerRank, want.busySecondsPerRank);
    EXPECT_EQ(got.spanSecondsPerRank, want.spanSecondsPerRank);
    EXPECT_EQ(got.peakInflightWeight, want.peakInflightWeight);
    EXPECT_EQ(got.peakInflightChunks, want.peakInflightChunks);
    EXPECT_EQ(got.parameterCopies, want.parameterCopies);
}

TEST(SimulatorReference, MatchesTheReferenceBitForBit)
{
    std::mt19937 rng(20261201);
    int cases = 0;
    for (int round = 0; round < 120; ++round) {
        for (ScheduleKind kind : kKinds) {
            const SimulationInput input = randomInput(kind, rng, round);
            ASSERT_EQ(checkShape(input.shape), "") << describe(input.shape);
            SCOPED_TRACE(describe(input.shape) + " round " + std::to_string(round));
            const std::vector<RankProgram> programs = generateSchedule(input.shape);
            const SimulationResult got = simulate(input, programs);
            EXPECT_FALSE(got.deadlock);
            expectSame(got, ReferenceSimulator(input, programs).run());
            ++cases;
            if (HasFatalFailure() || HasNonfatalFailure())
                return;
        }
    }
    EXPECT_EQ(cases, 960);
}

TEST(SimulatorReference, MatchesTheReferenceOnBrokenPrograms)
{
    std::mt19937 rng(17);
    int deadlocks = 0;
    for (int round = 0; round < 60; ++round) {
        for (ScheduleKind kind : kKinds) {
            const SimulationInput input = randomInput(kind, rng, round);
            SCOPED_TRACE(describe(input.shape) + " round " + std::to_string(round));
            std::vector<RankProgram> programs = generateSchedule(input.shape);
            breakPrograms(programs, rng);
            const SimulationResult got = simulate(input, programs);
            deadlocks += got.deadlock ? 1 : 0;
            expectSame(got, ReferenceSimulator(input, programs).run());
            if (HasFatalFailure() || HasNonfatalFailure())
                return;
        }
    }
    // Most breaks strand a rank; the test would prove nothing if none did.
    EXPECT_GT(deadlocks, 200);
}

// simulate(input) keeps the programs of the last few shapes per thread, compiled: shapes that differ in
// one field each, more of them than it keeps, asked in turn twice with fresh random times, each give
// what the programs generated for that shape give.
TEST(SimulatorReference, GeneratingOverloadMatchesAcrossShapesAskedInTurn)
{
    const std::vector<ScheduleShape> shapes {
        { ScheduleKind::Interleaved1F1B, 4, 8, 2 },
        { ScheduleKind::Interleaved1F1B, 4, 8, 4 }, // virtual stages
        { ScheduleKind::Interleaved1F1B, 4, 12, 2 }, // micro-batches
        { ScheduleKind::Interleaved1F1B, 2, 8, 2 }, // ranks
        { ScheduleKind::OneFOneB, 4, 8, 1 }, // kind
        { ScheduleKind::GPipe, 4, 8, 1 },
        { ScheduleKind::ZbH1, 4, 8, 1 },
        { ScheduleKind::DualPipe, 4, 8, 1 }, // overlapped F&B pairs: their durations come from each input
        { ScheduleKind::DualPipeV, 4, 8, 1 },
    };
    std::mt19937 rng(7);
    const auto real = [&rng](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
    for (int round = 0; round < 2; ++round) {
        for (const ScheduleShape& shape : shapes) {
            SCOPED_TRACE(describe(shape) + " round " + std::to_string(round));
            ASSERT_EQ(checkShape(shape), "");
            SimulationInput input;
            input.shape = shape;
            input.durations.assign(shape.ranks, std::vector<ChunkDurations>(chunksPerRank(shape)));
            for (auto& rank : input.durations)
                for (ChunkDurations& d : rank)
                    d = { real(0.9, 1.1), real(0.9, 1.1), real(0.4, 0.6), -1, 0, 0, 0 };
            const std::vector<RankProgram> programs = generateSchedule(shape);
            const SimulationResult got = simulate(input);
            EXPECT_FALSE(got.deadlock);
            expectSame(got, simulate(input, programs));
            expectSame(got, ReferenceSimulator(input, programs).run());
        }
    }
}

// Larger than the random shapes, with heavier first and last stages as the engine gives them.
TEST(SimulatorReference, MatchesTheReferenceOnLargeShapes)
{
    std::mt19937 rng(64);
    const auto real = [&rng](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
    for (ScheduleKind kind : kKinds) {
        SimulationInput input;
        input.shape = { kind, 16, 64, kind == ScheduleKind::Interleaved1F1B ? 3 : 1 };
        SCOPED_TRACE(describe(input.shape));
        ASSERT_EQ(checkShape(input.shape), "");
        const int p = input.shape.ranks;
        input.durations.assign(p, std::vector<ChunkDurations>(chunksPerRank(input.shape)));
        for (int r = 0; r < p; ++r) {
            for (ChunkDurations& d : input.durations[r]) {
                const double heavier = r == 0 || r == p - 1 ? 1.3 : 1.0;
                d = { heavier * real(0.9, 1.1), heavier * real(0.9, 1.1), real(0.4, 0.6), -1, real(0, 0.1),
                    real(0, 0.05), real(0, 0.05) };
            }
        }
        input.p2pSeconds.assign(p, std::vector<double>(p, 0.0));
        for (int from = 0; from < p; ++from)
            for (int to = 0; to < p; ++to)
                input.p2pSeconds[from][to] = from / 8 == to / 8 ? 0.01 : 0.125; // NVLink within 8, IB across
        const std::vector<RankProgram> programs = generateSchedule(input.shape);
        expectSame(simulate(input, programs), ReferenceSimulator(input, programs).run());
    }
}

} // namespace
} // namespace parallax::core
