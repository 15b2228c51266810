// SPDX-License-Identifier: Apache-2.0
#include "core/schedule/ScheduleGenerators.h"

#include <algorithm>

namespace parallax::core {

// Interleaved 1F1B in Megatron-LM's order (arXiv:2104.04473 sec 2.2.2; megatron/core/
// pipeline_parallel/schedules.py, forward_backward_pipelining_with_interleaving). Requires
// m % p == 0 (checkShape): micro-batches go through the chunks in groups of p. The k-th
// "virtual micro-batch" of a rank is micro-batch (k / (p v)) p + k % p of chunk (k / p) % v, chunks
// counted down for backwards. Rank i warms up with 2(p-1-i) + (v-1)p forwards, or all of them when
// m == p. With v == 1 this is Megatron's non-interleaved 1F1B.
std::vector<RankProgram> generateInterleaved(const ScheduleShape& s)
{
    const int p = s.ranks;
    const int v = s.virtualStages;
    if (v == 1)
        return generateOneFOneB(s);
    const int total = s.microbatches * v;
    const auto microbatchOf = [p, v](int k) { return (k / (p * v)) * p + k % p; };
    const auto chunkOf = [p, v](int k, bool forward) {
        const int chunk = (k % (p * v)) / p;
        return forward ? chunk : v - 1 - chunk;
    };
    const auto forward = [&](int k) { return forwardOp(microbatchOf(k), chunkOf(k, true)); };
    const auto backward = [&](int k) { return backwardOp(OpKind::Backward, microbatchOf(k), chunkOf(k, false)); };

    std::vector<RankProgram> programs(p);
    for (int rank = 0; rank < p; ++rank) {
        RankProgram& program = programs[rank];
        program.reserve(2 * total);
        const int warmup = s.microbatches == p ? total : std::min(2 * (p - 1 - rank) + (v - 1) * p, total);
        for (int k = 0; k < warmup; ++k)
            program.push_back(forward(k));
        for (int k = 0; k + warmup < total; ++k) {
            program.push_back(forward(k + warmup));
            program.push_back(backward(k));
        }
        for (int k = total - warmup; k < total; ++k)
            program.push_back(backward(k));
    }
    return programs;
}

} // namespace parallax::core
