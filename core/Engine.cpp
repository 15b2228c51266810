// SPDX-License-Identifier: Apache-2.0
#include "core/Engine.h"

#include "core/Limits.h"
#include "core/Units.h"
#include "core/Validation.h"
#include "core/calibration/Calibration.h"
#include "core/cluster/CommGroups.h"
#include "core/cluster/FabricPath.h"
#include "core/costs/CostModel.h"
#include "core/costs/DataParallelSync.h"
#include "core/costs/StepOverheads.h"
#include "core/inference/InferenceEngine.h"
#include "core/memory/MemoryModel.h"
#include "core/memory/PredictionBands.h"
#include "core/model/ModelMath.h"
#include "core/parallel/StageLayout.h"
#include "core/schedule/PipelineClosedForm.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace parallax::core {

namespace {
// What can bring a stage under its HBM, given the configuration: ZeRO shards over the
// data-parallel group (arXiv:1910.02054 sec. 5), so it is offered only where that group has ranks.
std::string memoryFixes(const Scenario& s)
{
    const ParallelConfig& p = s.parallel;
    std::vector<std::string> fixes;
    if (s.training.recompute == Recompute::None)
        fixes.push_back("selective or full recompute");
    else if (s.training.recompute == Recompute::Selective)
        fixes.push_back("full recompute");
    if (p.zero < 3 && p.dp * p.cp > 1)
        fixes.push_back("ZeRO stage " + std::to_string(p.zero + 1));
    fixes.push_back("more pp or tp");
    std::string text = "try ";
    for (std::size_t i = 0; i < fixes.size(); ++i)
        text += (i == 0 ? "" : (i + 1 == fixes.size() ? " or " : ", ")) + fixes[i];
    if (p.dp * p.cp == 1 && p.zero < 3)
        text += "; ZeRO has no effect at dp=1: free GPUs for dp>1 to shard the optimizer";
    return text;
}

std::string fixed(double v, int digits)
{
    std::ostringstream out;
    out.setf(std::ios::fixed);
    out.precision(digits);
    out << v;
    return out.str();
}

std::string domainSpan(const Topology& t, const ParallelGroup& g)
{
    const std::string& a = t.domains[g.firstDomain].name;
    const std::string& b = t.domains[g.lastDomain].name;
    return a == b ? a : a + " .. " + b;
}

// Per-layer times and activation sizes, computed once per distinct layer kind (dense / MoE).
struct LayerCosts {
    LayerTimes dense, moe;
    double denseActivation = 0, moeActivation = 0;
    double denseActivationFull = 0, moeActivationFull = 0;
    double denseWPending = 0, moeWPending = 0;
    const LayerTimes& times(const ModelSpec& m, int layer) const { return m.isMoeLayer(layer) ? moe : dense; }
};

// Per micro-batch and chunk, the pipeline rank whose forward send (to the next rank) plus backward
// send (to the previous one) takes longest: the hops differ where the pipeline changes link (NVLink
// inside a domain, a leaf, the spine, a rail change).
double busiestRankSendSeconds(const std::vector<std::vector<double>>& p2p)
{
    const int pp = static_cast<int>(p2p.size());
    double worst = 0;
    for (int r = 0; r < pp; ++r)
        worst = std::max(worst, p2p[r][(r + 1) % pp] + p2p[r][(r + pp - 1) % pp]);
    return worst;
}

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
    const int firstDense = 0;
    const int firstMoe = m.isMoe() ? m.moe->firstDenseLayers : -1;
    if (!m.isMoe() || m.moe->firstDenseLayers > 0)
        fill(firstDense, lc.dense, lc.denseActivation, lc.denseActivationFull, lc.denseWPending);
    if (firstMoe >= 0)
        fill(firstMoe, lc.moe, lc.moeActivation, lc.moeActivationFull, lc.moeWPending);
    return lc;
}

} // namespace

