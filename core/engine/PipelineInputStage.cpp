// SPDX-License-Identifier: Apache-2.0
#include "core/engine/PipelineInputStage.h"

#include "core/costs/DataParallelSync.h"
#include "core/schedule/PipelineClosedForm.h"

#include <algorithm>

namespace parallax::core {

double busiestRankSendSeconds(const std::vector<std::vector<double>>& p2p)
{
    // The hops differ where the pipeline changes link (NVLink inside a domain, a leaf, the spine, a
    // rail change).
    const int pp = static_cast<int>(p2p.size());
    double worst = 0;
    for (int r = 0; r < pp; ++r)
        worst = std::max(worst, p2p[r][(r + 1) % pp] + p2p[r][(r + pp - 1) % pp]);
    return worst;
}

namespace {
ScheduleShape runShape(const ParallelConfig& par, int microbatches)
{
    ScheduleShape shape { par.schedule, par.pp, microbatches, par.vpp };
    if (par.pp == 1) {
        shape.kind = ScheduleKind::OneFOneB;
        shape.virtualStages = 1;
    }
    return shape;
}

// Op durations per (rank, chunk): the layers of its model stage plus the head on the last one.
void fillDurations(
    const Scenario& s, const LayerCostStageResult& costs, const EfficiencyDefaults& defaults, PipelineInputs& in)
{
    const ModelSpec& model = s.model;
    const int pp = s.parallel.pp;
    const int lastStage = in.layout.stages() - 1;
    const LayerCosts& lc = costs.layers;
    const HeadTimes& head = costs.head;
    SimulationInput& sim = in.simulation;
    // Row by row: no temporary row to copy from (an allocation each).
    sim.durations.resize(pp);
    sim.activationWeight.resize(pp);
    sim.wPendingWeight.resize(pp);
    for (int r = 0; r < pp; ++r) {
        sim.durations[r].assign(in.chunks, ChunkDurations {});
        sim.activationWeight[r].assign(in.chunks, 0.0);
        sim.wPendingWeight[r].assign(in.chunks, 0.0);
    }
    in.tpSecondsPerMb.assign(pp, 0);
    in.cpSecondsPerMb.assign(pp, 0);
    in.epSecondsPerMb.assign(pp, 0);
    in.backwardWorkingSet.assign(pp, 0);
    // What each layer adds to its stage's sums, per layer kind: the derived sums are the same every
    // layer (the same bits as computing them in the loop, once instead of per layer).
    struct LayerTerms {
        double forward, backwardInput, backwardWeight, computeF, computeB, commF, commB, tp, cp, ep;
        explicit LayerTerms(const LayerTimes& t)
            : forward(t.forward())
            , backwardInput(t.backwardInput())
            , backwardWeight(t.backwardWeight())
            , computeF(t.forwardCompute)
            , computeB(t.backwardInputCompute + t.recomputeCompute + t.backwardWeightCompute)
            , commF(t.tpForward + t.cpForward + t.epForward)
            , commB(t.tpBackward + t.cpBackward + t.epBackward)
            , tp(t.tpForward + t.tpBackward)
            , cp(t.cpForward + t.cpBackward)
            , ep(t.epForward + t.epBackward)
        {
        }
    };
    const LayerTerms denseTerms(lc.dense), moeTerms(lc.moe);
    for (int r = 0; r < pp; ++r) {
        // Sums in locals (the stores through the tables could alias them), added in the same order as
        // one table entry per layer would be: the same bits.
        double tp = 0, cp = 0, ep = 0, workingSet = 0;
        // The rank's MoE layers: their routed loads add up over independent routers
        // (storedRoutedLoadFactor), so one MoE layer stores less than at the per-layer busiest load.
        int moeLayers = 0;
        for (int c = 0; c < in.chunks && model.isMoe(); ++c) {
            const int stage = modelStageOf(in.shape, r, c);
            moeLayers += model.moeLayersIn(in.layout.firstLayer(stage), in.layout.endLayer(stage));
        }
        const double moeActivation = rankMoeLayerActivationBytes(
            lc.moeActivation, lc.moeRoutedActivation, costs.context.expertLoadImbalance, moeLayers);
        for (int c = 0; c < in.chunks; ++c) {
            const int stage = modelStageOf(in.shape, r, c);
            ChunkDurations& d = sim.durations[r][c];
            double forward = 0, backwardInput = 0, backwardWeight = 0;
            double computeF = 0, computeB = 0, commF = 0, commB = 0, activation = 0, wPending = 0;
            for (int l = in.layout.firstLayer(stage); l < in.layout.endLayer(stage); ++l) {
                const bool moe = model.isMoeLayer(l);
                const LayerTerms& t = moe ? moeTerms : denseTerms;
                forward += t.forward;
                backwardInput += t.backwardInput;
                backwardWeight += t.backwardWeight;
                computeF += t.computeF;
                computeB += t.computeB;
                commF += t.commF;
                commB += t.commB;
                tp += t.tp;
                cp += t.cp;
                ep += t.ep;
                activation += moe ? moeActivation : lc.denseActivation;
                wPending += in.splitBackward ? (moe ? lc.moeWPending : lc.denseWPending) : 0.0;
                // The layer being back-propagated materialises gradients as large as its activations
                // (and, under full recompute, its rebuilt activations): one layer's worth at a time.
                workingSet = std::max(workingSet, moe ? lc.moeActivationFull : lc.denseActivationFull);
            }
            d.forward = forward;
            d.backwardInput = backwardInput;
            d.backwardWeight = backwardWeight;
            sim.activationWeight[r][c] = activation;
            sim.wPendingWeight[r][c] = wPending;
            // Each MTP depth: its projection and a block like the last layer on the stage that holds it, and
            // another pass of the shared head with the loss (arXiv:2412.19437 sec. 2.2; Megatron-Core computes
            // the MTP losses in the loss stage, its blocks where the layout puts them, by default there too).
            const int blocks = in.layout.mtpLayersIn(stage, model.mtpLayers);
            const int headPasses = stage == lastStage ? model.mtpLayers : 0;
            if (stage == lastStage) {
                d.forward += head.forward;
                d.backwardInput += head.backwardInput;
                d.backwardWeight += head.backwardWeight;
                computeF += head.forward;
                computeB += head.backwardInput + head.backwardWeight;
            }
            const bool moeBlock = model.isMoeLayer(model.layers - 1);
            const LayerTerms& t = moeBlock ? moeTerms : denseTerms;
            const HeadTimes& proj = costs.mtpProjection;
            for (int depth = 0; depth < std::max(blocks, headPasses); ++depth) {
                const bool block = depth < blocks;
                const bool headPass = depth < headPasses;
                // Summed in the order of one expression per depth: the same bits as the default placement's.
                const auto add = [&](double& to, double blockPart, double projPart, double headPart) {
                    double v = block ? blockPart + projPart : 0.0;
                    v = headPass ? v + headPart : v;
                    to += v;
                };
                add(d.forward, t.forward, proj.forward, head.forward);
                add(d.backwardInput, t.backwardInput, proj.backwardInput, head.backwardInput);
                add(d.backwardWeight, t.backwardWeight, proj.backwardWeight, head.backwardWeight);
                add(computeF, t.computeF, proj.forward, head.forward);
                double b = block ? t.computeB + proj.backwardInput + proj.backwardWeight : 0.0;
                b = headPass ? b + head.backwardInput + head.backwardWeight : b;
                computeB += b;
                if (!block)
                    continue;
                commF += t.commF;
                commB += t.commB;
                tp += t.tp;
                cp += t.cp;
                ep += t.ep;
                // The module's own router: one MoE layer at the busiest per-layer load (as the scorer).
                sim.activationWeight[r][c] += moeBlock ? lc.moeActivation : lc.denseActivation;
                sim.wPendingWeight[r][c] += in.splitBackward ? (moeBlock ? lc.moeWPending : lc.denseWPending) : 0.0;
            }
            // DualPipe pairs a forward and a backward chunk and hides the all-to-all and PP traffic of
            // one behind the compute of the other (arXiv:2412.19437 sec. 3.2.1, Figure 4).
            d.overlapExposedComm
                = exposedAfterOverlap(commF + commB, (computeF + computeB) * defaults.dualPipeCommHidden);
            d.forwardBackward = computeF + computeB + d.overlapExposedComm;
            d.forwardComm = commF;
            d.backwardComm = commB;
        }
        in.tpSecondsPerMb[r] = tp;
        in.cpSecondsPerMb[r] = cp;
        in.epSecondsPerMb[r] = ep;
        in.backwardWorkingSet[r] = workingSet;
    }
}

// Point-to-point seconds between pipeline ranks over the GPUs of the first pipeline group; with
// blocking sends, folded into the op durations instead.
void fillP2p(const Scenario& s, const LayerCostStageResult& costs, const EfficiencyDefaults& defaults,
    const RankMap& map, const DomainShape& domains, PipelineInputs& in, Report& report)
{
    const ParallelConfig& par = s.parallel;
    const ActivationContext& ctx = costs.context;
    SimulationInput& sim = in.simulation;
    const double p2pBytes = 2.0 * ctx.seqLen / ctx.cp * ctx.microBatch * s.model.hidden / (ctx.sp ? ctx.tp : 1);
    if (par.pp <= 1)
        sim.p2pSeconds.clear(); // free p2p
    if (par.pp > 1) {
        sim.p2pSeconds.resize(par.pp);
        for (std::vector<double>& row : sim.p2pSeconds)
            row.assign(par.pp, 0.0);
        // Between alike domains a link depends only on the two GPUs' positions inside their domains
        // (and whether they share one): one route per distinct case.
        struct Seen {
            int fromIndex, toIndex;
            bool sameDomain;
            double seconds;
        };
        thread_local std::vector<Seen> seen;
        seen.clear();
        const int domainSize = domains.alike ? domains.domainSize : 0;
        thread_local std::vector<int> gpuOf; // the GPU of each pipeline rank of the first pipeline group
        gpuOf.resize(par.pp);
        for (int a = 0; a < par.pp; ++a)
            gpuOf[a] = map.member(Dim::Pp, 0, a);
        // Every schedule sends between ring neighbours only (stage s - 1 sits on rank r - 1 or r + 1 mod pp,
        // or on r itself at a V's turn): only those entries are filled, the others stay 0.
        for (int a = 0; a < par.pp; ++a) {
            for (const int b : { (a + 1) % par.pp, (a + par.pp - 1) % par.pp }) {
                if (a == b || sim.p2pSeconds[a][b] > 0)
                    continue;
                const int ga = gpuOf[a], gb = gpuOf[b];
                const Seen key { domainSize ? ga % domainSize : -1, domainSize ? gb % domainSize : -1,
                    domainSize ? ga / domainSize == gb / domainSize : false, 0 };
                const auto it = std::find_if(seen.begin(), seen.end(), [&](const Seen& k) {
                    return k.fromIndex == key.fromIndex && k.toIndex == key.toIndex && k.sameDomain == key.sameDomain;
                });
                if (domainSize && it != seen.end()) {
                    sim.p2pSeconds[a][b] = it->seconds;
                    continue;
                }
                const LinkLevel link = s.topology.p2pLink(ga, gb);
                sim.p2pSeconds[a][b]
                    = pipelineSendSeconds(p2pBytes, link.latencySeconds, link.bytesPerSecond, defaults);
                if (domainSize)
                    seen.push_back({ key.fromIndex, key.toIndex, key.sameDomain, sim.p2pSeconds[a][b] });
            }
        }
    }
    if (par.pp > 1 && !par.p2pOverlap) {
        // Blocking sends: each forward waits for its output to reach the next rank, each backward for
        // its gradient to reach the previous one; nothing is left in flight between ops.
        for (int r = 0; r < par.pp; ++r) {
            for (int c = 0; c < in.chunks; ++c) {
                sim.durations[r][c].forward += sim.p2pSeconds[r][(r + 1) % par.pp];
                sim.durations[r][c].backwardInput += sim.p2pSeconds[r][(r + par.pp - 1) % par.pp];
            }
        }
        report.comm.ppSeconds = report.microbatches * in.chunks * busiestRankSendSeconds(sim.p2pSeconds);
        for (std::vector<double>& row : sim.p2pSeconds)
            std::fill(row.begin(), row.end(), 0.0);
    }
}
} // namespace

void pipelineInputStage(const Scenario& scenario, const LayoutStageResult& layout, const LayerCostStageResult& costs,
    const EfficiencyDefaults& defaults, Report& report, PipelineInputs& in)
{
    const ScheduleShape shape = runShape(scenario.parallel, report.microbatches);
    in.shape = shape;
    in.chunks = chunksPerRank(shape);
    in.layout.assign(scenario.model.layers, shape, scenario.parallel);
    in.splitBackward = scheduleSplitsBackward(shape.kind);
    in.simulation.shape = shape;
    // Every table below is overwritten row by row; a reused `in` only lends its capacity.
    fillDurations(scenario, costs, defaults, in);
    fillP2p(scenario, costs, defaults, report.rankMap, layout.domains, in, report);
}

} // namespace parallax::core
