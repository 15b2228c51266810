// SPDX-License-Identifier: Apache-2.0
#include "core/engine/LayerCostStage.h"

#include "core/calibration/Calibration.h"
#include "core/costs/LayerContext.h"
#include "core/costs/MoeCosts.h"
#include "core/model/LayerShape.h"

#include <algorithm>

namespace parallax::core {

namespace {
LayerCosts computeLayerCosts(const ModelSpec& m, const ActivationContext& ctx, const ComputeRates& rates,
    const LayerCommGroups& groups, const EfficiencyDefaults& defaults, bool epCommOverlap)
{
    LayerCosts lc;
    auto fill = [&](int layer, LayerTimes& t, double& act, double& full, double& wp) {
        const LayerShape shape = layerShape(m, layer);
        t = layerTimes(m, shape, ctx, rates, groups, defaults, epCommOverlap);
        act = layerActivationBytes(m, shape, ctx);
        full = layerActivationBytesWithoutRecompute(m, shape, ctx);
        wp = layerWPendingBytes(m, shape, ctx);
    };
    const int firstMoe = m.isMoe() ? m.firstMoeLayer() : -1;
    if (m.hasDenseLayer())
        fill(m.firstDenseLayer(), lc.dense, lc.denseActivation, lc.denseActivationFull, lc.denseWPending);
    if (firstMoe >= 0) {
        fill(firstMoe, lc.moe, lc.moeActivation, lc.moeActivationFull, lc.moeWPending);
        lc.moeRoutedActivation = routedActivationBytes(m, layerShape(m, firstMoe), ctx);
    }
    return lc;
}
} // namespace

LayerCostStageResult layerCostStage(const Scenario& scenario, const TopologySummary& topology,
    const EvaluateOptions& options, const LayoutStageResult& layout, const EfficiencyDefaults& defaults, Report& report)
{
    // The slowest GPU type in the cluster sets the pace (mixed topologies); the smallest HBM bounds memory.
    const GpuSpec& gpu = scenario.topology.domains[topology.slowestDomain].gpu;
    report.hbmBytes = topology.minHbmBytes;
    LayerCostStageResult out { gpu, ComputeRates(gpu, scenario.training.dtype, options.calibration, defaults),
        activationContextAt(scenario, report.seqLen, layerDegreesOf(scenario), defaults), {}, {}, {} };
    setDispatch(out.context, scenario.training, scenario.parallel, gpu.smCount);
    report.peakFlopsPerSecond = out.rates.peakFlopsPerSecond();
    if (out.rates.gemmCalibrated())
        report.calibrated.push_back("GEMM throughput (" + options.calibration->path + ")");
    if (options.calibration && options.calibration->hbmBytesPerSecond)
        report.calibrated.emplace_back("HBM bandwidth");
    if (options.calibration && options.calibration->attentionFlopsPerSecond)
        report.calibrated.emplace_back("attention throughput");
    if (layout.commCalibrated)
        report.calibrated.emplace_back("intra-domain collective bus bandwidth");

    const EngineCommGroups& comm = layout.comm;
    out.layers = computeLayerCosts(scenario.model, out.context, out.rates, { comm.tp, comm.cp, comm.ep }, defaults,
        scenario.parallel.epCommOverlap);
    out.head = lmHeadTimes(scenario.model, out.context, out.rates, comm.tp);
    out.mtpProjection = mtpProjectionTimes(scenario.model, out.context, out.rates);
    return out;
}

} // namespace parallax::core
