// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/parallel/ParallelConfig.h"

#include <cstdint>
#include <string>
#include <vector>

namespace parallax::core {

// Op kinds of a pipeline program. Schedules that do not split the backward use Backward (B+W as
// one op); the zero-bubble family and DualPipe split it into BackwardInput (B) and
// BackwardWeight (W). ForwardBackward is DualPipe's overlapped pair: one op that runs the
// forward of (microbatch, chunk) and the backward of (microbatch2, chunk2) together.
enum class OpKind : std::uint8_t { Forward, Backward, BackwardInput, BackwardWeight, ForwardBackward };
const char* toString(OpKind k); // "F", "B", "B", "W", "F&B"  (Backward and BackwardInput both print "B")
const char* longName(OpKind k); // "forward", "backward", "backward-input", "backward-weight", "forward+backward"

// Chunk and direction are narrow (checkShape bounds the chunks per rank by kMaxChunksPerRank), so that an
// op is 20 bytes: the simulator streams every program once per run.
struct PipelineOp {
    OpKind kind = OpKind::Forward;
    int microbatch = 0;
    std::int16_t chunk = 0; // model chunk on this rank, 0 .. chunksPerRank-1
    std::int8_t direction = 0; // DualPipe: 0 micro-batches fed from rank 0, 1 fed from rank p-1
    int microbatch2 = -1; // ForwardBackward only: the backward half
    std::int16_t chunk2 = -1;
    std::int8_t direction2 = -1; // ForwardBackward only: the backward half's direction (DualPipe pairs mix them)
};

using RankProgram = std::vector<PipelineOp>;

// Most chunks (virtual stages) per pipeline rank a shape may have: PipelineOp::chunk's range. Far above
// any layout (kMaxLayers layers give at most that many chunks).
inline constexpr int kMaxChunksPerRank = 32767;

struct ScheduleShape {
    ScheduleKind kind = ScheduleKind::OneFOneB;
    int ranks = 1; // pipeline ranks p
    int microbatches = 1; // m
    int virtualStages = 1; // v, chunks per rank (interleaved only; the V and DualPipe family fix it at 2)
};

// Micro-batch ids run 0 .. m-1 in every schedule. DualPipe feeds the first m/2 from rank 0
// (direction 0) and ids m/2 .. m-1 from rank p-1 (direction 1); its chunk index equals the direction.

int chunksPerRank(const ScheduleShape& s);
// Number of model stages the layers are split into (p for 1F1B, p*v interleaved, 2p for ZB-V and
// DualPipeV, p for DualPipe whose two chunks per rank are stages i and p-1-i).
int modelStageCount(const ScheduleShape& s);
// Which model stage (0 = holds the embedding) chunk `chunk` of rank `rank` runs.
int modelStageOf(const ScheduleShape& s, int rank, int chunk);
// Whether one of rank `rank`'s chunks runs model stage `stage`.
bool rankHoldsStage(const ScheduleShape& s, int rank, int stage);
// Pipeline rank that runs model stage `stage` for a micro-batch going in `direction`.
int rankOfStage(const ScheduleShape& s, int stage, int direction);
// Copies of the parameters each rank holds relative to one model stage's share (2 for DualPipe).
int parameterCopies(const ScheduleShape& s);
// Directions micro-batches travel in: 2 for DualPipe, 1 otherwise.
int directionCount(const ScheduleShape& s);

// "parallel.vpp: ..." when a schedule other than interleaved 1F1B is given vpp > 1 (the others place
// their own chunks); empty otherwise.
std::string vppScheduleProblem(ScheduleKind kind, int vpp);

// Empty string when the shape is allowed; otherwise a message naming the field and the fix,
// e.g. "parallel.pp: DualPipe needs an even number of pipeline ranks, got 3".
std::string checkShape(const ScheduleShape& s);

// One program per pipeline rank. Precondition: checkShape(s) is empty.
std::vector<RankProgram> generateSchedule(const ScheduleShape& s);

} // namespace parallax::core
