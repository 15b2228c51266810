// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Engine.h"
#include "core/cluster/CommGroups.h"
#include "core/cluster/GroupGeometry.h"
#include "core/cluster/TopologySummary.h"

namespace parallax::core {

struct LayoutStageResult {
    DomainShape domains; // whether the domains are alike (rank arithmetic stands for every group)
    EngineCommGroups comm; // the communicators the cost model uses
    bool commCalibrated = false; // the intra-domain bus bandwidth came from a calibration
};

// Stage 2: the rank map (closed form: nothing is built per rank or per group), how many groups of
// each dimension leave their NVLink domain, leaf fabric or rail, and the communicators.
// Writes report.rankMap, groupsCrossingDomains, groupsCrossingFabrics and groupsCrossingRails.
LayoutStageResult layoutStage(
    const Scenario& scenario, const TopologySummary& topology, const EvaluateOptions& options, Report& report);

} // namespace parallax::core
