// SPDX-License-Identifier: Apache-2.0
#include "core/schedule/ScheduleGenerators.h"

#include <algorithm>
#include <deque>

namespace parallax::core {

namespace {

// The handcrafted zero-bubble schedules of arXiv:2401.10241 sec 2 share one shape: `warmup`
// forwards, then F B pairs whose weight passes W lag by `wLag` B's, then the remaining B's each
// followed by one W, then the W's still pending.
RankProgram zeroBubbleProgram(int microbatches, int warmup, int wLag)
{
    RankProgram program;
    program.reserve(3 * microbatches);
    std::deque<int> pendingW;
    const auto backward = [&](int mb) {
        program.push_back(backwardOp(OpKind::BackwardInput, mb));
        pendingW.push_back(mb);
    };
    const auto weight = [&] {
        program.push_back(backwardOp(OpKind::BackwardWeight, pendingW.front()));
        pendingW.pop_front();
    };
    warmup = std::min(warmup, microbatches);
    for (int mb = 0; mb < warmup; ++mb)
        program.push_back(forwardOp(mb));
    for (int mb = 0; mb + warmup < microbatches; ++mb) {
        program.push_back(forwardOp(mb + warmup));
        backward(mb);
        if (static_cast<int>(pendingW.size()) > wLag)
            weight();
    }
    for (int mb = microbatches - warmup; mb < microbatches; ++mb) {
        backward(mb);
        weight();
    }
    while (!pendingW.empty())
        weight();
    return program;
}

} // namespace

// ZB-H1 (arXiv:2401.10241 sec 2.1): 1F1B's warm-up, rank i delays its W's by i B's, so rank i
// holds at most p-i activations (as 1F1B) plus i W-pending states. Bubble per rank
// (p-1)(T_F+T_B-T_W) (Table 2, T_B the input gradient alone) while T_W <= min(T_F, T_B).
std::vector<RankProgram> generateZbH1(const ScheduleShape& s)
{
    std::vector<RankProgram> programs(s.ranks);
    for (int rank = 0; rank < s.ranks; ++rank)
        programs[rank] = zeroBubbleProgram(s.microbatches, s.ranks - 1 - rank, rank);
    return programs;
}

// ZB-H2 (arXiv:2401.10241 sec 2.2): 2(p-1-i) warm-up forwards fill the bubble before the first B
// and W's lag by 2i B's, a parallelogram with (2p-2i-1) activations at the peak on rank i. Its
// Table 2 bubble (p-1)(T_F+T_B-2T_W) counts each rank's own span (steps overlap), and needs
// m >= 2p-1 and T_F+T_B >= 2T_W.
std::vector<RankProgram> generateZbH2(const ScheduleShape& s)
{
    std::vector<RankProgram> programs(s.ranks);
    for (int rank = 0; rank < s.ranks; ++rank)
        programs[rank] = zeroBubbleProgram(s.microbatches, 2 * (s.ranks - 1 - rank), 2 * rank);
    return programs;
}

} // namespace parallax::core
