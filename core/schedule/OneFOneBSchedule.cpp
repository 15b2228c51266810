// SPDX-License-Identifier: Apache-2.0
#include "core/schedule/ScheduleGenerators.h"

#include <algorithm>

namespace parallax::core {

// PipeDream-Flush 1F1B (arXiv:2104.04473 sec 2.2.1): rank i runs p-1-i warm-up forwards, then
// alternates one forward and one backward, then drains the backwards; at most p-i micro-batches
// are in flight on rank i.
std::vector<RankProgram> generateOneFOneB(const ScheduleShape& s)
{
    std::vector<RankProgram> programs(s.ranks);
    for (int rank = 0; rank < s.ranks; ++rank) {
        RankProgram& program = programs[rank];
        program.reserve(2 * s.microbatches);
        const int warmup = std::min(s.ranks - 1 - rank, s.microbatches);
        for (int mb = 0; mb < warmup; ++mb)
            program.push_back(forwardOp(mb));
        for (int mb = 0; mb + warmup < s.microbatches; ++mb) {
            program.push_back(forwardOp(mb + warmup));
            program.push_back(backwardOp(OpKind::Backward, mb));
        }
        for (int mb = s.microbatches - warmup; mb < s.microbatches; ++mb)
            program.push_back(backwardOp(OpKind::Backward, mb));
    }
    return programs;
}

} // namespace parallax::core
