// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/schedule/PipelineSimulator.h"

#include <string>
#include <vector>

namespace parallax::core::test {

// One set of op times for every rank and chunk, in seconds.
inline SimulationInput uniformInput(const ScheduleShape& shape, const ChunkDurations& d)
{
    SimulationInput input;
    input.shape = shape;
    input.durations.assign(shape.ranks, std::vector<ChunkDurations>(chunksPerRank(shape), d));
    return input;
}

// Compact program notation for hand-written expectations: F = forward, B = full backward,
// Bi = backward-input, W = backward-weight, then the micro-batch, then "c<chunk>" when the
// schedule has several chunks; an overlapped pair is "<forward>&<backward>".
inline std::string formatOp(OpKind kind, int microbatch, int chunk, bool withChunk)
{
    const char* name = kind == OpKind::Forward ? "F"
        : kind == OpKind::Backward             ? "B"
        : kind == OpKind::BackwardInput        ? "Bi"
                                               : "W";
    std::string text = name + std::to_string(microbatch);
    if (withChunk)
        text += "c" + std::to_string(chunk);
    return text;
}

inline std::string formatProgram(const RankProgram& program, bool withChunk)
{
    std::string text;
    for (const PipelineOp& op : program) {
        if (!text.empty())
            text += ' ';
        if (op.kind == OpKind::ForwardBackward)
            text += formatOp(OpKind::Forward, op.microbatch, op.chunk, withChunk) + "&"
                + formatOp(OpKind::Backward, op.microbatch2, op.chunk2, withChunk);
        else
            text += formatOp(op.kind, op.microbatch, op.chunk, withChunk);
    }
    return text;
}

inline const char* kindName(ScheduleKind k)
{
    static const char* const names[]
        = { "GPipe", "1F1B", "Interleaved1F1B", "ZB-H1", "ZB-H2", "ZB-V", "DualPipe", "DualPipeV" };
    return names[static_cast<int>(k)];
}

inline std::string describe(const ScheduleShape& s)
{
    return std::string(kindName(s.kind)) + " p=" + std::to_string(s.ranks) + " m=" + std::to_string(s.microbatches)
        + " v=" + std::to_string(s.virtualStages);
}

} // namespace parallax::core::test
