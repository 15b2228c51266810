// SPDX-License-Identifier: Apache-2.0
#include "ui/render/GanttModel.h"

#include "ui/render/RenderStyle.h"

#include <algorithm>
#include <cmath>

namespace parallax::render {

using core::OpKind;
using core::TimedOp;

namespace {
bool isBackwardInputKind(OpKind k)
{
    return k == OpKind::Backward || k == OpKind::BackwardInput;
}
constexpr double kNotRun = -1;
} // namespace

GanttModel::GanttModel(std::vector<GanttTrack> tracks)
{
    m_tracks.resize(tracks.size());
    m_endTime = 0;
    for (std::size_t i = 0; i < tracks.size(); ++i) {
        m_tracks[i].input = std::move(tracks[i]);
        prepare(m_tracks[i]);
        m_endTime = std::max(m_endTime, m_tracks[i].input.result.makespan);
    }
    if (!(m_endTime > 0))
        m_endTime = 1;
    m_shortestOp = m_endTime;
    for (const Prepared& p : m_tracks) {
        for (const TimedOp& op : p.ops) {
            m_shortestOp = std::min(m_shortestOp, op.end - op.start);
            m_kinds |= 1u << static_cast<unsigned>(op.kind);
        }
    }
}

void GanttModel::prepare(Prepared& p) const
{
    const core::SimulationResult& r = p.input.result;
    int ranks = static_cast<int>(r.bubbleFractionPerRank.size());
    if (p.input.shape)
        ranks = std::max(ranks, p.input.shape->ranks);
    for (const TimedOp& op : r.ops)
        ranks = std::max(ranks, op.rank + 1);
    p.ops = r.ops;
    std::stable_sort(p.ops.begin(), p.ops.end(),
        [](const TimedOp& a, const TimedOp& b) { return a.rank != b.rank ? a.rank < b.rank : a.start < b.start; });
    p.rankBegin.assign(static_cast<std::size_t>(ranks) + 1, 0);
    for (const TimedOp& op : p.ops)
        ++p.rankBegin[static_cast<std::size_t>(op.rank) + 1];
    for (int i = 0; i < ranks; ++i)
        p.rankBegin[static_cast<std::size_t>(i) + 1] += p.rankBegin[static_cast<std::size_t>(i)];
    if (p.input.result.makespan <= 0 && !p.ops.empty()) {
        for (const TimedOp& op : p.ops)
            p.input.result.makespan = std::max(p.input.result.makespan, op.end);
    }
    findP2pWaits(p);
    buildInflight(p);
}

void GanttModel::findP2pWaits(Prepared& p) const
{
    const int ranks = static_cast<int>(p.rankBegin.size()) - 1;
    p.p2pWaits.assign(static_cast<std::size_t>(ranks), {});
    if (!p.input.shape)
        return;
    const core::ScheduleShape& s = *p.input.shape;
    const int stages = core::modelStageCount(s);
    const int dirs = core::directionCount(s);
    const int m = s.microbatches;
    if (stages <= 0 || m <= 0)
        return;
    const std::size_t keys = static_cast<std::size_t>(dirs) * m * stages;
    std::vector<double> forwardEnd(keys, kNotRun), backwardEnd(keys, kNotRun);
    auto key = [&](int dir, int mb, int stage) -> std::ptrdiff_t {
        if (dir < 0 || dir >= dirs || mb < 0 || mb >= m || stage < 0 || stage >= stages)
            return -1;
        return (static_cast<std::ptrdiff_t>(dir) * m + mb) * stages + stage;
    };
    auto stageOf = [&](int rank, int chunk) { return core::modelStageOf(s, rank, chunk); };
    for (const TimedOp& op : p.ops) {
        if (op.kind == OpKind::Forward || op.kind == OpKind::ForwardBackward) {
            if (auto k = key(op.direction, op.microbatch, stageOf(op.rank, op.chunk)); k >= 0)
                forwardEnd[static_cast<std::size_t>(k)] = op.end;
        }
        if (isBackwardInputKind(op.kind)) {
            if (auto k = key(op.direction, op.microbatch, stageOf(op.rank, op.chunk)); k >= 0)
                backwardEnd[static_cast<std::size_t>(k)] = op.end;
        }
        if (op.kind == OpKind::ForwardBackward) {
            if (auto k = key(op.direction2, op.microbatch2, stageOf(op.rank, op.chunk2)); k >= 0)
                backwardEnd[static_cast<std::size_t>(k)] = op.end;
        }
    }
    // The latest end of an input produced on another rank (-1: all inputs are local or none).
    auto remoteInputEnd = [&](int rank, bool forward, int dir, int mb, int chunk) {
        const int stage = stageOf(rank, chunk);
        const int from = forward ? stage - 1 : stage + 1;
        if (from < 0 || from >= stages)
            return kNotRun; // the first stage reads data; the last stage's backward starts from its loss
        if (core::rankOfStage(s, from, dir) == rank)
            return kNotRun;
        const auto k = key(dir, mb, from);
        return k < 0 ? kNotRun : (forward ? forwardEnd : backwardEnd)[static_cast<std::size_t>(k)];
    };
    for (int r = 0; r < ranks; ++r) {
        double prevEnd = 0;
        for (int i = p.rankBegin[static_cast<std::size_t>(r)]; i < p.rankBegin[static_cast<std::size_t>(r) + 1]; ++i) {
            const TimedOp& op = p.ops[static_cast<std::size_t>(i)];
            double produced = kNotRun;
            switch (op.kind) {
            case OpKind::Forward:
                produced = remoteInputEnd(r, true, op.direction, op.microbatch, op.chunk);
                break;
            case OpKind::Backward:
            case OpKind::BackwardInput:
                produced = remoteInputEnd(r, false, op.direction, op.microbatch, op.chunk);
                break;
            case OpKind::ForwardBackward:
                produced = std::max(remoteInputEnd(r, true, op.direction, op.microbatch, op.chunk),
                    remoteInputEnd(r, false, op.direction2, op.microbatch2, op.chunk2));
                break;
            case OpKind::BackwardWeight:
                break;
            }
            // The rank sat idle from prevEnd; the input's producer finished at `produced`; the rest,
            // up to the start, was the transfer (the simulator starts an op at max(free, arrival)).
            const double eps = 1e-12 * std::max(1.0, std::abs(op.start));
            if (produced >= 0 && op.start > prevEnd + eps && op.start > produced + eps)
                p.p2pWaits[static_cast<std::size_t>(r)].push_back({ std::max(prevEnd, produced), op.start });
            prevEnd = std::max(prevEnd, op.end);
        }
    }
}

void GanttModel::buildInflight(Prepared& p) const
{
    const core::SimulationResult& res = p.input.result;
    const int ranks = static_cast<int>(p.rankBegin.size()) - 1;
    p.inflight.assign(static_cast<std::size_t>(ranks), {});
    p.inflightPeak.assign(static_cast<std::size_t>(ranks), 0.0);
    std::vector<std::pair<double, int>> events;
    for (int r = 0; r < ranks; ++r) {
        double perChunk = 1;
        if (p.input.inflightUnit == GanttTrack::InflightUnit::Bytes) {
            const auto ur = static_cast<std::size_t>(r);
            const int chunks = ur < res.peakInflightChunks.size() ? res.peakInflightChunks[ur] : 0;
            const double weight = ur < res.peakInflightWeight.size() ? res.peakInflightWeight[ur] : 0;
            perChunk = chunks > 0 ? weight / chunks : 0;
        }
        events.clear();
        for (int i = p.rankBegin[static_cast<std::size_t>(r)]; i < p.rankBegin[static_cast<std::size_t>(r) + 1]; ++i) {
            const TimedOp& op = p.ops[static_cast<std::size_t>(i)];
            if (op.kind == OpKind::Forward)
                events.push_back({ op.start, +1 });
            else if (isBackwardInputKind(op.kind))
                events.push_back({ op.end, -1 });
        }
        // Frees before allocations at equal times, as the simulator counts after each op.
        std::stable_sort(events.begin(), events.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first < b.first : a.second < b.second; });
        auto& steps = p.inflight[static_cast<std::size_t>(r)];
        steps.push_back({ 0.0, 0.0 });
        int n = 0, peak = 0;
        for (const auto& [t, d] : events) {
            n += d;
            peak = std::max(peak, n);
            if (steps.back().time == t)
                steps.back().value = n * perChunk;
            else
                steps.push_back({ t, n * perChunk });
        }
        p.inflightPeak[static_cast<std::size_t>(r)] = peak * perChunk;
    }
}

