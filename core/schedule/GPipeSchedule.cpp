// SPDX-License-Identifier: Apache-2.0
#include "core/schedule/ScheduleGenerators.h"

namespace parallax::core {

// GPipe: every forward, then every backward (arXiv:1811.06965 sec 2.2); all m micro-batches are
// in flight on every rank at the turn.
std::vector<RankProgram> generateGPipe(const ScheduleShape& s)
{
    std::vector<RankProgram> programs(s.ranks);
    for (RankProgram& program : programs) {
        program.reserve(2 * s.microbatches);
        for (int mb = 0; mb < s.microbatches; ++mb)
            program.push_back(forwardOp(mb));
        for (int mb = 0; mb < s.microbatches; ++mb)
            program.push_back(backwardOp(OpKind::Backward, mb));
    }
    return programs;
}

} // namespace parallax::core
