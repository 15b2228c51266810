// SPDX-License-Identifier: Apache-2.0
#include "core/search/ClosedFormScorer.h"

#include "core/costs/DataParallelSync.h"

#include "core/calibration/Calibration.h"
#include "core/cluster/FabricPath.h"
#include "core/cluster/GradientGroupStride.h"
#include "core/costs/LayerContext.h"
#include "core/costs/MoeCosts.h"
#include "core/costs/StepOverheads.h"
#include "core/memory/ActivationMemory.h"
#include "core/memory/MemoryModel.h"
#include "core/memory/ModelStateBytes.h"
#include "core/memory/PredictionBands.h"
#include "core/model/LayerShape.h"
#include "core/model/ModelMath.h"
#include "core/parallel/ParameterShard.h"
#include "core/parallel/StageLayout.h"
#include "core/schedule/PipelineClosedForm.h"
#include "core/schedule/PipelineSchedule.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <utility>

namespace parallax::core {

namespace {
// Axis ids in the two rank views of Megatron-Core's RankGenerator (core/cluster/RankMap.cpp).
enum DenseAxis { kTp = 0, kCp, kDp, kPp };
enum ExpertAxis { kEtp = 0, kEp, kEdp, kEpp };

std::vector<std::string> orderTokens(const std::string& order)
{
    std::vector<std::string> tokens;
    std::stringstream in(order);
    std::string t;
    while (std::getline(in, t, '-'))
        tokens.push_back(t);
    const std::multiset<std::string> need { "cp", "dp", "ep", "pp", "tp" };
    if (std::multiset<std::string>(tokens.begin(), tokens.end()) != need)
        return { "tp", "cp", "ep", "dp", "pp" };
    return tokens;
}

struct AxisStride {
    int size = 1;
    int stride = 1;
};

// The group of an axis whose first member is `base`, with the domains of its first and last
// members (its members ascend, so these are its lowest and highest domains): the engine's
// stridedCommGroup() (core/cluster/GroupGeometry.h), rank r on GPU r.
CommGroup axisGroup(
    const AxisStride& a, int base, const Topology& topo, const DomainShape& shape, int& firstDomain, int& lastDomain)
{
    firstDomain = topo.domainOf(base);
    lastDomain = topo.domainOf(base + (a.size - 1) * a.stride);
    return stridedCommGroup(topo, shape, base, a.stride, a.size);
}

// buildCommGroups() picks the more spread of the first and the last group of a dimension (RankMap
// creates groups in order of their smallest rank; the last one holds rank world-1).
CommGroup mostSpreadGroup(const AxisStride& a, int world, const Topology& topo, const DomainShape& shape, bool& crosses)
{
    int f0 = 0, l0 = 0, f1 = 0, l1 = 0;
    const CommGroup front = axisGroup(a, 0, topo, shape, f0, l0);
    const int r = world - 1;
    const CommGroup back = axisGroup(a, r - ((r / a.stride) % a.size) * a.stride, topo, shape, f1, l1);
    crosses = front.outer > 1 || back.outer > 1;
    return l1 - f1 > l0 - f0 ? back : front;
}

int inflightChunks(ScheduleKind kind, int p, int m, int v, int rank)
{
    return closedFormInflightChunks(ScheduleShape { kind, p, m, v }, rank);
}
} // namespace

// Per micro-batch times and activation bytes of one dense layer, one MoE layer and the LM head.
struct ClosedFormScorer::LayerCostSet {
    struct Kind {
        double forward = 0, backwardInput = 0, backwardWeight = 0;
        double computeForward = 0, computeBackward = 0, comm = 0; // DualPipe's split
        double activation = 0, activationFull = 0;
        double routedActivation = 0; // the routed copies' part of activation (routedActivationBytes)
    };
    Kind dense, moe, head;
    double headTransient = 0; // fp32 logits and head inputs of one micro-batch (last stage)
};

// Per pipeline rank placement and parameter counts of one (layout, ep, schedule).
struct ClosedFormScorer::RankTable {
    struct Row {
        double dense = 0, moe = 0, head = 0; // layer counts over all chunks, head 0/1
        bool hasDense = false, hasMoe = false;
        double states[4] = {}; // weights + grads + optimizer bytes per ZeRO stage
        double grads[4] = {};
        double optimizer[4] = {};
        double mainGradShard[4] = {}; // fp32 gradient shard at the optimizer step (16-bit gradients)
        double zeroThreeTransient = 0; // the largest gathered module under ZeRO-3
        double shardSeconds[4] = {}; // stepOverheadShardSeconds: Adam, norm, clip and zero-grad of its shard
        // Its layer counts and DP collectives equal the previous rank's: so do its windows and DP sync.
        bool dpLikePrevious = false;
        DpCollectives dp; // gradient and parameter collectives of this rank, per step
    };
    std::vector<Row> rows;
    int chunks = 1;
    double sumDense0 = 0, sumMoe0 = 0, sumHead0 = 0; // chunk 0 over all ranks
    double dense00 = 0, moe00 = 0, head00 = 0; // rank 0, chunk 0
    // Per model stage: its layer counts and head (0/1); per rank: the lowest model stage it holds.
    std::vector<double> stageDense, stageMoe, stageHead;
    std::vector<int> lowestStage;
    std::vector<int> rankStages; // [rank * chunks + chunk]: its model stage
    double fixedOtherBytes = 0; // CUDA context + NCCL buffers
    // Per ZeRO stage, over the rows: the largest states (with and without the optimizer) and shard seconds.
    double maxStates[4] = {}, maxStatesWithoutOptimizer[4] = {}, maxShardSeconds[4] = {};
};

ClosedFormScorer::ClosedFormScorer(const Scenario& base, const Calibration* calibration)
    : m_base(base)
    , m_calibration(calibration)
    , m_dispatcher(base.training.moeTokenDispatcher)
    , m_cpComm { base.parallel.cpCommType, base.parallel.cpA2aSize }
{
    const Topology& topo = base.topology;
    m_gpu = topo.domains.front().gpu;
    m_hbm = m_gpu.hbmBytes;
    for (const auto& d : topo.domains) {
        if (d.gpu.bf16FlopsPerSecond < m_gpu.bf16FlopsPerSecond)
            m_gpu = d.gpu;
        // The largest HBM: the bound prunes only what fits on no GPU; in a mixed cluster the simulated check
        // (fitsInMemory) holds each stage to the HBM of its own GPUs.
        m_hbm = std::max(m_hbm, d.gpu.hbmBytes);
        const auto& f = topo.domains.front();
        m_uniformTopology = m_uniformTopology && d.gpuCount == f.gpuCount && d.gpu.id == f.gpu.id
            && d.nvlinkBytesPerSecond == f.nvlinkBytesPerSecond;
    }
    m_uniformTopology = m_uniformTopology && topo.fabrics.size() <= 1;
    m_shape = DomainShape::of(topo);
    m_rates = std::make_unique<ComputeRates>(m_gpu, base.training.dtype, calibration, m_defaults);
    const ModelSpec& model = base.model;
    m_denseShape = layerShape(model, model.firstDenseLayer());
    if (model.isMoe()) {
        m_moeShape = layerShape(model, model.firstMoeLayer());
    }
    for (const auto& tok : orderTokens(base.parallel.order)) {
        if (tok == "tp") {
            m_denseOrder.push_back(kTp);
            m_expertOrder.push_back(kEtp);
        } else if (tok == "cp") {
            m_denseOrder.push_back(kCp);
        } else if (tok == "ep") {
            m_expertOrder.push_back(kEp);
        } else if (tok == "dp") {
            m_denseOrder.push_back(kDp);
            m_expertOrder.push_back(kEdp);
        } else {
            m_denseOrder.push_back(kPp);
            m_expertOrder.push_back(kEpp);
        }
    }
}

ClosedFormScorer::~ClosedFormScorer() = default;

LayoutComm ClosedFormScorer::layoutComm(const Layout& l, int ep) const
{
    LayoutComm c;
    const Topology& topo = m_base.topology;
    const int world = l.tp * l.cp * l.pp * l.dp;
    AxisStride dense[4], expert[4];
    const int denseSize[4] = { l.tp, l.cp, l.dp, l.pp };
    const int edp = std::max(1, world / std::max(1, l.pp * ep));
    const int expertSize[4] = { 1, ep, edp, l.pp };
    int stride = 1;
    for (int a : m_denseOrder) {
        dense[a] = { denseSize[a], stride };
        stride *= denseSize[a];
    }
    stride = 1;
    for (int a : m_expertOrder) {
        expert[a] = { expertSize[a], stride };
        stride *= expertSize[a];
    }
    bool unused = false;
    c.tp = mostSpreadGroup(dense[kTp], world, topo, m_shape, c.tpCrossesDomain);
    c.cp = mostSpreadGroup(dense[kCp], world, topo, m_shape, unused);
    c.ep = mostSpreadGroup(expert[kEp], world, topo, m_shape, c.epCrossesDomain);
    c.edp = mostSpreadGroup(expert[kEdp], world, topo, m_shape, unused);
    // The dense gradient group is dp x cp at tp = pp = 0, as buildCommGroups() prices it.
    const AxisStride& cpAxis = dense[kCp];
    const AxisStride& dpAxis = dense[kDp];
    if (const int stride = gradientGroupStride(l.cp, cpAxis.stride, l.dp, dpAxis.stride); stride > 0) {
        c.dp = stridedCommGroup(topo, m_shape, 0, stride, l.cp * l.dp);
    } else {
        std::vector<int> dpcp;
        for (int i = 0; i < l.cp; ++i) {
            for (int d = 0; d < l.dp; ++d)
                dpcp.push_back(i * cpAxis.stride + d * dpAxis.stride);
        }
        std::sort(dpcp.begin(), dpcp.end());
        c.dp = commGroupFor(dpcp, topo);
    }
    // Any TP group crossing: with a regular topology the first and last groups are representative
    // of their strides; check every group start when domains differ in size.
    if (!m_uniformTopology && l.tp > 1) {
        for (int start = 0; start < world && !c.tpCrossesDomain; ++start) {
            if ((start / dense[kTp].stride) % l.tp != 0)
                continue;
            const int d0 = topo.domainOf(start);
            for (int i = 1; i < l.tp; ++i)
                c.tpCrossesDomain = c.tpCrossesDomain || topo.domainOf(start + i * dense[kTp].stride) != d0;
        }
    }
    if (m_calibration) {
        if (auto bus = m_calibration->collectiveBusBytesPerSecond(CollectiveKind::AllReduce, 64e6)) {
            for (CommGroup* g : { &c.tp, &c.cp, &c.ep, &c.dp, &c.edp })
                g->intra.bytesPerSecond = *bus;
        }
    }
    if (l.pp > 1) {
        const int next = dense[kPp].stride;
        c.p2pLatencySeconds = topo.p2pLatencySeconds(0, next);
        c.p2pBytesPerSecond = topo.p2pBytesPerSecond(0, next);
    }
    return c;
}

const ClosedFormScorer::LayerCostSet& ClosedFormScorer::layerCosts(
    const Layout& l, int ep, const LayoutComm& comm, int microBatch, Recompute recompute)
{
    const CostKey key { { l.tp, l.cp, ep, microBatch, static_cast<long long>(recompute), comm.tp.inner, comm.tp.outer,
        comm.cp.inner, comm.cp.outer, comm.ep.inner, comm.ep.outer, m_uniformTopology ? 0 : l.pp,
        m_uniformTopology ? 0 : l.dp, ep > 1 ? static_cast<long long>(m_dispatcher) : 0,
        l.cp > 1 ? static_cast<long long>(m_cpComm.type) : 0, l.cp > 1 ? m_cpComm.a2aSize : 0 } };
    if (m_lastCosts && key == m_lastCostKey)
        return *m_lastCosts;
    m_lastCostKey = key;
    auto it = m_costs.find(key);
    if (it != m_costs.end())
        return *(m_lastCosts = it->second.get());
    const ModelSpec& model = m_base.model;
    // The point's degrees, as applyPoint sets them: sequence parallelism with tp > 1, etp = 1.
    const LayerDegrees degrees { microBatch, l.tp, l.tp > 1, l.cp, m_cpComm.type, m_cpComm.a2aSize, 1, recompute };
    ActivationContext ctx = activationContextAt(m_base, m_base.seqLen(), degrees, m_defaults);
    TrainingConfig training = m_base.training;
    applyDispatcher(training, ep, m_dispatcher); // as applyPoint sets it
    setDispatch(ctx, training, m_base.parallel, m_gpu.smCount);
    const LayerCommGroups groups { comm.tp, comm.cp, comm.ep };
    auto cost = std::make_unique<LayerCostSet>();
    auto fill = [&](const LayerShape& shape, LayerCostSet::Kind& k) {
        const LayerTimes t = layerTimes(model, shape, ctx, *m_rates, groups, m_defaults, m_base.parallel.epCommOverlap);
        k.forward = t.forward();
        k.backwardInput = t.backwardInput();
        k.backwardWeight = t.backwardWeight();
        k.computeForward = t.forwardCompute;
        k.computeBackward = t.backwardInputCompute + t.recomputeCompute + t.backwardWeightCompute;
        k.comm = t.tpForward + t.cpForward + t.epForward + t.tpBackward + t.cpBackward + t.epBackward;
        k.activation = layerActivationBytes(model, shape, ctx);
        k.activationFull = layerActivationBytesWithoutRecompute(model, shape, ctx);
        k.routedActivation = routedActivationBytes(model, shape, ctx);
    };
    fill(m_denseShape, cost->dense);
    if (model.isMoe())
        fill(m_moeShape, cost->moe);
    const HeadTimes head = lmHeadTimes(model, ctx, *m_rates, comm.tp);
    cost->head.forward = head.forward;
    cost->head.backwardInput = head.backwardInput;
    cost->head.backwardWeight = head.backwardWeight;
    cost->head.computeForward = head.forward;
    cost->head.computeBackward = head.backwardInput + head.backwardWeight;
    // Multi-token prediction rides with the head on the last stage (core/engine/PipelineInputStage.cpp):
    // per depth its projection, a block like the last layer and the head again.
    if (model.mtpLayers > 0) {
        const LayerCostSet::Kind block = model.isMoeLayer(model.layers - 1) ? cost->moe : cost->dense;
        const HeadTimes proj = mtpProjectionTimes(model, ctx, *m_rates);
        const double depths = model.mtpLayers;
        cost->head.forward += depths * (block.forward + proj.forward + head.forward);
        cost->head.backwardInput += depths * (block.backwardInput + proj.backwardInput + head.backwardInput);
        cost->head.backwardWeight += depths * (block.backwardWeight + proj.backwardWeight + head.backwardWeight);
        cost->head.computeForward += depths * (block.computeForward + proj.forward + head.forward);
        cost->head.computeBackward += depths
            * (block.computeBackward + proj.backwardInput + proj.backwardWeight + head.backwardInput
                + head.backwardWeight);
        cost->head.comm += depths * block.comm;
        // Its recompute transient is its block's, which the rank's layer kinds already bound (below).
        cost->head.activation += depths * block.activation;
    }
    // Logits of one micro-batch on the last stage (as core/memory/MemoryModel.cpp counts them).
    const double tokens = ctx.seqLen / ctx.cp * ctx.microBatch;
    const double rep = ctx.sp ? 1.0 / ctx.tp : 1.0;
    cost->headTransient
        = lmHeadTransientBytes(tokens, static_cast<double>(model.vocab), static_cast<double>(model.hidden), l.tp, rep);
    m_lastCosts = cost.get();
    m_costs.emplace(key, std::move(cost));
    return *m_lastCosts;
}

const ClosedFormScorer::RankTable& ClosedFormScorer::rankTable(
    const Layout& l, int ep, const LayoutComm& comm, const ScheduleChoice& s)
{
    const bool uneven = l.pp > 1 && (m_firstStageLayers > 0 || m_lastStageLayers > 0);
    // The table depends on the schedule only through where it places the model stages: GPipe, 1F1B and
    // the ZB-H schedules one stage per rank, interleaving v of them, the V shapes and DualPipe their two.
    const ScheduleKind kind = l.pp == 1 ? ScheduleKind::OneFOneB : s.kind;
    const long long placement = kind == ScheduleKind::Interleaved1F1B  ? 1
        : kind == ScheduleKind::ZbV || kind == ScheduleKind::DualPipeV ? 2
        : kind == ScheduleKind::DualPipe                               ? 3
                                                                       : 0;
    const TableKey key { { l.tp, l.cp, l.pp, l.dp, ep, placement, placement == 1 ? s.vpp : 1,
        uneven ? m_firstStageLayers : 0, uneven ? m_lastStageLayers : 0 } };
    if (m_lastTable && key == m_lastTableKey)
        return *m_lastTable;
    m_lastTableKey = key;
    auto it = m_tables.find(key);
    if (it != m_tables.end())
        return *(m_lastTable = it->second.get());
    const ModelSpec& model = m_base.model;
    auto table = std::make_unique<RankTable>();
    const ScheduleShape shape { l.pp == 1 ? ScheduleKind::OneFOneB : s.kind, l.pp, 1, l.pp == 1 ? 1 : s.vpp };
    table->chunks = chunksPerRank(shape);
    ParallelConfig unevenSplit = m_base.parallel;
    unevenSplit.pp = l.pp;
    unevenSplit.vpp = shape.virtualStages;
    unevenSplit.schedule = shape.kind;
    unevenSplit.firstStageLayers = uneven ? m_firstStageLayers : 0;
    unevenSplit.lastStageLayers = uneven ? m_lastStageLayers : 0;
    unevenSplit.accountForEmbedding = false; // as applyPoint sets them
    unevenSplit.accountForLoss = false;
    unevenSplit.pipelineLayout.clear();
    const StageLayout layout = StageLayout::of(model.layers, shape, unevenSplit);
    const int last = layout.stages() - 1;
    const double dpGroup = static_cast<double>(l.dp) * l.cp;
    const double edpGroup = std::max(1.0, static_cast<double>(l.tp) * l.cp * l.dp / ep);
    const OtherMemoryDefaults other;
    int communicators = 0;
    for (int degree : { l.tp, l.cp, l.pp, l.dp * l.cp, ep })
        communicators += degree > 1;
    table->fixedOtherBytes = other.cudaContextBytes + communicators * other.ncclBytesPerCommunicator;

    ParallelConfig split = m_base.parallel; // the degrees that divide a module's weights
    split.tp = l.tp;
    split.etp = 1;
    split.ep = ep;
    split.pp = l.pp;
    table->rows.resize(l.pp);
    table->stageDense.assign(layout.stages(), 0);
    table->stageMoe.assign(layout.stages(), 0);
    table->stageHead.assign(layout.stages(), 0);
    table->lowestStage.assign(l.pp, layout.stages());
    table->rankStages.assign(static_cast<std::size_t>(l.pp) * table->chunks, 0);
    for (int r = 0; r < l.pp; ++r) {
        RankTable::Row& row = table->rows[r];
        double denseParams = 0, expertParams = 0, largest = 0;
        for (int c = 0; c < table->chunks; ++c) {
            const int stage = modelStageOf(shape, r, c);
            const int first = layout.firstLayer(stage), end = layout.endLayer(stage);
            largest = std::max(largest, largestModuleParameters(model, split, first, end, stage == 0 || stage == last));
            const int nMoe = model.moeLayersIn(first, end);
            const int nDense = (end - first) - nMoe;
            const double head = stage == last ? 1.0 : 0.0;
            table->stageDense[stage] = nDense;
            table->stageMoe[stage] = nMoe;
            table->stageHead[stage] = head;
            table->lowestStage[r] = std::min(table->lowestStage[r], stage);
            table->rankStages[static_cast<std::size_t>(r) * table->chunks + c] = stage;
            row.dense += nDense;
            row.moe += nMoe;
            row.head = std::max(row.head, head);
            row.hasDense = row.hasDense || nDense > 0;
            row.hasMoe = row.hasMoe || nMoe > 0;
            if (c == 0) {
                table->sumDense0 += nDense;
                table->sumMoe0 += nMoe;
                table->sumHead0 += head;
                if (r == 0) {
                    table->dense00 = nDense;
                    table->moe00 = nMoe;
                    table->head00 = head;
                }
            }
            // The engine's own parameter count (core/parallel/ParameterShard.cpp), once per table.
            const ParameterShard chunkParams = stageParameters(
                model, split, first, end, layout.holds(stage, model.mtpLayers, rankHoldsStage(shape, r, 0)));
            denseParams += chunkParams.dense;
            expertParams += chunkParams.expert;
        }
        // Megatron-Core's buffers and ZeRO sharding as core/memory/MemoryModel.cpp applies them.
        const ParameterShard params { denseParams, expertParams };
        const bool fp32Grads = m_base.parallel.gradReduceInFp32;
        for (int z = 0; z < 4; ++z) {
            const ModelStateBytes state
                = modelStateBytes(params, z, fp32Grads, m_base.training.optimizer, dpGroup, edpGroup);
            row.grads[z] = state.grads;
            row.optimizer[z] = state.optimizer;
            row.mainGradShard[z] = state.mainGradShard;
            row.states[z] = state.total();
        }
        row.zeroThreeTransient = zeroThreeGatheredBytes(largest);
        row.dp = dpCollectives(comm.dp, comm.edp, denseParams, expertParams, m_base.parallel.gradReduceInFp32);
        if (r > 0) {
            const RankTable::Row& prev = table->rows[r - 1];
            const DpCollectives& a = row.dp;
            const DpCollectives& b = prev.dp;
            row.dpLikePrevious = row.dense == prev.dense && row.moe == prev.moe && row.head == prev.head
                && a.allReduce == b.allReduce && a.reduceScatter == b.reduceScatter && a.allGather == b.allGather
                && a.flatReduceScatter == b.flatReduceScatter && a.flatAllGather == b.flatAllGather;
        }
        StepOverheadInputs shard;
        shard.optimizer = m_base.training.optimizer;
        for (int z = 0; z < 4; ++z) {
            shard.optimizerShardParams = row.optimizer[z] / optimizerStateBytesPerParam(shard.optimizer);
            shard.gradBufferBytes = row.grads[z];
            row.shardSeconds[z] = stepOverheadShardSeconds(shard, *m_rates);
            table->maxStates[z] = std::max(table->maxStates[z], row.states[z]);
            table->maxStatesWithoutOptimizer[z]
                = std::max(table->maxStatesWithoutOptimizer[z], row.states[z] - row.optimizer[z]);
            table->maxShardSeconds[z] = std::max(table->maxShardSeconds[z], row.shardSeconds[z]);
        }
    }
    m_lastTable = table.get();
    m_tables.emplace(key, std::move(table));
    return *m_lastTable;
}

double ClosedFormScorer::stateBoundBytes(
    const Layout& l, int ep, const LayoutComm& comm, const ScheduleChoice& s, int zero)
{
    const RankTable& t = rankTable(l, ep, comm, s);
    return (m_optimizerOffload ? t.maxStatesWithoutOptimizer[zero] : t.maxStates[zero]) + t.fixedOtherBytes;
}

const ClosedFormScorer::ProgramCounts& ClosedFormScorer::programCounts(ScheduleKind kind, int p, int m, int v)
{
    const auto key = std::tuple(static_cast<int>(kind), p, m, v);
    auto it = m_programCounts.find(key);
    if (it != m_programCounts.end())
        return it->second;
    ProgramCounts counts;
    const ScheduleShape shape { kind, p, m, v };
    if (checkShape(shape).empty()) {
        const int chunks = chunksPerRank(shape);
        counts.forwardsBeforeBackward.assign(static_cast<std::size_t>(p) * chunks, 0);
        counts.ops.assign(static_cast<std::size_t>(p) * chunks, {});
        const std::vector<RankProgram> programs = generateSchedule(shape);
        for (int r = 0; r < p && r < static_cast<int>(programs.size()); ++r) {
            bool backwardSeen = false;
            for (const PipelineOp& op : programs[r]) {
                if (op.chunk < 0 || op.chunk >= chunks)
                    continue;
                const std::size_t at = static_cast<std::size_t>(r) * chunks + op.chunk;
                // Each forward adds its chunk's activations when it ends; nothing leaves before a backward.
                backwardSeen = backwardSeen || op.kind != OpKind::Forward;
                if (!backwardSeen)
                    ++counts.forwardsBeforeBackward[at];
                switch (op.kind) {
                case OpKind::Forward:
                    ++counts.ops[at][0];
                    break;
                case OpKind::Backward:
                    ++counts.ops[at][1];
                    break;
                case OpKind::BackwardInput:
                    ++counts.ops[at][2];
                    break;
                case OpKind::BackwardWeight:
                    ++counts.ops[at][3];
                    break;
                case OpKind::ForwardBackward:
                    ++counts.ops[at][4];
                    break;
                }
            }
        }
    }
    return m_programCounts.emplace(key, std::move(counts)).first->second;
}

void ClosedFormScorer::score(const Layout& l, int ep, const LayoutComm& comm, int microBatch, const ScheduleChoice& s,
    Recompute recompute, const std::vector<int>& zeros, std::vector<ClosedFormScore>& out)
{
    const LayerCostSet& c = layerCosts(l, ep, comm, microBatch, recompute);
    const RankTable& t = rankTable(l, ep, comm, s);
    const int p = l.pp;
    const int m = static_cast<int>(m_base.training.globalBatch / (static_cast<long long>(microBatch) * l.dp));
    const ScheduleKind kind = p == 1 ? ScheduleKind::OneFOneB : s.kind;
    const int v = p == 1 ? 1 : s.vpp;
    const double chunks = t.chunks;

    m_perMb.resize(p);
    m_forward.resize(p);
    m_backward.resize(p);
    m_activations.resize(p);
    m_leastActivations.resize(p);
    m_transient.resize(p);
    double slowest = 0;
    for (int r = 0; r < p; ++r) {
        const RankTable::Row& row = t.rows[r];
        const double f = row.dense * c.dense.forward + row.moe * c.moe.forward + row.head * c.head.forward;
        const double bi
            = row.dense * c.dense.backwardInput + row.moe * c.moe.backwardInput + row.head * c.head.backwardInput;
        const double w
            = row.dense * c.dense.backwardWeight + row.moe * c.moe.backwardWeight + row.head * c.head.backwardWeight;
        m_forward[r] = f;
        m_backward[r] = bi + w;
        m_perMb[r] = f + bi + w;
        slowest = std::max(slowest, m_perMb[r]);
        // As PipelineInputStage: a MoE layer stores its routed part at the rank's summed load.
        const double moeActivation = rankMoeLayerActivationBytes(c.moe.activation, c.moe.routedActivation,
            expertLoadFactor(m_base.training, m_defaults.expertLoadImbalance), row.moe);
        // The head's activation is its MTP blocks' (0 without MTP).
        const double weight = row.dense * c.dense.activation + row.moe * moeActivation + row.head * c.head.activation;
        m_activations[r] = weight / chunks * inflightChunks(kind, p, m, v, r);
        // The least a simulation can hold at its peak: one micro-batch of the rank's lightest chunk.
        double lightest = -1;
        for (int ch = 0; ch < t.chunks; ++ch) {
            const int st = t.rankStages[static_cast<std::size_t>(r) * t.chunks + ch];
            const double w1 = t.stageDense[st] * c.dense.activation + t.stageMoe[st] * moeActivation
                + t.stageHead[st] * c.head.activation;
            lightest = lightest < 0 ? w1 : std::min(lightest, w1);
        }
        m_leastActivations[r] = std::max(0.0, lightest);
        if (m_inflightFromPrograms) {
            const std::vector<int>& before = programCounts(kind, p, m, v).forwardsBeforeBackward;
            if (!before.empty()) {
                double held = 0;
                for (int ch = 0; ch < t.chunks; ++ch) {
                    const int st = t.rankStages[static_cast<std::size_t>(r) * t.chunks + ch];
                    held += before[static_cast<std::size_t>(r) * t.chunks + ch]
                        * (t.stageDense[st] * c.dense.activation + t.stageMoe[st] * moeActivation
                            + t.stageHead[st] * c.head.activation);
                }
                m_leastActivations[r] = std::max(m_leastActivations[r], held);
            }
        }
        double transient = 0;
        transient = std::max(row.hasDense ? c.dense.activationFull : 0.0, row.hasMoe ? c.moe.activationFull : 0.0);
        if (row.head > 0)
            transient = std::max(transient, c.headTransient);
        m_transient[r] = transient;
    }

    // Closed-form bubbles (core/schedule/PipelineClosedForm.cpp): arXiv:2104.04473 sec. 2.2, arXiv:2401.10241
    // Table 2, arXiv:2412.19437 Table 2.
    double f = (t.sumDense0 * c.dense.forward + t.sumMoe0 * c.moe.forward + t.sumHead0 * c.head.forward) / p;
    double b
        = (t.sumDense0 * c.dense.backwardInput + t.sumMoe0 * c.moe.backwardInput + t.sumHead0 * c.head.backwardInput)
        / p;
    const double w
        = (t.sumDense0 * c.dense.backwardWeight + t.sumMoe0 * c.moe.backwardWeight + t.sumHead0 * c.head.backwardWeight)
        / p;
    double p2p = 0;
    if (p > 1) {
        const ModelSpec& model = m_base.model;
        const double bytes
            = 2.0 * m_base.seqLen() / l.cp * microBatch * static_cast<double>(model.hidden) / (l.tp > 1 ? l.tp : 1);
        p2p = pipelineSendSeconds(bytes, comm.p2pLatencySeconds, comm.p2pBytesPerSecond, m_defaults);
    }
    // Busy time per micro-batch of each rank and of the average rank, without blocking sends.
    m_perMbNoSend.assign(m_perMb.begin(), m_perMb.end());
    double averagePerMb = 0;
    for (int r = 0; r < p; ++r)
        averagePerMb += m_perMb[r] / p;
    double sendsPerMb = 0; // blocking sends' part of every rank's busy time, a lower bound of it
    if (!m_base.parallel.p2pOverlap) {
        // On a regular topology ranks 0 and 1 have the fastest pipeline link: the same NVLink domain
        // when any two neighbours share one (rank 0 starts domain 0), else all cross alike.
        sendsPerMb = m_uniformTopology ? 2 * chunks * p2p : 0.0;
        // Blocking sends (as core/Engine.cpp): every forward and backward op carries its send.
        for (int r = 0; r < p; ++r) {
            m_forward[r] += chunks * p2p;
            m_backward[r] += chunks * p2p;
            m_perMb[r] += 2 * chunks * p2p;
            slowest = std::max(slowest, m_perMb[r]);
        }
        f += p2p;
        b += p2p;
        p2p = 0;
    }
    ClosedFormTimes times { slowest, chunks, f, b, w, 0, p2p };
    if (kind == ScheduleKind::DualPipe || kind == ScheduleKind::DualPipeV) {
        const double computeF
            = t.dense00 * c.dense.computeForward + t.moe00 * c.moe.computeForward + t.head00 * c.head.computeForward;
        const double computeB
            = t.dense00 * c.dense.computeBackward + t.moe00 * c.moe.computeBackward + t.head00 * c.head.computeBackward;
        const double commFB = t.dense00 * c.dense.comm + t.moe00 * c.moe.comm;
        times.fb
            = computeF + computeB + exposedAfterOverlap(commFB, (computeF + computeB) * m_defaults.dualPipeCommHidden);
    }
    const double bubble = closedFormBubbleSeconds(kind, p, v, times);
    const double makespan = m * slowest + bubble;
    // The simulator runs a rank's ops one after another (core/schedule/PipelineSimulator.h), so its
    // makespan is at least any rank's busy time. Every schedule but the DualPipe family runs each
    // (micro-batch, chunk)'s F and B (or B and W) exactly once on its rank, with the per-op durations
    // summed here: busy = m x per-micro-batch time, exact. Before a rank's first op (a forward of one
    // of its stages s) that micro-batch's forwards of stages 0..s-1 run one after another, and after
    // its last op, when the backward is not split (GPipe, 1F1B, interleaved: every F is followed by
    // its B on the same rank, so the last op is a B), the backwards of stages s-1..0 do: both chains
    // cover the stages below the rank's lowest one. A split of the same layers moves work between
    // ranks but keeps its sum, so the average rank's busy time bounds every split. DualPipe pairs an
    // F with a B into one shorter op, bounded below.
    const bool pairsOps = kind == ScheduleKind::DualPipe || kind == ScheduleKind::DualPipeV;
    const bool tailChain
        = kind == ScheduleKind::GPipe || kind == ScheduleKind::OneFOneB || kind == ScheduleKind::Interleaved1F1B;
    double makespanBound = 0;
    if (!pairsOps) {
        // The lowest-stage chains: prefix sums of per-stage forward and backward durations.
        const std::size_t stages = t.stageDense.size();
        m_chainF.assign(stages + 1, 0.0);
        m_chainB.assign(stages + 1, 0.0);
        const double sendLow = sendsPerMb / (2 * chunks); // one op's blocking send, a lower bound of it
        for (std::size_t st = 0; st < stages; ++st) {
            const double fs = t.stageDense[st] * c.dense.forward + t.stageMoe[st] * c.moe.forward
                + t.stageHead[st] * c.head.forward;
            const double bs = t.stageDense[st] * (c.dense.backwardInput + c.dense.backwardWeight)
                + t.stageMoe[st] * (c.moe.backwardInput + c.moe.backwardWeight)
                + t.stageHead[st] * (c.head.backwardInput + c.head.backwardWeight);
            m_chainF[st + 1] = m_chainF[st] + fs + sendLow;
            m_chainB[st + 1] = m_chainB[st] + bs + sendLow;
        }
        for (int r = 0; r < p; ++r) {
            const int low = t.lowestStage[r];
            const double busy = m * (m_perMbNoSend[r] + sendsPerMb);
            makespanBound = std::max(makespanBound, m_chainF[low] + busy + (tailChain ? m_chainB[low] : 0.0));
        }
    }
    if (pairsOps) {
        // DualPipe and DualPipeV (core/schedule/DualPipeSchedule.cpp): the rank's busy time from its
        // program's ops, each with the simulator's duration (core/schedule/SimulationPlan.cpp): F its
        // chunk's forward, B its backward, BI and W their parts, an F&B pair its forward chunk's compute
        // of F and B plus the communication it cannot hide (core/engine/PipelineInputStage.cpp). Before
        // its first op (a forward) the forwards of the stages below run one after another, each at
        // least its compute (a paired op lasts longer).
        const ProgramCounts& programs = programCounts(kind, p, m, v);
        const std::size_t stages = t.stageDense.size();
        m_chainF.assign(stages + 1, 0.0);
        for (std::size_t st = 0; st < stages; ++st)
            m_chainF[st + 1] = m_chainF[st] + t.stageDense[st] * c.dense.computeForward
                + t.stageMoe[st] * c.moe.computeForward + t.stageHead[st] * c.head.computeForward;
        for (int r = 0; r < p && !programs.ops.empty(); ++r) {
            double busy = 0, fill = -1;
            for (int ch = 0; ch < t.chunks; ++ch) {
                const int st = t.rankStages[static_cast<std::size_t>(r) * t.chunks + ch];
                const double nd = t.stageDense[st], nm = t.stageMoe[st], nh = t.stageHead[st];
                const double fw = nd * c.dense.forward + nm * c.moe.forward + nh * c.head.forward;
                const double bi = nd * c.dense.backwardInput + nm * c.moe.backwardInput + nh * c.head.backwardInput;
                const double wg = nd * c.dense.backwardWeight + nm * c.moe.backwardWeight + nh * c.head.backwardWeight;
                const double cf = nd * c.dense.computeForward + nm * c.moe.computeForward + nh * c.head.computeForward;
                const double cb
                    = nd * c.dense.computeBackward + nm * c.moe.computeBackward + nh * c.head.computeBackward;
                const double comm = nd * c.dense.comm + nm * c.moe.comm;
                const double pair = cf + cb + exposedAfterOverlap(comm, (cf + cb) * m_defaults.dualPipeCommHidden);
                const std::array<int, 5>& n = programs.ops[static_cast<std::size_t>(r) * t.chunks + ch];
                busy += n[0] * fw + n[1] * (bi + wg) + n[2] * bi + n[3] * wg + n[4] * pair;
                fill = fill < 0 ? m_chainF[st] : std::min(fill, m_chainF[st]);
            }
            makespanBound = std::max(makespanBound, std::max(0.0, fill) + busy);
        }
    }
    const double anySplitBound = pairsOps ? 0.0 : m * (averagePerMb + sendsPerMb);
    // Floating-point sums in another order than the engine's: a relative margin far below a nanosecond.
    makespanBound *= 1 - 1e-12;

    const ErrorBand band = memoryBand();
    // Optimizer step and fixed per-step work, as core/Engine.cpp (core/costs/StepOverheads); its
    // collectives are the same for every rank and ZeRO stage of this layout.
    // The recompute modes of one micro-batch size come one after another: priced once for them.
    const Key<6> collectivesKey { { l.tp, l.cp, l.pp, l.dp, ep, microBatch } };
    if (!m_hasCollectives || !(collectivesKey == m_collectivesKey)) {
        StepOverheadInputs fixed;
        fixed.microbatches = m;
        fixed.tokensPerMicrobatch = m_base.seqLen() / static_cast<double>(l.cp) * microBatch;
        fixed.tp = comm.tp;
        fixed.dp = comm.dp;
        fixed.optimizer = m_base.training.optimizer;
        m_collectives = stepOverheadCollectives(fixed);
        m_collectivesKey = collectivesKey;
        m_hasCollectives = true;
    }
    const StepOverheadCollectives& fixedCollectives = m_collectives;
    out.resize(zeros.size());
    const double fragmentation = OtherMemoryDefaults().fragmentationFraction;
    for (std::size_t i = 0; i < zeros.size(); ++i) {
        const int z = zeros[i];
        ClosedFormScore& sc = out[i];
        sc.peakBytes = 0;
        sc.peakStage = 0;
        sc.peakWithoutOptimizerBytes = 0;
        double dpExposed = 0;
        // The slowest rank's shard work plus the collectives every rank shares (stepOverheads' total()).
        const double fixedSeconds = t.maxShardSeconds[z] + fixedCollectives.total();
        // A lower bound of the DP sync's exposed time on the simulated timeline (core/memory/MemoryModel.cpp
        // dpSyncSeconds): it hides reductions in the cooldown, which the closed form cannot see.
        double dpLower = 0, leastGrads = 0;
        sc.peakLowBytes = 0;
        sc.peakLowerBoundBytes = 0;
        DpSyncTimes sync;
        for (int r = 0; r < p; ++r) {
            const RankTable::Row& row = t.rows[r];
            // The peak as core/memory/MemoryModel.cpp composes it; it grows with the stored activations.
            auto peakWith = [&](double act) {
                double transient = m_transient[r] + (z >= 3 ? row.zeroThreeTransient : 0.0);
                transient += std::max(0.0, row.mainGradShard[z] - act - transient);
                const double runtime = t.fixedOtherBytes + fragmentation * (act + transient);
                return std::pair(row.states[z] + act + runtime + transient, runtime);
            };
            const auto [total, runtime] = peakWith(m_activations[r]);
            const double least = peakWith(m_leastActivations[r]).first - (m_optimizerOffload ? row.optimizer[z] : 0.0);
            sc.peakLowerBoundBytes = std::max(sc.peakLowerBoundBytes, least);
            if (total > sc.peakBytes) {
                sc.peakBytes = total;
                sc.peakStage = r;
            }
            // The low end of the memory range is what evaluate's "does not fit" decides on (core/Engine.cpp); the
            // search itself keeps to layouts whose point estimate fits (core/search/ConfigSearch.cpp fitsInMemory).
            const double allocated = total - runtime;
            sc.peakLowBytes = std::max(sc.peakLowBytes, runtime + band.low(allocated));
            sc.peakWithoutOptimizerBytes = std::max(sc.peakWithoutOptimizerBytes, total - row.optimizer[z]);
            // The same overlap rules as the engine (core/costs/DataParallelSync.h); a rank like the previous one
            // (same layers, so the same windows, and the same collectives) has its sync.
            const bool overlap = m_base.parallel.dpOverlap;
            if (!row.dpLikePrevious)
                sync = dataParallelSync(z, m, row.dp, overlap ? m_forward[r] : 0.0, overlap ? m_backward[r] : 0.0);
            dpExposed = std::max(dpExposed, sync.exposedSeconds);
            if (z >= 3) {
                dpLower = std::max(dpLower, sync.exposedSeconds); // the engine's own closed form
            } else {
                // On the timeline each chunk reduces once (ZeRO 0-1) or after each of its backwards
                // (ZeRO-2): m per chunk, m/2 under DualPipe, whose two chunks carry one direction each.
                // The per-chunk collectives sum to at least the rank's (each costs a + b x bytes).
                const double reductions = z == 2 ? (kind == ScheduleKind::DualPipe ? m / 2 : m) : 1;
                const double grads = reductions * (z == 0 ? row.dp.allReduce : row.dp.reduceScatter);
                if (overlap) {
                    // pipelinedDataParallelSync: exposed = E + tax x (total - E) >= tax x total for E >= 0.
                    dpLower = std::max(dpLower, kOverlapComputeTax * (grads + (z == 0 ? 0.0 : row.dp.allGather)));
                } else {
                    // The gradients reduce after the rank's last op; on the rank that ends at the makespan
                    // all of them are exposed.
                    leastGrads = r == 0 ? grads : std::min(leastGrads, grads);
                }
            }
        }
        dpLower = std::max(dpLower, leastGrads);
        sc.fits = (m_optimizerOffload ? sc.peakWithoutOptimizerBytes : sc.peakBytes) <= m_hbm;
        sc.stepSeconds = makespan + dpExposed + fixedSeconds;
        // evaluate()'s step is makespan + exposed DP sync + fixed work (core/engine/StepTimeStage.cpp), the
        // fixed work computed from the same states on both paths; an uneven split changes them, so its
        // bound counts the pipeline only.
        sc.stepLowerBoundSeconds = makespanBound + dpLower + fixedSeconds;
        sc.anySplitLowerBoundSeconds = anySplitBound;
    }
}

} // namespace parallax::core
