#pragma once

#include "core/schedule/PipelineSimulator.h"

namespace parallax::core {

// The cheap path: makespan and in-flight activations from the papers' closed forms, with per-rank
// op times, instead of the event simulation. Used by the search to score many configurations; the
// recommendation itself is re-ranked with the simulator.
SimulationResult closedFormSchedule(const SimulationInput& input);

// Micro-batch chunks in flight on `rank` at its peak under the schedule (arXiv:2104.04473 sec. 2.2;
// arXiv:2205.05198 sec. 4.2.3; arXiv:2401.10241 sec. 2.3; arXiv:2412.19437 Table 2).
int closedFormInflightChunks(const ScheduleShape& shape, int rank);

} // namespace parallax::core
