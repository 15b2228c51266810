// SPDX-License-Identifier: Apache-2.0
#include "core/schedule/ScheduleGenerators.h"

#include <algorithm>
#include <iterator>

namespace parallax::core {

// ZB-V (arXiv:2401.10241 sec 6; the sail-sg reference order, as ported to PyTorch's
// ScheduleZBVZeroBubble): rank i holds stage i (chunk 0) and stage 2p-1-i (chunk 1), so a
// micro-batch walks down the ranks and back up, a "V". Rank i runs 2(p-i)-1 forwards of chunk 0,
// i pairs F1 F0, p-i triples F1 B1 W1, then steady F0 B0 W0 F1 B1 W1, and drains with i pairs
// B0 B1, p-i pairs B0 W0 and the pending W's. The warm-up assumes at least 2p-1 micro-batches:
// with fewer, the order is built for 2p-1 and the ops of the missing micro-batches are dropped,
// which keeps every dependency of the rest in place.
std::vector<RankProgram> generateZbV(const ScheduleShape& s)
{
    const int p = s.ranks;
    const int n = std::max(2 * p - 1, s.microbatches);
    std::vector<RankProgram> programs(p);
    for (int rank = 0; rank < p; ++rank) {
        RankProgram program;
        program.reserve(6 * n);
        int nextF[2] = { 0, 0 };
        int nextB[2] = { 0, 0 };
        int nextW[2] = { 0, 0 };
        const auto f = [&](int chunk) { program.push_back(forwardOp(nextF[chunk]++, chunk)); };
        const auto b = [&](int chunk) { program.push_back(backwardOp(OpKind::BackwardInput, nextB[chunk]++, chunk)); };
        const auto w = [&](int chunk) { program.push_back(backwardOp(OpKind::BackwardWeight, nextW[chunk]++, chunk)); };

        for (int i = 0; i < 2 * (p - rank) - 1; ++i)
            f(0);
        for (int i = 0; i < rank; ++i) {
            f(1);
            f(0);
        }
        for (int i = 0; i < p - rank; ++i) {
            f(1);
            b(1);
            w(1);
        }
        while (nextF[1] < nextF[0] || nextF[0] < n) {
            if (nextF[0] < n)
                f(0);
            b(0);
            w(0);
            f(1);
            b(1);
            w(1);
        }
        for (int i = 0; i < rank; ++i) {
            b(0);
            b(1);
        }
        for (int i = 0; i < p - rank; ++i) {
            b(0);
            w(0);
        }
        while (nextW[1] < nextB[1])
            w(1);
        while (nextW[0] < nextB[0])
            w(0);

        RankProgram& kept = programs[rank];
        kept.reserve(6 * s.microbatches);
        std::copy_if(program.begin(), program.end(), std::back_inserter(kept),
            [&](const PipelineOp& op) { return op.microbatch < s.microbatches; });
    }
    return programs;
}

} // namespace parallax::core
