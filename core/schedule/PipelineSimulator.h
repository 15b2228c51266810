// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/schedule/PipelineSchedule.h"

#include <cstdint>
#include <vector>

namespace parallax::core {

// Durations of one chunk's ops on one rank, seconds. `backward` is used by schedules that do not
// split (then B+W run as one op of this length); `backwardInput` + `backwardWeight` by those that
// do. An overlapped F&B pair reads the entry of its forward half's chunk: `forwardBackward` when
// >= 0, else max(forward, backward() of the backward half's chunk) + overlapExposedComm (the two
// streams share the SMs, so the pair lasts as long as its longer half plus the all-to-all it cannot hide).
struct ChunkDurations {
    double forward = 1;
    double backwardInput = 1;
    double backwardWeight = 1;
    double forwardBackward = -1;
    double overlapExposedComm = 0; // exposed all-to-all of an overlapped F&B pair (DualPipe knob)
    // Exposed TP/CP/EP communication already included in `forward` / `backwardInput` (shown, not added).
    double forwardComm = 0;
    double backwardComm = 0;
    double backward() const { return backwardInput + backwardWeight; }
};

struct SimulationInput {
    ScheduleShape shape;
    // [rank][chunk]; empty means uniform unit times.
    std::vector<std::vector<ChunkDurations>> durations;
    // [fromRank][toRank] seconds to move one micro-batch's activation (or its gradient) between
    // the two ranks; empty means free p2p. Schedules send between ring neighbours only (r +- 1 mod p),
    // so the engine fills just those entries.
    std::vector<std::vector<double>> p2pSeconds;
    // [rank][chunk] weight of one micro-batch's stored activations of that chunk (bytes, or 1 to
    // count chunks); the W-pending state (after B, before W) weighs wPendingWeight. Empty: 1 / 0.
    std::vector<std::vector<double>> activationWeight;
    std::vector<std::vector<double>> wPendingWeight;
};

// 48 bytes: a simulation writes one per op (PipelineOp's narrow chunk and direction).
struct TimedOp {
    int rank = 0;
    OpKind kind = OpKind::Forward;
    int microbatch = 0;
    std::int16_t chunk = 0;
    std::int8_t direction = 0;
    int microbatch2 = -1;
    std::int16_t chunk2 = -1;
    std::int8_t direction2 = -1;
    double start = 0;
    double end = 0;
    double commSeconds = 0; // exposed communication inside [start, end], drawn as the op's tail
};

struct SimulationResult {
    std::vector<TimedOp> ops; // sorted by rank, then start
    double makespan = 0;
    double bubbleFraction = 0; // idle time over all ranks / (ranks * makespan)
    std::vector<double> bubbleFractionPerRank;
    std::vector<double> busySecondsPerRank;
    // First op start to last op end on each rank. Its maximum is the "cost" in the bubble rate of
    // arXiv:2401.10241 sec 5, the step period once consecutive steps overlap (the ZB-H2 parallelogram).
    std::vector<double> spanSecondsPerRank;
    // Peak over time of the sum of activation weights of chunks whose forward has run and whose
    // backward (input part) has not finished, plus W-pending weights.
    std::vector<double> peakInflightWeight;
    // Peak count of chunks whose forward has run and whose backward (input part) has not; its own
    // maximum over time, W-pending states not counted.
    std::vector<int> peakInflightChunks;
    std::vector<int> parameterCopies;
    // A program could not finish: a generator bug, an op naming a micro-batch, chunk or direction
    // outside the shape, a shape checkShape() rejects, or not one program per rank. Never true for
    // generated programs of valid shapes. `ops` then holds the ops that did run.
    bool deadlock = false;
};

// Event-driven execution: an op starts when its rank is free and its inputs have arrived (the
// producing op's end plus p2p time between the two ranks).
SimulationResult simulate(const SimulationInput& input, const std::vector<RankProgram>& programs);
SimulationResult simulate(const SimulationInput& input); // generates the programs itself
// The same into `result`, whose vectors keep their capacity (the ops of a caller that reuses one result).
void simulate(const SimulationInput& input, SimulationResult& result);

} // namespace parallax::core
