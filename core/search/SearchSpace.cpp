// SPDX-License-Identifier: Apache-2.0
#include "core/search/SearchSpace.h"

#include "core/search/ApplyPointInPlace.h"

#include "core/Limits.h"
#include "core/Validation.h"
#include "core/schedule/PipelineSchedule.h"

#include <algorithm>

namespace parallax::core {

bool stagesHoldLayers(int layers, int stages)
{
    return layers >= stages - 2 && (layers >= stages || stages > 2);
}

std::string describe(const SearchPoint& p)
{
    std::string s = "TP=" + std::to_string(p.tp);
    if (p.cp > 1)
        s += " CP=" + std::to_string(p.cp);
    if (p.cp > 1 && p.cpComm != CpCommType::P2p)
        s += " " + cpCommText(p.cpComm, p.cp, p.cpA2aSize);
    s += " PP=" + std::to_string(p.pp);
    s += " DP=" + std::to_string(p.dp);
    if (p.ep > 1)
        s += " EP=" + std::to_string(p.ep);
    if (p.ep > 1 && p.dispatcher == MoeDispatcher::DeepEp)
        s += " DeepEP";
    if (p.vpp > 1)
        s += " v=" + std::to_string(p.vpp);
    s += " ZeRO-" + std::to_string(p.zero);
    if (p.pp > 1)
        s += std::string(" ") + toString(p.schedule);
    if (p.firstStageLayers > 0)
        s += " first-stage-layers=" + std::to_string(p.firstStageLayers);
    if (p.lastStageLayers > 0)
        s += " last-stage-layers=" + std::to_string(p.lastStageLayers);
    s += " mb=" + std::to_string(p.microBatch);
    s += std::string(" recompute ") + toString(p.recompute);
    return s;
}

Scenario applyPoint(const Scenario& base, const SearchPoint& p)
{
    Scenario s = base;
    applyPointInPlace(s, p, base);
    return s;
}

void applyPointInPlace(Scenario& s, const SearchPoint& p, const Scenario& base)
{
    s.parallel.tp = p.tp;
    s.parallel.sp = p.sp();
    s.parallel.cp = p.cp;
    s.parallel.pp = p.pp;
    s.parallel.vpp = p.vpp;
    s.parallel.dp = p.dp;
    s.parallel.ep = p.ep;
    s.parallel.etp = 1;
    s.parallel.zero = p.zero;
    s.parallel.schedule = p.schedule;
    s.training.microBatch = p.microBatch;
    s.training.recompute = p.recompute;
    s.parallel.firstStageLayers = p.firstStageLayers;
    s.parallel.lastStageLayers = p.lastStageLayers;
    s.parallel.accountForEmbedding = false;
    s.parallel.accountForLoss = false;
    s.parallel.pipelineLayout.clear(); // a layout is the user's for one pp x vpp; candidates take the split finder's
    s.training.moeTokenDispatcher = base.training.moeTokenDispatcher; // with ep = 1: nothing to dispatch
    s.training.deepseekFp8Dispatch = base.training.deepseekFp8Dispatch;
    applyDispatcher(s.training, p.ep, p.dispatcher);
    s.parallel.cpCommType = base.parallel.cpCommType; // with cp = 1: nothing to exchange
    s.parallel.cpA2aSize = base.parallel.cpA2aSize;
    applyCpComm(s.parallel, p);
}

void applyCpComm(ParallelConfig& parallel, const SearchPoint& point)
{
    if (point.cp <= 1)
        return;
    parallel.cpCommType = point.cpComm;
    parallel.cpA2aSize = point.cpComm == CpCommType::A2aP2p ? point.cpA2aSize : 0;
}

void applyDispatcher(TrainingConfig& t, int ep, MoeDispatcher d)
{
    if (ep <= 1)
        return;
    t.moeTokenDispatcher = d;
    // DeepSeek's fp8 dispatch is a DeepEP mode (Validation): under NCCL's all-to-all the tokens go in bf16.
    if (d != MoeDispatcher::DeepEp)
        t.deepseekFp8Dispatch = false;
}

SearchPoint pointOf(const Scenario& s)
{
    SearchPoint p;
    p.tp = s.parallel.tp;
    p.cp = s.parallel.cp;
    p.pp = s.parallel.pp;
    p.vpp = s.parallel.vpp;
    p.dp = s.parallel.dp;
    p.ep = s.parallel.ep;
    p.zero = s.parallel.zero;
    p.microBatch = s.training.microBatch;
    p.schedule = s.parallel.schedule;
    p.recompute = s.training.recompute;
    p.firstStageLayers = s.parallel.firstStageLayers;
    p.lastStageLayers = s.parallel.lastStageLayers;
    if (p.ep > 1)
        p.dispatcher = s.training.moeTokenDispatcher;
    if (p.cp > 1) {
        p.cpComm = s.parallel.cpCommType;
        p.cpA2aSize = p.cpComm == CpCommType::A2aP2p ? s.parallel.cpA2aSize : 0;
    }
    return p;
}

SearchSpace::SearchSpace(const Scenario& base, const SearchLimits& limits)
    : m_base(base)
    , m_limits(limits)
    , m_gpus(base.topology.gpuCount())
    , m_seq(base.seqLen())
{
    for (const auto& d : base.topology.domains)
        m_domainSize = m_domainSize == 0 ? d.gpuCount : std::min(m_domainSize, d.gpuCount);
    if (m_gpus <= 0)
        return;
    const ModelSpec& m = base.model;
    for (int tp : divisorsOf(m_gpus)) {
        // Tensor parallelism splits heads, query groups and the FFN (arXiv:1909.08053 sec. 3), and
        // with sequence parallelism the sequence (arXiv:2205.05198 sec. 4.2.2); TP values that cross
        // the NVLink domain stay in the space so that the search can say why they lose.
        if (m.heads % tp != 0 || (!m.mla && m.kvHeads % tp != 0) || m.ffnHidden % tp != 0)
            continue;
        for (int cp : divisorsOf(m_gpus / tp)) {
            // Megatron-Core splits each sequence into 2*cp chunks (causal load balance).
            if (cp > 1 && m_seq % (2 * cp) != 0)
                continue;
            if (tp > 1 && (m_seq / cp) % tp != 0)
                continue;
            if (!limits.includeCpCommTypes && !cpCommTypeFits(base, tp, cp))
                continue; // Ulysses splits the heads over cp (or its a2a level); the search's own ring always fits
            for (int pp : divisorsOf(m_gpus / tp / cp)) {
                if (!stagesHoldLayers(m.layers, pp))
                    continue;
                const int dp = m_gpus / tp / cp / pp;
                if (base.training.globalBatch % dp != 0)
                    continue;
                m_layouts.push_back({ tp, cp, pp, dp });
            }
        }
    }
}

std::vector<int> SearchSpace::expertDegrees(const Layout& l) const
{
    const ModelSpec& m = m_base.model;
    if (!m.isMoe())
        return { 1 };
    std::vector<int> out;
    const long long stageRanks = static_cast<long long>(l.tp) * l.cp * l.dp;
    for (int ep : divisorsOf(m.moe->experts)) {
        // Experts are carved out of the tp*cp*dp ranks of a stage (Megatron-Core parallel_state).
        if (stageRanks % ep == 0)
            out.push_back(ep);
    }
    return out;
}

std::vector<int> SearchSpace::microBatches(const Layout& l) const
{
    std::vector<int> out;
    const long long perReplica = m_base.training.globalBatch / l.dp;
    for (int mb : divisorsOf(perReplica)) {
        if (mb > m_limits.maxMicroBatch)
            break;
        if (perReplica / mb <= kMaxMicrobatchesPerStep)
            out.push_back(mb);
    }
    return out;
}

std::vector<ScheduleChoice> SearchSpace::schedules(int pp, int m) const
{
    if (pp == 1)
        return { { ScheduleKind::OneFOneB, 1 } };
    const int layers = m_base.model.layers;
    std::vector<ScheduleChoice> out;
    if (m_limits.includeGPipe)
        out.push_back({ ScheduleKind::GPipe, 1 });
    out.push_back({ ScheduleKind::OneFOneB, 1 });
    // Interleaving needs whole groups of pp micro-batches (arXiv:2104.04473 sec. 2.2.2).
    if (m % pp == 0) {
        for (int v = 2; v <= m_limits.maxVirtualStages && stagesHoldLayers(layers, pp * v); ++v) {
            if (interleavingDividesStages(layers, pp, v))
                out.push_back({ ScheduleKind::Interleaved1F1B, v });
        }
    }
    if (m_limits.includeZeroBubble) {
        out.push_back({ ScheduleKind::ZbH1, 1 });
        out.push_back({ ScheduleKind::ZbH2, 1 });
        if (stagesHoldLayers(layers, 2 * pp))
            out.push_back({ ScheduleKind::ZbV, 1 });
    }
    if (m_limits.includeDualPipe && m_base.model.isMoe()) {
        for (ScheduleKind k : { ScheduleKind::DualPipe, ScheduleKind::DualPipeV }) {
            const ScheduleShape shape { k, pp, m, 1 };
            if (checkShape(shape).empty() && stagesHoldLayers(layers, modelStageCount(shape)))
                out.push_back({ k, 1 });
        }
    }
    return out;
}

std::vector<int> SearchSpace::zeroStages(const Layout& l, int ep) const
{
    // ZeRO shards over dp*cp (dense) and the expert-data-parallel group (experts); with both of
    // size 1 every stage is the same configuration as ZeRO-0 (arXiv:1910.02054 sec. 5).
    const long long denseGroup = static_cast<long long>(l.dp) * l.cp;
    const long long expertGroup = m_base.model.isMoe() ? static_cast<long long>(l.tp) * l.cp * l.dp / ep : 1;
    if (denseGroup == 1 && expertGroup == 1)
        return { 0 };
    return { 0, 1, 2, 3 };
}

std::vector<MoeDispatcher> SearchSpace::dispatchers(int ep) const
{
    if (!m_base.model.isMoe() || ep <= 1)
        return { MoeDispatcher::AllToAll };
    if (!m_limits.includeDeepEp)
        return { m_base.training.moeTokenDispatcher };
    return { MoeDispatcher::AllToAll, MoeDispatcher::DeepEp };
}

std::vector<CpCommChoice> SearchSpace::cpCommChoices(const Layout& l) const
{
    if (l.cp <= 1)
        return { {} };
    const ParallelConfig& own = m_base.parallel;
    const CpCommChoice ownChoice { own.cpCommType, own.cpCommType == CpCommType::A2aP2p ? own.cpA2aSize : 0 };
    if (!m_limits.includeCpCommTypes)
        return { ownChoice };
    const ModelSpec& m = m_base.model;
    // The ring hides its K/V exchange behind s/cp-key kernel calls; all_gather exposes the gather but attends over
    // the gathered sequence (arXiv:2407.21783 sec. 3.3.2): which wins depends on the links and the kernel's rate.
    std::vector<CpCommChoice> out { { CpCommType::P2p, 0 }, { CpCommType::AllGather, 0 } };
    // DeepSpeed-Ulysses (arXiv:2309.14509 sec. 3.1): each rank of the all-to-all takes heads/cp of the heads;
    // Transformer Engine asserts that both the query and the key/value heads of a TP rank split.
    if (ulyssesSplitsHeads(m, l.tp, l.cp))
        out.push_back({ CpCommType::A2a, 0 });
    // Megatron-Core's hierarchical CP (--hierarchical-context-parallel-sizes a cp/a), USP's hybrid
    // (arXiv:2405.07719): worth it where the cp group leaves the NVLink domain, with the largest level whose
    // all-to-all stays inside it. Transformer Engine's ring level has no windows (checkCpCommType).
    if (l.tp * l.cp > m_domainSize && !m.windowedBelow(m_seq)) {
        int level = 0;
        for (int a : divisorsOf(l.cp)) {
            if (a > 1 && a < l.cp && a * l.tp <= m_domainSize && ulyssesSplitsHeads(m, l.tp, a))
                level = a;
        }
        if (level > 0)
            out.push_back({ CpCommType::A2aP2p, level });
    }
    return out;
}

std::vector<std::pair<MoeDispatcher, CpCommChoice>> SearchSpace::variants(const Layout& l, int ep) const
{
    std::vector<std::pair<MoeDispatcher, CpCommChoice>> out;
    const std::vector<CpCommChoice> cpComms = cpCommChoices(l);
    for (const MoeDispatcher d : dispatchers(ep)) {
        for (const CpCommChoice& c : cpComms)
            out.emplace_back(d, c);
    }
    return out;
}

} // namespace parallax::core
