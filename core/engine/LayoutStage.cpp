// SPDX-License-Identifier: Apache-2.0
#include "core/engine/LayoutStage.h"

namespace parallax::core {

LayoutStageResult layoutStage(
    const Scenario& scenario, const TopologySummary& topology, const EvaluateOptions& options, Report& report)
{
    const Topology& topo = scenario.topology;
    LayoutStageResult out;
    out.domains = topology.shape;
    report.rankMap = RankMap::build(scenario.parallel, &topo, topology.domainCounts);
    const RankMap& map = report.rankMap;
    for (int d = 0; d < kDimCount; ++d) {
        const Dim dim = static_cast<Dim>(d);
        report.groupsCrossingDomains[d] = map.groupsCrossingDomains(dim);
        const GroupCrossings crossings = groupCrossings(topo, out.domains, map, dim);
        report.groupsCrossingFabrics[d] = crossings.fabrics;
        report.groupsCrossingRails[d] = crossings.rails;
    }
    out.comm = buildCommGroups(scenario.parallel, topo, out.domains, map, options.calibration, out.commCalibrated);
    return out;
}

} // namespace parallax::core