int GanttModel::totalRows() const
{
    int n = 0;
    for (int t = 0; t < trackCount(); ++t)
        n += rankCount(t);
    return n;
}

std::size_t GanttModel::opCount() const
{
    std::size_t n = 0;
    for (const Prepared& p : m_tracks)
        n += p.ops.size();
    return n;
}

TimeAxis::Units GanttModel::timeUnits() const
{
    return m_tracks.empty() ? TimeAxis::Units::Seconds : m_tracks.front().input.timeUnits;
}

int GanttModel::firstOpEndingAfter(int track, int rank, double t) const
{
    const auto& ops = this->ops(track);
    const auto begin = ops.begin() + rankBegin(track, rank);
    const auto end = ops.begin() + rankBegin(track, rank + 1);
    // A rank runs one op at a time, so its ops sorted by start are sorted by end too.
    const auto it = std::upper_bound(begin, end, t, [](double v, const TimedOp& op) { return v < op.end; });
    return static_cast<int>(it - ops.begin());
}

std::span<const TimeInterval> GanttModel::p2pWaits(int track, int rank) const
{
    const auto& w = m_tracks[static_cast<std::size_t>(track)].p2pWaits;
    if (rank < 0 || rank >= static_cast<int>(w.size()))
        return {};
    return w[static_cast<std::size_t>(rank)];
}

