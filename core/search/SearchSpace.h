// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"

#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace parallax::core {

// One point of the search: the parallel degrees and knobs the search varies. Everything else
// (model, topology, global batch, sequence length, dtype, rank order) comes from the base scenario.
// Sequence parallelism is on whenever tp > 1: it moves the same bytes as the all-reduce and
// shards the replicated activations (arXiv:2205.05198 sec. 4.2.2), so tp > 1 without it never wins.
struct SearchPoint {
    int tp = 1;
    int cp = 1;
    int pp = 1;
    int vpp = 1;
    int dp = 1;
    int ep = 1;
    int zero = 0;
    int microBatch = 1;
    ScheduleKind schedule = ScheduleKind::OneFOneB;
    Recompute recompute = Recompute::None;
    // Megatron's uneven pipeline split (core/parallel/PipelineSplit.h); 0, 0 is the even split.
    int firstStageLayers = 0;
    int lastStageLayers = 0;
    // The MoE token dispatcher (Megatron-Core --moe-token-dispatcher-type alltoall, or flex with
    // --moe-enable-deepep): with ep > 1 a dimension of the search; with ep = 1 there is nothing to dispatch
    // and applyPoint keeps the scenario's setting.
    MoeDispatcher dispatcher = MoeDispatcher::AllToAll;
    // The context-parallel communication (Megatron-Core --cp-comm-type, and for a2a+p2p the all-to-all level of
    // --hierarchical-context-parallel-sizes): with cp > 1 a dimension of the search; with cp = 1 nothing is
    // exchanged and applyPoint keeps the scenario's setting.
    CpCommType cpComm = CpCommType::P2p;
    int cpA2aSize = 0;

    bool sp() const { return tp > 1; }
    // Total order used for deterministic tie-breaks.
    auto key() const
    {
        return std::tuple(tp, cp, pp, vpp, dp, ep, zero, microBatch, static_cast<int>(schedule),
            static_cast<int>(recompute), firstStageLayers, lastStageLayers, static_cast<int>(dispatcher),
            static_cast<int>(cpComm), cpA2aSize);
    }
    bool operator==(const SearchPoint& o) const { return key() == o.key(); }
};

// "TP=8 PP=8 DP=16 v=2 ZeRO-1 interleaved-1f1b mb=1 selective" ("... EP=64 DeepEP ..." with DeepEP, "CP=4 a2a ..."
// with Ulysses' all-to-all).
std::string describe(const SearchPoint& p);
// The base scenario with the point's degrees and knobs applied.
Scenario applyPoint(const Scenario& base, const SearchPoint& p);
// A point's token dispatcher on a training configuration: with ep > 1 `d` (DeepSeek's fp8 dispatch, a DeepEP
// mode, dropped under NCCL's all-to-all); with ep = 1 nothing changes.
void applyDispatcher(TrainingConfig& t, int ep, MoeDispatcher d);
// A point's context-parallel communication on a parallel configuration: with cp > 1 the point's type and level;
// with cp = 1 nothing changes.
void applyCpComm(ParallelConfig& p, const SearchPoint& point);
// The point a scenario's configuration corresponds to.
SearchPoint pointOf(const Scenario& s);

// The degrees (tp, cp, pp, dp) of one way to factor the GPUs; the unit of work of the search.
struct Layout {
    int tp = 1;
    int cp = 1;
    int pp = 1;
    int dp = 1;
};

// One context-parallel communication: the type and, for a2a+p2p, the all-to-all level (0 otherwise).
struct CpCommChoice {
    CpCommType type = CpCommType::P2p;
    int a2aSize = 0;
};

// Pipeline schedule shape: kind and virtual stages.
struct ScheduleChoice {
    ScheduleKind kind = ScheduleKind::OneFOneB;
    int vpp = 1;
};