Report evaluate(const Scenario& scenario, const EvaluateOptions& options)
{
    if (scenario.mode == ScenarioMode::Inference)
        return evaluateInference(scenario, options);
    Report report;
    const ModelSpec& model = scenario.model;
    const ParallelConfig& par = scenario.parallel;
    const TrainingConfig& train = scenario.training;
    const Topology& topo = scenario.topology;
    const EfficiencyDefaults defaults;

    report.paramsTotal = totalParameters(model);
    report.paramsActive = activeParameters(model);
    report.gpus = topo.gpuCount();
    report.seqLen = scenario.seqLen();

    ValidationResult v = validateScenario(scenario);
    report.errors = std::move(v.errors);
    report.notes = std::move(v.notes);
    report.microbatches = microbatchesPerStep(par, train);
    if (!report.errors.empty())
        return report;
    report.valid = true;

    // Rank map and communicators.
    report.rankMap = RankMap::build(par, &topo);
    const RankMap& map = report.rankMap;
    for (int d = 0; d < kDimCount; ++d) {
        report.groupsCrossingDomains[d] = map.groupsCrossingDomains(static_cast<Dim>(d));
        for (const ParallelGroup& g : map.groups(static_cast<Dim>(d))) {
            if (!g.crossesDomain)
                continue;
            const GroupRoute route
                = static_cast<Dim>(d) == Dim::Pp ? chainRoute(topo, g.ranks) : groupRoute(topo, g.ranks);
            report.groupsCrossingFabrics[d] += route.crossesFabric;
            report.groupsCrossingRails[d] += route.crossesRail;
        }
    }
    bool commCalibrated = false;
    const EngineCommGroups comm = buildCommGroups(par, topo, map, options.calibration, commCalibrated);

    // The slowest GPU type in the cluster sets the pace (mixed topologies).
    GpuSpec gpu = topo.domains.front().gpu;
    report.hbmBytes = gpu.hbmBytes;
    for (const auto& d : topo.domains) {
        if (d.gpu.bf16FlopsPerSecond < gpu.bf16FlopsPerSecond)
            gpu = d.gpu;
        report.hbmBytes = std::min(report.hbmBytes, d.gpu.hbmBytes);
    }
    const ComputeRates rates(gpu, train.dtype, options.calibration, defaults);
    report.peakFlopsPerSecond = rates.peakFlopsPerSecond();
    if (rates.gemmCalibrated())
        report.calibrated.push_back("GEMM throughput (" + options.calibration->path + ")");
    if (options.calibration && options.calibration->hbmBytesPerSecond)
        report.calibrated.emplace_back("HBM bandwidth");
    if (options.calibration && options.calibration->attentionFlopsPerSecond)
        report.calibrated.emplace_back("attention throughput");
    if (commCalibrated)
        report.calibrated.emplace_back("intra-domain collective bus bandwidth");

    ActivationContext ctx;
    ctx.seqLen = report.seqLen;
    ctx.microBatch = train.microBatch;
    ctx.tp = par.tp;
    ctx.sp = par.sp && par.tp > 1;
    ctx.cp = par.cp;
    ctx.etp = par.etp;
    ctx.recompute = train.recompute;
    ctx.expertLoadImbalance = model.isMoe() ? defaults.expertLoadImbalance : 1.0;
    ctx.flashAttention = train.flashAttention;
    ctx.tpCommOverlap = par.tpCommOverlap && par.tp > 1;
    ctx.fp8 = train.dtype == DType::Fp8;
    const LayerCosts costs
        = computeLayerCosts(model, ctx, rates, { comm.tp, comm.cp, comm.ep }, defaults, par.epCommOverlap);
    const HeadTimes head = lmHeadTimes(model, ctx, rates, comm.tp);

    // Pipeline shape and layer placement.
    ScheduleShape shape { par.schedule, par.pp, report.microbatches, par.vpp };
    if (par.pp == 1) {
        shape.kind = ScheduleKind::OneFOneB;
        shape.virtualStages = 1;
    }
    const int chunks = chunksPerRank(shape);
    const StageLayout layout = StageLayout::of(model.layers, shape, par);
    const int lastStage = layout.stages() - 1;
    const bool split = scheduleSplitsBackward(shape.kind);

    SimulationInput sim;
    sim.shape = shape;
    sim.durations.assign(par.pp, std::vector<ChunkDurations>(chunks));
    sim.activationWeight.assign(par.pp, std::vector<double>(chunks, 0));
    sim.wPendingWeight.assign(par.pp, std::vector<double>(chunks, 0));
    std::vector<double> tpSecondsPerMb(par.pp, 0), cpSecondsPerMb(par.pp, 0), epSecondsPerMb(par.pp, 0);
    std::vector<double> backwardWorkingSet(par.pp, 0);
    for (int r = 0; r < par.pp; ++r) {
        for (int c = 0; c < chunks; ++c) {
            const int stage = modelStageOf(shape, r, c);
            ChunkDurations& d = sim.durations[r][c];
            d.forward = d.backwardInput = d.backwardWeight = 0;
            double computeF = 0, computeB = 0, commF = 0, commB = 0;
            for (int l = layout.firstLayer(stage); l < layout.endLayer(stage); ++l) {
                const LayerTimes& t = costs.times(model, l);
                d.forward += t.forward();
                d.backwardInput += t.backwardInput();
                d.backwardWeight += t.backwardWeight();
                computeF += t.forwardCompute;
                computeB += t.backwardInputCompute + t.recomputeCompute + t.backwardWeightCompute;
                commF += t.tpForward + t.cpForward + t.epForward;
                commB += t.tpBackward + t.cpBackward + t.epBackward;
                tpSecondsPerMb[r] += t.tpForward + t.tpBackward;
                cpSecondsPerMb[r] += t.cpForward + t.cpBackward;
                epSecondsPerMb[r] += t.epForward + t.epBackward;
                const bool moe = model.isMoeLayer(l);
                sim.activationWeight[r][c] += moe ? costs.moeActivation : costs.denseActivation;
                sim.wPendingWeight[r][c] += split ? (moe ? costs.moeWPending : costs.denseWPending) : 0.0;
                // The layer being back-propagated materialises gradients as large as its activations
                // (and, under full recompute, its rebuilt activations): one layer's worth at a time.
                backwardWorkingSet[r]
                    = std::max(backwardWorkingSet[r], moe ? costs.moeActivationFull : costs.denseActivationFull);
            }
            if (stage == lastStage) {
                d.forward += head.forward;
                d.backwardInput += head.backwardInput;
                d.backwardWeight += head.backwardWeight;
                computeF += head.forward;
                computeB += head.backwardInput + head.backwardWeight;
            }
            // DualPipe pairs a forward and a backward chunk and hides the all-to-all and PP traffic of
            // one behind the compute of the other (arXiv:2412.19437 sec. 3.2.1, Figure 4).
            d.overlapExposedComm
                = exposedAfterOverlap(commF + commB, (computeF + computeB) * defaults.dualPipeCommHidden);
            d.forwardBackward = computeF + computeB + d.overlapExposedComm;
            d.forwardComm = commF;
            d.backwardComm = commB;
        }
    }

    // Point-to-point time between pipeline ranks over the GPUs of the first pipeline group.
    const double p2pBytes = 2.0 * ctx.seqLen / ctx.cp * ctx.microBatch * model.hidden / (ctx.sp ? ctx.tp : 1);
    if (par.pp > 1) {
        sim.p2pSeconds.assign(par.pp, std::vector<double>(par.pp, 0));
        const auto& ppGroup = map.groups(Dim::Pp).front().ranks;
        for (int a = 0; a < par.pp; ++a) {
            for (int b = 0; b < par.pp; ++b) {
                if (a != b)
                    sim.p2pSeconds[a][b] = pipelineSendSeconds(p2pBytes, topo.p2pLatencySeconds(ppGroup[a], ppGroup[b]),
                        topo.p2pBytesPerSecond(ppGroup[a], ppGroup[b]), defaults);
            }
        }
    }

    if (par.pp > 1 && !par.p2pOverlap) {
        // Blocking sends: each forward waits for its output to reach the next rank, each backward for
        // its gradient to reach the previous one; nothing is left in flight between ops.
        for (int r = 0; r < par.pp; ++r) {
            for (int c = 0; c < chunks; ++c) {
                sim.durations[r][c].forward += sim.p2pSeconds[r][(r + 1) % par.pp];
                sim.durations[r][c].backwardInput += sim.p2pSeconds[r][(r + par.pp - 1) % par.pp];
            }
        }
        report.comm.ppSeconds = report.microbatches * chunks * busiestRankSendSeconds(sim.p2pSeconds);
        sim.p2pSeconds.assign(par.pp, std::vector<double>(par.pp, 0));
    }

    const long long opCount = static_cast<long long>(par.pp) * report.microbatches * chunks * (split ? 3 : 2);
    const bool simulateIt = options.simulateSchedule && opCount <= kMaxSimulatedOps;
    if (options.simulateSchedule && !simulateIt)
        report.notes.push_back({ "parallel.pp",
            "the schedule has " + std::to_string(opCount)
                + " ops: bubble and in-flight memory use the closed forms instead of the simulation" });
    report.schedule = simulateIt ? simulate(sim) : closedFormSchedule(sim);
    if (report.schedule.deadlock) {
        report.errors.push_back(
            { "parallel.schedule", "the schedule could not complete (internal error): choose another schedule" });
        report.valid = false;
        return report;
    }
    if (!options.keepTimeline)
        report.schedule.ops.clear();
    report.bubbleFraction = report.schedule.bubbleFraction;

    // Memory per pipeline rank.
    MemoryInputs mem { model, par, train, shape, layout, report.schedule, sim, backwardWorkingSet, ctx };
    report.stages = memoryPerStage(mem);
    const ErrorBand memBand = memoryBand();
    for (auto& st : report.stages) {
        const double allocated = st.totalBytes() - st.runtimeBytes;
        st.lowBytes = st.runtimeBytes + memBand.low(allocated);
        st.highBytes = st.runtimeBytes + memBand.high(allocated);
        report.peakMemoryLowBytes = std::max(report.peakMemoryLowBytes, st.lowBytes);
        report.peakMemoryHighBytes = std::max(report.peakMemoryHighBytes, st.highBytes);
        if (st.totalBytes() > report.peakMemoryBytes) {
            report.peakMemoryBytes = st.totalBytes();
            report.peakMemoryStage = st.stage;
        }
    }
    report.memoryVerdict = memoryVerdict(report.peakMemoryLowBytes, report.peakMemoryHighBytes, report.hbmBytes);
    report.fits = report.memoryVerdict != MemoryVerdict::DoesNotFit;

    // Data-parallel gradient sync and optimizer step, per pipeline rank; the slowest rank decides.
    double dpExposed = 0, dpTotal = 0, optimizer = 0;
    for (int r = 0; r < par.pp; ++r) {
        const StageMemory& st = report.stages[r];
        double fwd = 0, bwd = 0;
        for (int c = 0; c < chunks; ++c) {
            fwd += sim.durations[r][c].forward;
            bwd += sim.durations[r][c].backward();
        }
        // Without --overlap-grad-reduce / --overlap-param-gather the collectives run after the backward.
        const DpSyncTimes dp
            = dpSyncSeconds(mem, r, comm.dp, comm.edp, par.dpOverlap ? fwd : 0.0, par.dpOverlap ? bwd : 0.0);
        dpExposed = std::max(dpExposed, dp.exposedSeconds);
        dpTotal = std::max(dpTotal, dp.totalSeconds);
        // Optimizer step and the fixed per-step work around it (core/costs/StepOverheads).
        StepOverheadInputs fixed;
        fixed.optimizerShardParams = st.optimizerBytes / kOptimizerBytesPerParam;
        fixed.gradBufferBytes = st.gradsBytes;
        fixed.microbatches = report.microbatches;
        fixed.tokensPerMicrobatch = ctx.seqLen / ctx.cp * ctx.microBatch;
        fixed.tp = comm.tp;
        fixed.dp = comm.dp;
        optimizer = std::max(optimizer, stepOverheads(fixed, rates).total());
    }

    report.step.pipelineSeconds = report.schedule.makespan;
    report.step.dpExposedSeconds = dpExposed;
    report.step.optimizerSeconds = optimizer;
    report.step.stepSeconds = report.schedule.makespan + dpExposed + optimizer;
    double busiest = 0;
    for (double b : report.schedule.busySecondsPerRank)
        busiest = std::max(busiest, b);
    report.step.computeSeconds = busiest;
    report.step.bubbleSeconds = report.schedule.makespan * report.bubbleFraction;
    report.stepTimeSeconds = report.step.stepSeconds;
    const StepTimeBand timeBand = stepTimeBand(gpu.id.empty() ? gpu.name : gpu.id, model.isMoe());
    report.stepTimeLowSeconds = timeBand.band.low(report.stepTimeSeconds);
    report.stepTimeHighSeconds = timeBand.band.high(report.stepTimeSeconds);
    report.stepTimeFamily = timeBand.family;

    const int worst = report.peakMemoryStage;
    const double m = report.microbatches;
    report.comm.tpSeconds = m * tpSecondsPerMb[worst];
    report.comm.cpSeconds = m * cpSecondsPerMb[worst];
    report.comm.epSeconds = m * epSecondsPerMb[worst];
    if (par.p2pOverlap)
        report.comm.ppSeconds = par.pp > 1 ? m * chunks * busiestRankSendSeconds(sim.p2pSeconds) : 0.0;
    report.comm.dpSeconds = dpExposed;
    report.comm.dpTotalSeconds = dpTotal;

    // FLOPs (arXiv:2205.05198 eqs. 7-8): model FLOPs are 3x the forward; hardware FLOPs add the
    // recomputed forward work.
    const double tokensPerStep = static_cast<double>(train.globalBatch) * report.seqLen;
    const double forwardPerToken = forwardFlopsPerToken(model, report.seqLen);
    report.modelFlopsPerStep = 3.0 * forwardPerToken * tokensPerStep;
    double recomputePerToken = 0;
    for (int l = 0; l < model.layers; ++l) {
        const double layerFlops = layerForwardFlopsPerToken(model, l, report.seqLen);
        const LayerShape s = layerShape(model, l);
        const double scores = 2.0 * report.seqLen * s.heads * (s.qkHeadDim + s.vHeadDim);
        // Hardware FLOPs are the work the kernels of the time model run, so that HFU stays below the
        // peak: a fused kernel has no separate selective recompute (the cost model charges none); its
        // backward re-forms P = softmax(QK^T) over the causal half, a quarter of `scores`
        // (arXiv:2307.08691 Algorithm 2), charged inside its 2.5x backward.
        const double fusedOwn = train.flashAttention ? 0.25 * scores : 0.0;
        recomputePerToken += fusedOwn
            + (train.recompute == Recompute::Full                                      ? layerFlops
                    : train.recompute == Recompute::Selective && !train.flashAttention ? scores
                                                                                       : 0.0);
    }
    report.hardwareFlopsPerStep = report.modelFlopsPerStep + recomputePerToken * tokensPerStep;
    const double step = report.stepTimeSeconds;
    if (step > 0 && report.gpus > 0) {
        report.tflopsPerGpu = report.modelFlopsPerStep / step / report.gpus / kTera;
        report.mfu = report.modelFlopsPerStep / step / report.gpus / report.peakFlopsPerSecond;
        report.hfu = report.hardwareFlopsPerStep / step / report.gpus / report.peakFlopsPerSecond;
        report.tokensPerSecond = tokensPerStep / step;
    }

    // Warnings: communicators that leave their NVLink domain, memory over capacity.
    const auto& tpGroups = map.groups(Dim::Tp);
    int listed = 0;
    for (const auto& g : tpGroups) {
        if (!g.crossesDomain)
            continue;
        if (listed++ == 2) {
            report.warnings.push_back({ "parallel.tp",
                "... and " + std::to_string(report.groupsCrossingDomains[0] - 2)
                    + " more TP groups cross NVLink domains" });
            break;
        }
        CommGroup nvlinkOnly = comm.tp;
        nvlinkOnly.outer = 1;
        nvlinkOnly.inner = nvlinkOnly.size;
        const double bytes = 2.0 * ctx.seqLen / ctx.cp * ctx.microBatch * model.hidden;
        const double ib = comm.tp.seconds(CollectiveKind::AllReduce, bytes) * 4;
        const double nv = nvlinkOnly.seconds(CollectiveKind::AllReduce, bytes) * 4;
        report.warnings.push_back({ "parallel.tp",
            "TP group " + std::to_string(g.index) + " spans " + domainSpan(topo, g) + ": its all-reduces run over IB ("
                + fixed(ib * 1e3, 2) + " ms per layer and micro-batch against " + fixed(nv * 1e3, 2)
                + " ms on NVLink); keep tp within one NVLink domain" });
    }
    if (report.groupsCrossingDomains[static_cast<int>(Dim::Cp)] > 0)
        report.warnings.push_back({ "parallel.cp",
            std::to_string(report.groupsCrossingDomains[static_cast<int>(Dim::Cp)])
                + " CP groups cross NVLink domains: ring attention runs over IB" });
    if (model.isMoe() && report.groupsCrossingDomains[static_cast<int>(Dim::Ep)] > 0)
        report.notes.push_back({ "parallel.ep",
            "EP groups span " + std::to_string(comm.ep.outer) + " NVLink domains: the all-to-all runs over IB ("
                + fixed(report.comm.epSeconds * 1e3, 1) + " ms per step on the busiest rank)" });
    const StageMemory& peak = report.stages[report.peakMemoryStage];
    const std::string peakText = "pipeline stage " + std::to_string(peak.stage) + " needs "
        + fixed(peak.totalBytes() / kGiB, 1) + " GiB (" + fixed(peak.lowBytes / kGiB, 1) + "-"
        + fixed(peak.highBytes / kGiB, 1) + ")";
    if (report.memoryVerdict == MemoryVerdict::DoesNotFit) {
        report.warnings.push_back({ "memory",
            peakText + " > " + fixed(report.hbmBytes / kGiB, 1) + " GiB of HBM: out of memory by "
                + fixed((peak.totalBytes() - report.hbmBytes) / kGiB, 1)
                + " GiB even at the low end of the model's error (" + memoryFixes(scenario) + ")" });
    } else if (report.memoryVerdict == MemoryVerdict::Tight) {
        report.warnings.push_back({ "memory",
            peakText + " against " + fixed(report.hbmBytes / kGiB, 1)
                + " GiB of HBM: tight, the range of the memory model's measured error straddles HBM (it may run; for "
                  "margin, "
                + memoryFixes(scenario) + ")" });
    }
    if (!timeBand.measured)
        report.notes.push_back({ "step_time", "step-time range: " + timeBand.family + "; the widest band is used" });
    return report;
}

} // namespace parallax::core
