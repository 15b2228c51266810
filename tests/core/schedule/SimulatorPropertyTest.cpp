// SPDX-License-Identifier: Apache-2.0
#include "core/schedule/PipelineSimulator.h"
#include "tests/core/schedule/ScheduleTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace parallax::core {
namespace {

using test::describe;

constexpr double kEps = 1e-9;

PipelineOp forwardOf(int mb)
{
    return { OpKind::Forward, mb, 0, 0, -1, -1, -1 };
}
PipelineOp backwardOf(int mb)
{
    return { OpKind::Backward, mb, 0, 0, -1, -1, -1 };
}

// A random shape the schedule accepts, with per-rank/chunk times and asymmetric p2p latencies.
SimulationInput randomInput(ScheduleKind kind, std::mt19937& rng)
{
    const auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const auto real = [&rng](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
    SimulationInput input;
    ScheduleShape& s = input.shape;
    s.kind = kind;
    s.ranks = kind == ScheduleKind::DualPipe ? 2 * pick(1, 4) : pick(1, 8);
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
    const int chunks = chunksPerRank(s);
    input.durations.assign(s.ranks, std::vector<ChunkDurations>(chunks));
    for (auto& rank : input.durations) {
        for (ChunkDurations& d : rank) {
            d.forward = real(0.2, 2);
            d.backwardInput = real(0.2, 2);
            d.backwardWeight = real(0.1, 1.5);
            d.overlapExposedComm = real(0, 0.3);
        }
    }
    input.p2pSeconds.assign(s.ranks, std::vector<double>(s.ranks, 0.0));
    for (int from = 0; from < s.ranks; ++from)
        for (int to = 0; to < s.ranks; ++to)
            input.p2pSeconds[from][to] = from == to ? 0 : real(0, 0.5);
    return input;
}

struct StageRecord {
    int forwards = 0;
    int backwards = 0; // B (split or not)
    int weights = 0;
    bool split = false;
    double forwardEnd = 0;
    double backwardEnd = 0;
};

// Every input an op needs has arrived (producer's end + p2p) before it starts, each rank runs one op
// at a time, each (micro-batch, stage) gets one F, one B and one W exactly when its B was split, and
// the makespan is at least each rank's busy time and each micro-batch's forward-backward chain.
void checkInvariants(const SimulationInput& input, const std::vector<RankProgram>& programs, const SimulationResult& r)
{
    const ScheduleShape& s = input.shape;
    const int stages = modelStageCount(s);
    const int directions = directionCount(s);
    const int chunks = chunksPerRank(s);
    std::size_t total = 0;
    for (const RankProgram& program : programs)
        total += program.size();
    ASSERT_FALSE(r.deadlock);
    ASSERT_EQ(r.ops.size(), total);

    std::vector<StageRecord> record(static_cast<std::size_t>(directions) * s.microbatches * stages);
    const auto at = [&](int direction, int mb, int stage) -> StageRecord& {
        return record[(static_cast<std::size_t>(direction) * s.microbatches + mb) * stages + stage];
    };
    const auto p2p = [&](int from, int to) { return input.p2pSeconds[from][to]; };
    const auto durationOf = [&](int rank, int chunk) -> const ChunkDurations& { return input.durations[rank][chunk]; };

    std::vector<double> busy(s.ranks, 0.0);
    for (std::size_t i = 0; i < r.ops.size(); ++i) {
        const TimedOp& op = r.ops[i];
        ASSERT_LE(op.start, op.end);
        busy[op.rank] += op.end - op.start;
        if (i == 0)
            continue;
        ASSERT_LE(r.ops[i - 1].rank, op.rank) << "ops not sorted by rank";
        if (r.ops[i - 1].rank == op.rank) {
            ASSERT_GE(op.start, r.ops[i - 1].end - kEps) << "rank " << op.rank << " overlaps at op " << i;
        }
    }
    for (int rank = 0; rank < s.ranks; ++rank) {
        EXPECT_NEAR(busy[rank], r.busySecondsPerRank[rank], 1e-6);
        EXPECT_GE(r.makespan, r.busySecondsPerRank[rank] - kEps);
    }

    // Record the ends first (ops of one rank are in execution order, other ranks are not).
    for (const TimedOp& op : r.ops) {
        const int stage = modelStageOf(s, op.rank, op.chunk);
        StageRecord& rec = at(op.direction, op.microbatch, stage);
        switch (op.kind) {
        case OpKind::Forward:
            ++rec.forwards;
            rec.forwardEnd = op.end;
            break;
        case OpKind::Backward:
        case OpKind::BackwardInput:
            ++rec.backwards;
            rec.split = op.kind == OpKind::BackwardInput;
            rec.backwardEnd = op.end;
            break;
        case OpKind::BackwardWeight:
            ++rec.weights;
            break;
        case OpKind::ForwardBackward: {
            ++rec.forwards;
            rec.forwardEnd = op.end;
            StageRecord& back = at(op.direction2, op.microbatch2, modelStageOf(s, op.rank, op.chunk2));
            ++back.backwards;
            back.backwardEnd = op.end;
            break;
        }
        }
    }
    for (int d = 0; d < directions; ++d) {
        for (int mb = 0; mb < s.microbatches; ++mb) {
            if (s.kind == ScheduleKind::DualPipe && (mb < s.microbatches / 2) != (d == 0))
                continue; // each DualPipe micro-batch travels one way
            for (int stage = 0; stage < stages; ++stage) {
                const StageRecord& rec = at(d, mb, stage);
                EXPECT_EQ(rec.forwards, 1) << "mb " << mb << " stage " << stage;
                EXPECT_EQ(rec.backwards, 1) << "mb " << mb << " stage " << stage;
                EXPECT_EQ(rec.weights, rec.split ? 1 : 0) << "mb " << mb << " stage " << stage;
            }
        }
    }

    const auto checkForwardInput = [&](const TimedOp& op, int direction, int mb, int stage) {
        if (stage == 0)
            return;
        const int from = rankOfStage(s, stage - 1, direction);
        EXPECT_GE(op.start, at(direction, mb, stage - 1).forwardEnd + p2p(from, op.rank) - kEps);
    };
    const auto checkBackwardInput = [&](const TimedOp& op, int direction, int mb, int stage) {
        if (stage == stages - 1) {
            EXPECT_GE(op.start, at(direction, mb, stage).forwardEnd - kEps);
            return;
        }
        const int from = rankOfStage(s, stage + 1, direction);
        EXPECT_GE(op.start, at(direction, mb, stage + 1).backwardEnd + p2p(from, op.rank) - kEps);
    };
    for (const TimedOp& op : r.ops) {
        const int stage = modelStageOf(s, op.rank, op.chunk);
        const ChunkDurations& d = durationOf(op.rank, op.chunk);
        double expected = 0;
        switch (op.kind) {
        case OpKind::Forward:
            checkForwardInput(op, op.direction, op.microbatch, stage);
            expected = d.forward;
            break;
        case OpKind::Backward:
            checkBackwardInput(op, op.direction, op.microbatch, stage);
            expected = d.backward();
            break;
        case OpKind::BackwardInput:
            checkBackwardInput(op, op.direction, op.microbatch, stage);
            expected = d.backwardInput;
            break;
        case OpKind::BackwardWeight:
            EXPECT_GE(op.start, at(op.direction, op.microbatch, stage).backwardEnd - kEps);
            expected = d.backwardWeight;
            break;
        case OpKind::ForwardBackward:
            checkForwardInput(op, op.direction, op.microbatch, stage);
            checkBackwardInput(op, op.direction2, op.microbatch2, modelStageOf(s, op.rank, op.chunk2));
            expected = std::max(d.forward, durationOf(op.rank, op.chunk2).backward()) + d.overlapExposedComm;
            break;
        }
        EXPECT_NEAR(op.end - op.start, expected, 1e-9);
    }

    // Critical path of one micro-batch: its forwards down every stage, then its input-gradient
    // backwards up again, with the p2p hops between ranks.
    std::vector<int> chunkOfStage(static_cast<std::size_t>(directions) * stages, -1);
    for (int d = 0; d < directions; ++d)
        for (int stage = 0; stage < stages; ++stage)
            for (int c = 0; c < chunks; ++c)
                if (modelStageOf(s, rankOfStage(s, stage, d), c) == stage && (directions == 1 || c == d))
                    chunkOfStage[d * stages + stage] = c;
    for (int d = 0; d < directions; ++d) {
        double chain = 0;
        for (int stage = 0; stage < stages; ++stage) {
            const int rank = rankOfStage(s, stage, d);
            const ChunkDurations& du = durationOf(rank, chunkOfStage[d * stages + stage]);
            chain += du.forward + du.backwardInput;
            if (stage + 1 < stages) {
                const int next = rankOfStage(s, stage + 1, d);
                chain += p2p(rank, next) + p2p(next, rank);
            }
        }
        EXPECT_GE(r.makespan, chain - kEps);
    }
}

TEST(SimulatorProperty, RandomShapesTimesAndLatencies)
{
    constexpr ScheduleKind kinds[] = { ScheduleKind::GPipe, ScheduleKind::OneFOneB, ScheduleKind::Interleaved1F1B,
        ScheduleKind::ZbH1, ScheduleKind::ZbH2, ScheduleKind::ZbV, ScheduleKind::DualPipe, ScheduleKind::DualPipeV };
    std::mt19937 rng(20240117);
    int cases = 0;
    for (int round = 0; round < 50; ++round) {
        for (ScheduleKind kind : kinds) {
            const SimulationInput input = randomInput(kind, rng);
            ASSERT_EQ(checkShape(input.shape), "") << describe(input.shape);
            SCOPED_TRACE(describe(input.shape) + " round " + std::to_string(round));
            const std::vector<RankProgram> programs = generateSchedule(input.shape);
            ASSERT_EQ(static_cast<int>(programs.size()), input.shape.ranks);
            checkInvariants(input, programs, simulate(input, programs));
            ++cases;
            if (HasFatalFailure() || HasNonfatalFailure())
                return;
        }
    }
    EXPECT_EQ(cases, 400);
}

TEST(SimulatorProperty, P2pLatencyDelaysTheConsumer)
{
    SimulationInput input;
    input.shape = { ScheduleKind::OneFOneB, 2, 1, 1 };
    input.durations.assign(2, { ChunkDurations { 1, 1.5, 0.5, -1, 0 } });
    input.p2pSeconds = { { 0, 0.5 }, { 0.25, 0 } };
    const SimulationResult r = simulate(input);
    ASSERT_EQ(r.ops.size(), 4u);
    // rank 0: F [0,1], B [4.75,6.75]; rank 1: F [1.5,2.5], B [2.5,4.5].
    EXPECT_DOUBLE_EQ(r.ops[1].start, 4.75);
    EXPECT_DOUBLE_EQ(r.ops[2].start, 1.5);
    EXPECT_DOUBLE_EQ(r.ops[3].end, 4.5);
    EXPECT_DOUBLE_EQ(r.makespan, 6.75);
    EXPECT_DOUBLE_EQ(r.spanSecondsPerRank[1], 3.0);
    EXPECT_NEAR(r.bubbleFraction, (6.75 * 2 - 6) / (2 * 6.75), 1e-12);
}

TEST(SimulatorProperty, OverlappedPairDuration)
{
    struct Case {
        double forwardBackward;
        double exposedComm;
        double expected; // F=1, B=1, W=1: the default pair is max(F, B+W) + exposed comm
    };
    for (const Case c : { Case { -1, 0, 2 }, Case { -1, 0.25, 2.25 }, Case { 1.7, 0.25, 1.7 } }) {
        SimulationInput input;
        input.shape = { ScheduleKind::DualPipe, 2, 8, 1 };
        input.durations.assign(
            2, std::vector<ChunkDurations>(2, ChunkDurations { 1, 1, 1, c.forwardBackward, c.exposedComm }));
        const SimulationResult r = simulate(input);
        ASSERT_FALSE(r.deadlock);
        int pairs = 0;
        for (const TimedOp& op : r.ops) {
            if (op.kind == OpKind::ForwardBackward) {
                EXPECT_NEAR(op.end - op.start, c.expected, 1e-12);
                ++pairs;
            }
        }
        EXPECT_GT(pairs, 0);
    }
}

TEST(SimulatorProperty, StuckProgramsAreReportedNotLooped)
{
    const ScheduleShape shape { ScheduleKind::OneFOneB, 2, 2, 1 };
    SimulationInput input;
    input.shape = shape;
    const std::vector<std::vector<RankProgram>> bad = {
        // rank 1 wants micro-batch 1's gradient before its forward
        { { forwardOf(0), forwardOf(1), backwardOf(0), backwardOf(1) },
            { forwardOf(0), backwardOf(1), forwardOf(1), backwardOf(0) } },
        // a micro-batch outside the shape
        { { forwardOf(0), backwardOf(0) }, { forwardOf(5), backwardOf(0) } },
        // one program for two ranks
        { { forwardOf(0) } },
    };
    for (const auto& programs : bad) {
        const SimulationResult r = simulate(input, programs);
        EXPECT_TRUE(r.deadlock);
        for (std::size_t i = 1; i < r.ops.size(); ++i)
            EXPECT_LE(r.ops[i - 1].rank, r.ops[i].rank);
    }
}

} // namespace
} // namespace parallax::core
