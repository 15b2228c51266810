// SPDX-License-Identifier: Apache-2.0
#include "core/schedule/PipelineClosedForm.h"

#include <algorithm>

namespace parallax::core {

int closedFormInflightChunks(const ScheduleShape& s, int rank)
{
    const int p = s.ranks;
    const int m = s.microbatches;
    const int v = std::max(1, s.virtualStages);
    switch (s.kind) {
    case ScheduleKind::GPipe:
        return m;
    case ScheduleKind::OneFOneB:
    case ScheduleKind::ZbH1:
        return std::min(m, p - rank);
    case ScheduleKind::ZbH2:
        return std::min(m, 2 * (p - rank) - 1);
    case ScheduleKind::Interleaved1F1B:
        // Megatron-LM warm-up: (p - rank - 1) * 2 + (v - 1) * p forwards, then one more.
        return std::min(v * m, (p - rank - 1) * 2 + (v - 1) * p + 1);
    case ScheduleKind::ZbV:
    case ScheduleKind::DualPipeV:
        return std::min(2 * m, 2 * p); // balanced p * M_B, chunks are half a stage (arXiv:2401.10241 sec. 6)
    case ScheduleKind::DualPipe:
        return std::min(2 * m, p + 1);
    }
    return m;
}

double closedFormBubbleSeconds(ScheduleKind kind, int p, int v, const ClosedFormTimes& t)
{
    switch (kind) {
    case ScheduleKind::GPipe:
    case ScheduleKind::OneFOneB:
        return (p - 1) * (t.slowest / t.chunks + 2 * t.p2p); // arXiv:2104.04473 sec. 2.2.1
    case ScheduleKind::Interleaved1F1B:
        return (p - 1) * (t.slowest + 2 * t.p2p) / std::max(1, v); // sec. 2.2.2
    case ScheduleKind::ZbH1:
        return (p - 1) * std::max(0.0, t.f + t.b - t.w + 2 * t.p2p); // arXiv:2401.10241 Table 2
    case ScheduleKind::ZbH2:
    case ScheduleKind::ZbV:
        return (p - 1) * std::max(0.0, t.f + t.b - 2 * t.w + 2 * t.p2p);
    case ScheduleKind::DualPipe:
    case ScheduleKind::DualPipeV:
        return (p / 2.0 - 1) * std::max(0.0, t.fb + (t.b + t.w) - 3 * t.w); // arXiv:2412.19437 Table 2
    }
    return 0;
}

SimulationResult closedFormSchedule(const SimulationInput& in)
{
    SimulationResult r;
    const ScheduleShape& s = in.shape;
    const int p = s.ranks;
    const int m = s.microbatches;
    const int chunks = chunksPerRank(s);
    auto dur
        = [&](int rank, int chunk) { return in.durations.empty() ? ChunkDurations {} : in.durations[rank][chunk]; };
    double slowest = 0; // busiest rank's work for one micro-batch through all its chunks
    double sumF = 0, sumB = 0, sumW = 0;
    std::vector<double> perMb(p, 0);
    for (int rank = 0; rank < p; ++rank) {
        for (int c = 0; c < chunks; ++c) {
            const ChunkDurations d = dur(rank, c);
            perMb[rank] += d.forward + d.backward();
        }
        slowest = std::max(slowest, perMb[rank]);
    }
    for (int rank = 0; rank < p; ++rank) {
        const ChunkDurations d = dur(rank, 0);
        sumF += d.forward;
        sumB += d.backwardInput;
        sumW += d.backwardWeight;
    }
    const double f = sumF / p, b = sumB / p, w = sumW / p;
    double p2p = 0;
    if (!in.p2pSeconds.empty() && p > 1)
        p2p = in.p2pSeconds[0][1];
    ClosedFormTimes t { slowest, static_cast<double>(chunks), f, b, w, 0, p2p };
    t.fb = dur(0, 0).forwardBackward >= 0 ? dur(0, 0).forwardBackward : f + b + w;
    const double bubble = closedFormBubbleSeconds(s.kind, p, s.virtualStages, t);
    r.makespan = m * slowest + bubble;
    r.bubbleFractionPerRank.resize(p);
    r.busySecondsPerRank.resize(p);
    r.peakInflightWeight.resize(p);
    r.peakInflightChunks.resize(p);
    r.parameterCopies.assign(p, parameterCopies(s));
    double idle = 0;
    for (int rank = 0; rank < p; ++rank) {
        r.busySecondsPerRank[rank] = m * perMb[rank];
        r.bubbleFractionPerRank[rank] = r.makespan > 0 ? 1.0 - r.busySecondsPerRank[rank] / r.makespan : 0;
        idle += r.makespan - r.busySecondsPerRank[rank];
        const int inflight = closedFormInflightChunks(s, rank);
        r.peakInflightChunks[rank] = inflight;
        double weight = 0; // chunks in flight, spread evenly over the rank's chunks
        for (int c = 0; c < chunks; ++c)
            weight += in.activationWeight.empty() ? 1.0 : in.activationWeight[rank][c];
        r.peakInflightWeight[rank] = weight / chunks * inflight;
    }
    r.bubbleFraction = r.makespan > 0 ? idle / (p * r.makespan) : 0;
    return r;
}

} // namespace parallax::core
