// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Engine.h"
#include "core/cluster/TopologySummary.h"

namespace parallax::core {

// evaluate() with the topology's summary computed once by the caller: a search evaluates many
// layouts on one topology, and TopologySummary::of() is a pass over every domain (65,536 of them for
// an explicit single-GPU topology). A summary that does not describe scenario.topology
// (TopologySummary::describes()) is not used: the topology is summarised afresh, as evaluate() does.
Report evaluate(const Scenario& scenario, const EvaluateOptions& options, const TopologySummary& topology);

} // namespace parallax::core
