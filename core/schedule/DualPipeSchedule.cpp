// SPDX-License-Identifier: Apache-2.0
#include "core/schedule/ScheduleGenerators.h"

#include <algorithm>
#include <deque>

namespace parallax::core {

namespace {

// A stream of micro-batches one rank runs through one of its chunks. The reference code calls the
// two streams of a rank "phase 0" and "phase 1".
struct Stream {
    int chunk = 0;
    int direction = 0;
    int firstMicrobatch = 0;
};

// The eight steps of the public DualPipe reference (deepseek-ai/DualPipe, dualpipe.py and
// dualpipev.py, DualPipe*.step), written for a rank at position r of n with c micro-batches per
// stream. DualPipe uses n = p/2, r = min(i, p-1-i), c = m/2; DualPipeV uses n = p, r = i, c = m.
// `middle` marks the rank(s) where the two streams meet (r == n-1), which run the first F0 and B1
// of the main step apart rather than overlapped.
struct Plan {
    int n = 1;
    int r = 0;
    int perStream = 0;
    Stream stream[2];
};

RankProgram eightSteps(const Plan& plan)
{
    const int n = plan.n;
    const int r = plan.r;
    const bool middle = r == n - 1;
    RankProgram program;
    program.reserve(6 * plan.perStream);
    int nextF[2] = { 0, 0 };
    int nextB[2] = { 0, 0 };
    std::deque<PipelineOp> pendingW; // the reference's WeightGradStore: a FIFO of deferred W's

    const auto forward = [&](int phase) {
        const Stream& st = plan.stream[phase];
        return forwardOp(st.firstMicrobatch + nextF[phase]++, st.chunk, st.direction);
    };
    const auto backward = [&](int phase, bool splitW) {
        const Stream& st = plan.stream[phase];
        const int mb = st.firstMicrobatch + nextB[phase]++;
        if (splitW)
            pendingW.push_back(backwardOp(OpKind::BackwardWeight, mb, st.chunk, st.direction));
        return backwardOp(splitW ? OpKind::BackwardInput : OpKind::Backward, mb, st.chunk, st.direction);
    };
    const auto f = [&](int phase) { program.push_back(forward(phase)); };
    const auto b = [&](int phase, bool splitW) { program.push_back(backward(phase, splitW)); };
    const auto w = [&] {
        program.push_back(pendingW.front());
        pendingW.pop_front();
    };
    const auto fb = [&](int forwardPhase, int backwardPhase) {
        const PipelineOp fwd = forward(forwardPhase);
        program.push_back(forwardBackwardOp(fwd, backward(backwardPhase, false)));
    };

    for (int i = 0; i < 2 * (n - r - 1); ++i) // step 1: nF0
        f(0);
    for (int i = 0; i < r + 1; ++i) { // step 2: nF0F1
        f(0);
        f(1);
    }
    for (int i = 0; i < n - r - 1; ++i) { // step 3: nB1W1F1, zero-bubble split
        b(1, true);
        w();
        f(1);
    }
    for (int i = 0; i < plan.perStream - 2 * n + r + 1; ++i) { // step 4 (main): nF0B1F1B0
        if (i == 0 && middle) {
            f(0);
            b(1, false);
        } else {
            fb(0, 1);
        }
        fb(1, 0);
    }
    for (int i = 0; i < n - r - 1; ++i) { // step 5: nB1F1B0
        b(1, false);
        fb(1, 0);
    }
    bool splitW = false;
    const int step6 = r + 1;
    for (int i = 0; i < step6; ++i) { // step 6: nB1B0, the second half split
        if (i == step6 / 2 && r % 2 == 1)
            splitW = true;
        b(1, splitW);
        if (i == step6 / 2 && r % 2 == 0)
            splitW = true;
        b(0, splitW);
    }
    for (int i = 0; i < n - r - 1; ++i) { // step 7: nWB0
        w();
        b(0, true);
    }
    while (!pendingW.empty()) // step 8: nW
        w();
    return program;
}

} // namespace

// DualPipe (arXiv:2412.19437 sec 3.2.1): rank i holds stage i (chunk 0, direction 0, fed from
// rank 0) and stage p-1-i (chunk 1, direction 1, fed from rank p-1). In the reference a rank's
// phase 0 is the stream entering on its own side: direction 0 on the first p/2 ranks, 1 on the rest.
// Table 2's bubble (p/2-1)(F&B+B-3W) is the idle time of the middle ranks, the most idle ones.
std::vector<RankProgram> generateDualPipe(const ScheduleShape& s)
{
    const int p = s.ranks;
    const int half = s.microbatches / 2;
    std::vector<RankProgram> programs(p);
    for (int rank = 0; rank < p; ++rank) {
        const int secondHalf = rank >= p / 2 ? 1 : 0;
        Plan plan;
        plan.n = p / 2;
        plan.r = std::min(rank, p - 1 - rank);
        plan.perStream = half;
        for (int phase = 0; phase < 2; ++phase) {
            const int direction = phase ^ secondHalf;
            plan.stream[phase] = { direction, direction, direction * half };
        }
        programs[rank] = eightSteps(plan);
    }
    return programs;
}

// DualPipeV, DualPipe "cut in half" (deepseek-ai/DualPipe, dualpipev.py): one direction, V
// placement as ZB-V (chunk 0 = stage i, chunk 1 = stage 2p-1-i), the same eight steps.
std::vector<RankProgram> generateDualPipeV(const ScheduleShape& s)
{
    std::vector<RankProgram> programs(s.ranks);
    for (int rank = 0; rank < s.ranks; ++rank) {
        Plan plan;
        plan.n = s.ranks;
        plan.r = rank;
        plan.perStream = s.microbatches;
        plan.stream[0] = { 0, 0, 0 };
        plan.stream[1] = { 1, 0, 0 };
        programs[rank] = eightSteps(plan);
    }
    return programs;
}

} // namespace parallax::core
