// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/schedule/PipelineSimulator.h"
#include "ui/render/TimeAxis.h"

#include <QString>
#include <optional>
#include <span>
#include <vector>

namespace parallax::render {

// One simulated schedule to draw: a stacked lane of the Gantt (compare mode stacks two or three).
struct GanttTrack {
    enum class InflightUnit {
        Chunks, // the simulator's weights are 1 per chunk (uniform-time runs)
        Bytes, // the engine's weights are activation bytes (Report::schedule)
    };

    QString label; // "1F1B", "interleaved 1F1B, v=2"
    core::SimulationResult result;
    // With the shape, idle gaps that wait on a transfer from another rank are told apart from
    // pipeline bubbles, and labels show chunks (v > 1) and DualPipe directions.
    std::optional<core::ScheduleShape> shape;
    InflightUnit inflightUnit = InflightUnit::Chunks;
    TimeAxis::Units timeUnits = TimeAxis::Units::Seconds;
    double peakMemoryBytes = -1; // the report's peak per-GPU memory, shown in the lane header when >= 0
};

struct OpRef {
    int track = -1;
    int op = -1; // index into GanttModel::ops(track)
    bool valid() const { return track >= 0 && op >= 0; }
    friend bool operator==(const OpRef&, const OpRef&) = default;
};

struct TimeInterval {
    double start = 0;
    double end = 0;
};

// The tracks prepared for painting, built once per report and then read-only (any number of
// painters may share it): ops sorted per rank for binary search, the p2p waits between them, and
// each rank's in-flight activations as a step function of time.
//
// In-flight activations are reconstructed from the ops: a chunk enters at its forward's start and
// leaves at the end of its backward (input part); an overlapped F&B pair adds and frees one chunk
// at its end, as the simulator counts it. The W-pending residue of split backwards is not shown.
// With InflightUnit::Bytes a chunk weighs peakInflightWeight / peakInflightChunks of its rank.
class GanttModel {
public:
    explicit GanttModel(std::vector<GanttTrack> tracks);

    int trackCount() const { return static_cast<int>(m_tracks.size()); }
    const GanttTrack& track(int t) const { return m_tracks[static_cast<std::size_t>(t)].input; }
    int rankCount(int t) const { return static_cast<int>(m_tracks[static_cast<std::size_t>(t)].rankBegin.size()) - 1; }
    int totalRows() const;
    std::size_t opCount() const;
    double endTime() const { return m_endTime; } // latest makespan over the tracks
    TimeAxis::Units timeUnits() const;

    // The ops of a track sorted by rank then start (a copy of result.ops); a rank's ops are
    // ops(t)[rankBegin(t, r) .. rankBegin(t, r + 1)).
    const std::vector<core::TimedOp>& ops(int t) const { return m_tracks[static_cast<std::size_t>(t)].ops; }
    int rankBegin(int t, int rank) const
    {
        return m_tracks[static_cast<std::size_t>(t)].rankBegin[static_cast<std::size_t>(rank)];
    }
    const core::TimedOp& op(OpRef ref) const { return ops(ref.track)[static_cast<std::size_t>(ref.op)]; }
    // First op of `rank` that ends after `t`, as an index into ops(track); rankBegin(rank + 1) if none.
    int firstOpEndingAfter(int track, int rank, double t) const;

    // Idle time spent waiting for an activation or gradient in transit from another rank (empty
    // without a shape), sorted.
    std::span<const TimeInterval> p2pWaits(int track, int rank) const;
    // The p2p wait right before op `ref`, or a zero-length interval.
    TimeInterval p2pWaitBefore(OpRef ref) const;

    double inflightAt(int track, int rank, double t) const; // in the track's unit
    double inflightPeak(int track, int rank) const;
    double inflightPeakOfTrack(int track) const;
    int inflightPeakRank(int track) const;

    bool hasKind(core::OpKind kind) const; // in any track (Backward and BackwardInput count as one)
    bool hasP2pWaits() const;
    bool hasExposedComm() const; // some op carries exposed communication
    bool splitsBackward() const; // some track has B (input) and W (weight) ops
    double shortestOp() const { return m_shortestOp; } // seconds (or units), over all tracks
    int chunksPerRank(int track) const; // 1 without a shape
    bool showsDirections(int track) const; // DualPipe

    // "F3", "B3", "W3", "F3 B5"; "F3c1" with v > 1 chunks; "F3↓" / "B5↑" for DualPipe's directions.
    QString opLabel(int track, const core::TimedOp& op) const;
    // Several lines: rank, kind, micro-batch, chunk, direction, start, end, duration, p2p wait.
    // `resolution` (model time units, e.g. the time of one pixel of the zoomed view): times carry
    // the digits that resolve it; 0: the default digits.
    QString opDescription(OpRef ref, double resolution = 0) const;
    QString formatTime(int track, double t, double resolution = 0) const; // seconds, or unit times

private:
    struct Step {
        double time;
        double value; // after `time`
    };
    struct Prepared {
        GanttTrack input;
        std::vector<core::TimedOp> ops;
        std::vector<int> rankBegin; // ranks + 1 offsets into ops
        std::vector<std::vector<TimeInterval>> p2pWaits; // per rank
        std::vector<std::vector<Step>> inflight; // per rank
        std::vector<double> inflightPeak; // per rank
    };

    void prepare(Prepared& p) const;
    void findP2pWaits(Prepared& p) const;
    void buildInflight(Prepared& p) const;

    std::vector<Prepared> m_tracks;
    double m_endTime = 1;
    double m_shortestOp = 0;
    unsigned m_kinds = 0; // bit per OpKind present
};

} // namespace parallax::render