// The point of one layout, expert degree, schedule and micro-batch, with the given knobs.
inline SearchPoint pointAt(const Layout& l, int ep, const ScheduleChoice& s, int microBatch,
    Recompute recompute = Recompute::None, int zero = 0)
{
    return { l.tp, l.cp, l.pp, s.vpp, l.dp, ep, zero, microBatch, s.kind, recompute, 0, 0 };
}

// Whether `layers` fill `stages` model stages as validateScenario accepts them (core/Validation.cpp):
// up to two more stages than layers, the first then holding only the embedding and the last only the
// LM head and loss (Megatron-Core --account-for-embedding-in-pipeline-split / -loss-).
bool stagesHoldLayers(int layers, int stages);

// Bounds of the enumeration. Defaults cover every schedule the engine simulates.
struct SearchLimits {
    int maxMicroBatch = 16;
    int maxVirtualStages = 8;
    bool includeGPipe = true;
    bool includeZeroBubble = true; // ZB-H1, ZB-H2, ZB-V
    bool includeDualPipe = true; // DualPipe and DualPipeV, for MoE models only (arXiv:2412.19437 sec. 3.2.1)
    // DeepEP's dispatch and combine (deepseek-ai/DeepEP; Megatron-Core's flex dispatcher) beside NCCL's
    // all-to-all, for MoE layouts with ep > 1; off: the scenario's own dispatcher only.
    bool includeDeepEp = true;
    // Ulysses' all-to-all and the hierarchical a2a+p2p (Megatron-Core --cp-comm-type) beside the ring, for layouts
    // with cp > 1; off: the scenario's own type only.
    bool includeCpCommTypes = true;
};

// Enumerates the configurations validateScenario accepts, without building scenarios: the same
// divisibility rules (heads, kv heads, FFN and sequence over tp; sequence over 2 cp; experts and
// tp*cp*dp over ep; global batch over micro-batch * dp; schedule shapes) checked arithmetically.
class SearchSpace {
public:
    SearchSpace(const Scenario& base, const SearchLimits& limits = {});

    int gpus() const { return m_gpus; }
    int domainSize() const { return m_domainSize; } // GPUs of the smallest NVLink domain
    const std::vector<Layout>& layouts() const { return m_layouts; }
    std::vector<int> expertDegrees(const Layout& l) const;
    std::vector<int> microBatches(const Layout& l) const;
    // Schedules valid for pp ranks and m micro-batches per pipeline.
    std::vector<ScheduleChoice> schedules(int pp, int microbatches) const;
    std::vector<int> zeroStages(const Layout& l, int ep) const;
    // The token dispatchers worth trying at expert degree `ep`: one (all-to-all, nothing to dispatch) at ep = 1.
    std::vector<MoeDispatcher> dispatchers(int ep) const;
    // The context-parallel communications worth trying on layout `l`: one (the ring, nothing to exchange) at
    // cp = 1; else the ring, all_gather, Ulysses' all-to-all where the heads of a TP rank split over cp, and a2a+p2p
    // where tp x cp outgrows the NVLink domain (the all-to-all inside it, the ring across); with
    // SearchLimits::includeCpCommTypes off, the scenario's own type.
    std::vector<CpCommChoice> cpCommChoices(const Layout& l) const;
    // Each pairing of dispatchers(ep) and cpCommChoices(l): the variants of one (layout, ep).
    std::vector<std::pair<MoeDispatcher, CpCommChoice>> variants(const Layout& l, int ep) const;
    static constexpr Recompute kRecomputeModes[3] = { Recompute::None, Recompute::Selective, Recompute::Full };
    // The modes worth trying: selective recompute rebuilds nothing under fused attention.
    bool offersRecompute(Recompute r) const
    {
        return r != Recompute::Selective || !m_base.training.flashAttention
            || (m_base.training.recomputeModules & ~recompute_module::kCoreAttn) != 0;
    }

private:
    const Scenario& m_base;
    SearchLimits m_limits;
    int m_gpus = 0;
    int m_domainSize = 0;
    int m_seq = 0;
    std::vector<Layout> m_layouts;
};

} // namespace parallax::core