TimeInterval GanttModel::p2pWaitBefore(OpRef ref) const
{
    const TimedOp& o = op(ref);
    for (const TimeInterval& w : p2pWaits(ref.track, o.rank)) {
        if (w.end == o.start)
            return w;
    }
    return { o.start, o.start };
}

double GanttModel::inflightAt(int track, int rank, double t) const
{
    const auto& steps = m_tracks[static_cast<std::size_t>(track)].inflight[static_cast<std::size_t>(rank)];
    const auto it = std::upper_bound(steps.begin(), steps.end(), t, [](double v, const Step& s) { return v < s.time; });
    return it == steps.begin() ? 0.0 : std::prev(it)->value;
}

double GanttModel::inflightPeak(int track, int rank) const
{
    return m_tracks[static_cast<std::size_t>(track)].inflightPeak[static_cast<std::size_t>(rank)];
}

double GanttModel::inflightPeakOfTrack(int track) const
{
    const auto& peaks = m_tracks[static_cast<std::size_t>(track)].inflightPeak;
    return peaks.empty() ? 0.0 : *std::max_element(peaks.begin(), peaks.end());
}

int GanttModel::inflightPeakRank(int track) const
{
    const auto& peaks = m_tracks[static_cast<std::size_t>(track)].inflightPeak;
    return peaks.empty() ? 0 : static_cast<int>(std::max_element(peaks.begin(), peaks.end()) - peaks.begin());
}

bool GanttModel::hasKind(OpKind kind) const
{
    auto bit = [](OpKind k) { return 1u << static_cast<unsigned>(k); };
    if (isBackwardInputKind(kind))
        return (m_kinds & (bit(OpKind::Backward) | bit(OpKind::BackwardInput))) != 0;
    return (m_kinds & bit(kind)) != 0;
}

bool GanttModel::splitsBackward() const
{
    return (m_kinds
               & ((1u << static_cast<unsigned>(OpKind::BackwardInput))
                   | (1u << static_cast<unsigned>(OpKind::BackwardWeight))))
        != 0;
}

bool GanttModel::hasExposedComm() const
{
    for (const Prepared& p : m_tracks)
        for (const core::TimedOp& o : p.ops)
            if (o.commSeconds > 0)
                return true;
    return false;
}

bool GanttModel::hasP2pWaits() const
{
    for (const Prepared& p : m_tracks)
        for (const auto& w : p.p2pWaits)
            if (!w.empty())
                return true;
    return false;
}

