// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/schedule/PipelineSchedule.h"

#include <vector>

namespace parallax::core {

// One generator per schedule family; generateSchedule() dispatches on ScheduleShape::kind.
// Each takes a shape that passed checkShape() and returns one program per pipeline rank.
std::vector<RankProgram> generateGPipe(const ScheduleShape& s);
std::vector<RankProgram> generateOneFOneB(const ScheduleShape& s);
std::vector<RankProgram> generateInterleaved(const ScheduleShape& s);
std::vector<RankProgram> generateZbH1(const ScheduleShape& s);
std::vector<RankProgram> generateZbH2(const ScheduleShape& s);
std::vector<RankProgram> generateZbV(const ScheduleShape& s);
std::vector<RankProgram> generateDualPipe(const ScheduleShape& s);
std::vector<RankProgram> generateDualPipeV(const ScheduleShape& s);

// Op constructors shared by the generators.
inline PipelineOp forwardOp(int microbatch, int chunk = 0, int direction = 0)
{
    return { OpKind::Forward, microbatch, static_cast<std::int16_t>(chunk), static_cast<std::int8_t>(direction), -1, -1,
        -1 };
}
inline PipelineOp backwardOp(OpKind kind, int microbatch, int chunk = 0, int direction = 0)
{
    return { kind, microbatch, static_cast<std::int16_t>(chunk), static_cast<std::int8_t>(direction), -1, -1, -1 };
}
inline PipelineOp forwardBackwardOp(const PipelineOp& forward, const PipelineOp& backward)
{
    return { OpKind::ForwardBackward, forward.microbatch, forward.chunk, forward.direction, backward.microbatch,
        backward.chunk, backward.direction };
}

} // namespace parallax::core
