// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/schedule/PipelineSimulator.h"

namespace parallax::core {

// The cheap path: makespan and in-flight activations from the papers' closed forms, with per-rank
// op times, instead of the event simulation. Used by the search to score many configurations; the
// recommendation itself is re-ranked with the simulator.
SimulationResult closedFormSchedule(const SimulationInput& input);

// Per-op times of one stage the closed forms need (seconds): `slowest` is the busiest rank's work
// for one micro-batch through all its `chunks`; f, b, w a chunk's forward, input-gradient and
// weight-gradient times; fb an overlapped F&B pair (DualPipe); p2p one pipeline send.
struct ClosedFormTimes {
    double slowest = 0;
    double chunks = 1;
    double f = 0, b = 0, w = 0, fb = 0;
    double p2p = 0;
};
// Pipeline bubble in seconds over the m * slowest of steady work: arXiv:2104.04473 sec. 2.2,
// arXiv:2401.10241 Table 2, arXiv:2412.19437 Table 2.
double closedFormBubbleSeconds(ScheduleKind kind, int ranks, int virtualStages, const ClosedFormTimes& t);

// Micro-batch chunks in flight on `rank` at its peak under the schedule (arXiv:2104.04473 sec. 2.2;
// arXiv:2205.05198 sec. 4.2.3; arXiv:2401.10241 sec. 2.3; arXiv:2412.19437 Table 2).
int closedFormInflightChunks(const ScheduleShape& shape, int rank);

} // namespace parallax::core