int GanttModel::chunksPerRank(int track) const
{
    const auto& shape = this->track(track).shape;
    return shape ? core::chunksPerRank(*shape) : 1;
}

bool GanttModel::showsDirections(int track) const
{
    const auto& shape = this->track(track).shape;
    return shape && core::directionCount(*shape) > 1;
}

QString GanttModel::opLabel(int track, const TimedOp& op) const
{
    const bool dirs = showsDirections(track);
    const bool chunks = !dirs && chunksPerRank(track) > 1;
    auto half = [&](QChar kind, int mb, int chunk, int dir) {
        QString s = kind + QString::number(mb);
        if (chunks)
            s += u'c' + QString::number(chunk);
        if (dirs)
            s += dir == 0 ? QStringLiteral("↓") : QStringLiteral("↑");
        return s;
    };
    switch (op.kind) {
    case OpKind::Forward:
        return half(u'F', op.microbatch, op.chunk, op.direction);
    case OpKind::Backward:
    case OpKind::BackwardInput:
        return half(u'B', op.microbatch, op.chunk, op.direction);
    case OpKind::BackwardWeight:
        return half(u'W', op.microbatch, op.chunk, op.direction);
    case OpKind::ForwardBackward:
        return half(u'F', op.microbatch, op.chunk, op.direction) + u' '
            + half(u'B', op.microbatch2, op.chunk2, op.direction2);
    }
    return {};
}

QString GanttModel::formatTime(int track, double t, double resolution) const
{
    if (this->track(track).timeUnits == TimeAxis::Units::Unitless)
        return QString::number(t, 'g', 6);
    if (!(resolution > 0) || !std::isfinite(resolution))
        return style::seconds(t);
    const double a = std::abs(t);
    const double scale = a >= 1 || a == 0 ? 1 : (a >= 1e-3 ? 1e-3 : 1e-6);
    const QString unit
        = scale == 1 ? QStringLiteral(" s") : (scale == 1e-3 ? QStringLiteral(" ms") : QStringLiteral(" µs"));
    const int decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(resolution / scale) - 1e-9)), 0, 9);
    return QString::number(t / scale, 'f', decimals) + unit;
}

QString GanttModel::opDescription(OpRef ref, double resolution) const
{
    const TimedOp& o = op(ref);
    const int c = chunksPerRank(ref.track);
    const bool dirs = showsDirections(ref.track);
    auto part = [&](int mb, int chunk, int dir) {
        QString s = QStringLiteral("micro-batch ") + QString::number(mb);
        if (c > 1 && !dirs)
            s += QStringLiteral(", chunk ") + QString::number(chunk);
        if (dirs)
            s += dir == 0 ? QStringLiteral(", from rank 0 (↓)") : QStringLiteral(", from the last rank (↑)");
        return s;
    };
    QString text = QStringLiteral("rank ") + QString::number(o.rank) + QStringLiteral(": ")
        + QString::fromLatin1(core::longName(o.kind)) + QStringLiteral(" ") + opLabel(ref.track, o) + u'\n';
    if (o.kind == OpKind::ForwardBackward)
        text += QStringLiteral("forward: ") + part(o.microbatch, o.chunk, o.direction) + QStringLiteral("\nbackward: ")
            + part(o.microbatch2, o.chunk2, o.direction2) + u'\n';
    else
        text += part(o.microbatch, o.chunk, o.direction) + u'\n';
    text += QStringLiteral("start ") + formatTime(ref.track, o.start, resolution) + QStringLiteral(", end ")
        + formatTime(ref.track, o.end, resolution) + QStringLiteral(", duration ")
        + formatTime(ref.track, o.end - o.start, resolution);
    const TimeInterval wait = p2pWaitBefore(ref);
    if (wait.end > wait.start)
        text += QStringLiteral("\nwaited ") + formatTime(ref.track, wait.end - wait.start)
            + QStringLiteral(" for its input from another rank (p2p)");
    if (!track(ref.track).label.isEmpty())
        text += QStringLiteral("\nschedule: ") + track(ref.track).label;
    return text;
}

} // namespace parallax::render
