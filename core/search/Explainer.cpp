// SPDX-License-Identifier: Apache-2.0
#include "core/search/Explainer.h"

#include "core/Units.h"
#include "core/Validation.h"
#include "core/costs/CostModel.h"
#include "core/memory/RangeText.h"
#include "core/schedule/PipelineSchedule.h"
#include "core/search/NumberText.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

namespace parallax::core {

namespace {
// The step time's parts, seconds per step on the critical path (Report::step and ::comm).
struct StepParts {
    double compute = 0, bubble = 0, tp = 0, cp = 0, ep = 0, dp = 0, optimizer = 0;
};

bool overlapsComm(ScheduleKind k)
{
    return k == ScheduleKind::DualPipe || k == ScheduleKind::DualPipeV;
}

StepParts partsOf(const SearchPoint& p, const Report& r)
{
    StepParts s;
    const double busy = r.step.computeSeconds;
    // DualPipe hides the TP/CP/EP traffic of one chunk behind the other's compute
    // (arXiv:2412.19437 sec. 3.2.1): its op times already hold only the exposed part.
    if (!overlapsComm(p.schedule) || p.pp == 1) {
        s.tp = r.comm.tpSeconds;
        s.cp = r.comm.cpSeconds;
        s.ep = r.comm.epSeconds;
    }
    s.compute = std::max(0.0, busy - s.tp - s.cp - s.ep);
    s.bubble = std::max(0.0, r.step.pipelineSeconds - busy);
    s.dp = r.step.dpExposedSeconds;
    s.optimizer = r.step.optimizerSeconds;
    return s;
}

std::string slowerText(const Report& winner, const Report& loser)
{
    const double f = winner.stepTimeSeconds > 0 ? loser.stepTimeSeconds / winner.stepTimeSeconds - 1.0 : 0.0;
    if (f < 0.0005 && std::fabs(loser.peakMemoryBytes - winner.peakMemoryBytes) < 0.05 * kGiB)
        return "the same step time and peak memory as the winner (" + secondsText(loser.stepTimeSeconds) + ", "
            + gibText(loser.peakMemoryBytes) + "): an equivalent layout, listed after it";
    if (f < 0.0005)
        return "the same step time within 0.1% (" + secondsText(loser.stepTimeSeconds) + "), ranked lower for its peak "
            + gibText(loser.peakMemoryBytes) + " against " + gibText(winner.peakMemoryBytes);
    return percentText(f) + " slower (" + secondsText(loser.stepTimeSeconds) + " against "
        + secondsText(winner.stepTimeSeconds) + " per step)";
}

std::string memoryParts(const StageMemory& st)
{
    return "weights " + gibText(st.weightsBytes) + ", grads " + gibText(st.gradsBytes) + ", optimizer "
        + gibText(st.optimizerBytes) + ", activations " + gibText(st.activationsBytes) + ", other "
        + gibText(st.otherBytes);
}

} // namespace

Reason Explainer::outOfMemory(const Report& r)
{
    const StageMemory& st = r.stages[r.peakMemoryStage];
    Reason reason;
    reason.kind = ReasonKind::OutOfMemory;
    reason.text = "out of memory by " + gibText(r.peakMemoryBytes - r.hbmBytes) + " on stage "
        + std::to_string(st.stage) + ": it needs " + gibText(r.peakMemoryBytes) + " > " + gibText(r.hbmBytes, 0)
        + " of HBM (" + memoryParts(st) + ")";
    reason.brief
        = "stage " + std::to_string(st.stage) + " needs " + gibText(r.peakMemoryBytes) + " > " + gibText(r.hbmBytes, 0);
    return reason;
}

namespace {
// The keys a point's attention kernels see at once (CostModel's attentionKernelKeys).
long long kernelKeys(const SearchPoint& p, int seqLen)
{
    return std::llround(attentionKernelKeys(seqLen, p.cpComm, p.cp, p.cpA2aSize));
}

// "ring attention (p2p)", "Ulysses' all-to-all (a2a)": how a point's CP ranks exchange the sequence.
std::string cpCommName(const SearchPoint& p)
{
    switch (p.cpComm) {
    case CpCommType::P2p:
        return "ring attention (p2p)";
    case CpCommType::AllGather:
        return "the K/V all-gather (all_gather)";
    case CpCommType::A2a:
        return "Ulysses' all-to-all (a2a)";
    case CpCommType::A2aP2p:
        return "all-to-alls within " + std::to_string(p.cpA2aSize) + " ranks and a ring across (a2a+p2p)";
    }
    return toString(p.cpComm);
}

// What makes the busiest pipeline rank of the loser `l` compute more than the winner `w`'s: the dimensions
// that shrink its GEMMs, then the balance of its pipeline where that differs from the winner's.
std::string computeCause(
    const SearchPoint& w, const Report& wr, const SearchPoint& l, const Report& lr, const Scenario& base)
{
    const int seqLen = base.seqLen();
    std::vector<std::string> causes;
    const auto str = [](auto v) { return std::to_string(v); };
    // DeepEP's kernels keep their SMs while the dispatch and combine run beside the compute (MoeCosts,
    // dispatchSmSeconds): the compute beside them goes at the remaining SMs' rate.
    if (l.ep > 1 && l.dispatcher == MoeDispatcher::DeepEp && (w.ep <= 1 || w.dispatcher != MoeDispatcher::DeepEp)) {
        const int sms = base.topology.domains.empty() ? 0 : base.topology.domains.front().gpu.smCount;
        causes.push_back("DeepEP's kernels hold " + str(base.training.moeDeepepNumSms)
            + (sms > 0 ? " of the " + str(sms) + " SMs" : std::string(" SMs"))
            + " while its dispatch and combine run beside the compute");
    }
    // NCCL's all-to-all sends one copy of a token per expert, DeepEP one per node (arXiv:2412.19437 sec. 3.2.2):
    // the expert-parallel traffic a busiest rank waits for.
    if (w.ep > 1 && w.dispatcher == MoeDispatcher::DeepEp && l.ep > 1 && l.dispatcher != MoeDispatcher::DeepEp)
        causes.push_back("NCCL's all-to-all: " + secondsText(lr.comm.epSeconds)
            + " of expert-parallel communication per step against " + secondsText(wr.comm.epSeconds) + " with DeepEP");
    if (l.tp > w.tp)
        causes.push_back("TP=" + str(l.tp) + " against " + str(w.tp) + " splits every GEMM " + str(l.tp) + " ways");
    if (l.cp > w.cp)
        causes.push_back("CP=" + str(l.cp) + " leaves " + str(seqLen / l.cp) + " tokens of a sequence per GPU against "
            + str(seqLen / w.cp));
    // The fused attention kernel's rate grows with the keys it sees at once (CostModel's fusedAttentionByWindow):
    // the ring runs it over chunks of seqLen/cp keys, Ulysses' all-to-all and the all_gather over the whole sequence.
    const long long keysL = kernelKeys(l, seqLen);
    const long long keysW = kernelKeys(w, seqLen);
    if (keysL < keysW)
        causes.push_back("with " + cpCommName(l) + " its attention kernels see " + str(keysL)
            + " keys at a time against " + str(keysW));
    if (l.microBatch < w.microBatch)
        causes.push_back("micro-batches of " + str(l.microBatch) + " against " + str(w.microBatch)
            + " sequences: fewer rows per GEMM");
    const auto& busy = lr.schedule.busySecondsPerRank;
    const int busiest = busy.empty() ? 0 : static_cast<int>(std::max_element(busy.begin(), busy.end()) - busy.begin());
    const auto stagesOf = [](const SearchPoint& p) { return modelStageCount({ p.schedule, p.pp, 1, p.vpp }); };
    const int stages = stagesOf(l);
    const bool pipelineDiffers = stages != stagesOf(w) || l.schedule != w.schedule;
    int layers = 0;
    for (const auto& st : lr.stages)
        layers += st.layers;
    if (l.pp > 1 && pipelineDiffers) {
        if (rankHoldsStage({ l.schedule, l.pp, 1, l.vpp }, busiest, stages - 1))
            causes.emplace_back("its busiest rank also runs the LM head");
        if (layers % stages != 0)
            causes.push_back(str(layers) + " layers do not divide into " + str(stages) + " stages");
    }
    if (causes.empty())
        return "smaller GEMMs and more element-wise work per GPU";
    std::string text;
    for (const std::string& c : causes)
        text += (text.empty() ? "" : "; ") + c;
    return text;
}

// What selective recompute re-runs: the attention core (Megatron-Core's default, arXiv:2205.05198 sec. 5)
// or the scenario's training.recompute_modules (Megatron-Core --recompute-modules).
std::string selectiveRecomputeText(unsigned modules)
{
    if (modules == recompute_module::kCoreAttn)
        return "the attention core in the backward (arXiv:2205.05198 sec. 5)";
    std::string names;
    for (const std::string& name : recomputeModuleNames(modules))
        names += (names.empty() ? "" : ", ") + name;
    return names + " (training.recompute_modules) in the backward (Megatron-Core --recompute-modules)";
}

int recomputeRank(Recompute r)
{
    return r == Recompute::None ? 0 : r == Recompute::Selective ? 1 : 2;
}

std::string scheduleName(const SearchPoint& p)
{
    if (p.pp == 1)
        return "no pipeline";
    std::string s = toString(p.schedule);
    if (p.vpp > 1)
        s += " v=" + std::to_string(p.vpp);
    return s;
}
} // namespace

Explainer::Explainer(const Scenario& base, const Calibration* calibration, ReportLookup reports, FamilyLookup families)
    : m_base(base)
    , m_reports(std::move(reports))
    , m_families(std::move(families))
    , m_geometry(base, calibration)
{
    for (const auto& d : base.topology.domains)
        m_domainSize = m_domainSize == 0 ? d.gpuCount : std::min(m_domainSize, d.gpuCount);
}

std::pair<double, double> Explainer::tpAllReducePerLayer(const SearchPoint& p)
{
    const LayoutComm comm = m_geometry.layoutComm({ p.tp, p.cp, p.pp, p.dp }, p.ep);
    // The bytes of the engine's TP warning: s b h 16-bit values per all-reduce (or AG + RS with SP).
    const double bytes = 2.0 * m_base.seqLen() / p.cp * p.microBatch * static_cast<double>(m_base.model.hidden);
    CommGroup nvlinkOnly = comm.tp;
    nvlinkOnly.outer = 1;
    nvlinkOnly.inner = nvlinkOnly.size;
    return { 4.0 * comm.tp.seconds(CollectiveKind::AllReduce, bytes),
        4.0 * nvlinkOnly.seconds(CollectiveKind::AllReduce, bytes) };
}

Reason Explainer::explainLoss(const SearchPoint& w, const Report& wr, const SearchPoint& l, const Report& lr)
{
    if (!lr.valid) {
        Reason r;
        r.kind = ReasonKind::Choice;
        r.text = "not valid: " + (lr.errors.empty() ? std::string("?") : lr.errors.front().text);
        r.brief = "not valid";
        return r;
    }
    if (!lr.fits)
        return outOfMemory(lr);
    const std::string slower = slowerText(wr, lr);
    Reason r;
    if (lr.groupsCrossingDomains[static_cast<int>(Dim::Tp)] > 0) {
        const auto [ib, nv] = tpAllReducePerLayer(l);
        r.kind = ReasonKind::TpCrossesDomain;
        r.text = "TP=" + std::to_string(l.tp) + " crosses the " + std::to_string(m_domainSize)
            + "-GPU NVLink domain: its all-reduces run over IB, " + secondsText(ib)
            + " per layer and micro-batch against " + secondsText(nv) + " on NVLink (" + secondsText(lr.comm.tpSeconds)
            + " of TP communication per step); " + slower;
        r.brief = "TP over IB: " + secondsText(ib) + "/layer vs " + secondsText(nv) + " on NVLink, "
            + percentText(lr.stepTimeSeconds / wr.stepTimeSeconds - 1.0) + " slower";
        return r;
    }
    const StepParts a = partsOf(w, wr), b = partsOf(l, lr);
    const std::array<double, 7> delta { b.compute - a.compute, b.bubble - a.bubble, b.tp - a.tp, b.cp - a.cp,
        b.ep - a.ep, b.dp - a.dp, b.optimizer - a.optimizer };
    const auto largest = std::max_element(delta.begin(), delta.end()) - delta.begin();
    if (delta[largest] <= 0) {
        r.kind = ReasonKind::Choice;
        r.text = slower;
        r.brief = slower;
        return r;
    }
    switch (largest) {
    case 0:
        if (recomputeRank(l.recompute) > recomputeRank(w.recompute)) {
            r.kind = ReasonKind::Recompute;
            r.text = std::string(toString(l.recompute)) + " recompute re-runs "
                + (l.recompute == Recompute::Full
                        ? std::string("the whole forward in the backward (arXiv:2205.05198 sec. 5)")
                        : selectiveRecomputeText(m_base.training.recomputeModules))
                + ": the busiest rank computes " + secondsText(b.compute) + " per step against "
                + secondsText(a.compute) + " (HFU " + percentText(lr.hfu) + ", MFU " + percentText(lr.mfu) + "); "
                + slower;
            r.brief = std::string(toString(l.recompute)) + " recompute: " + secondsText(b.compute) + " vs "
                + secondsText(a.compute) + " compute";
        } else {
            r.kind = ReasonKind::Compute;
            r.text = "the busiest pipeline rank computes " + secondsText(b.compute) + " per step against "
                + secondsText(a.compute) + " (" + computeCause(w, wr, l, lr, m_base) + "); " + slower;
            r.brief = "busiest rank computes " + secondsText(b.compute) + " vs " + secondsText(a.compute);
        }
        break;
    case 1:
        r.kind = ReasonKind::Bubble;
        r.text = "pipeline bubble " + percentText(lr.bubbleFraction) + " against " + percentText(wr.bubbleFraction)
            + " (" + scheduleName(l) + ", " + std::to_string(lr.microbatches)
            + (lr.microbatches == 1 ? " micro-batch" : " micro-batches") + " over PP=" + std::to_string(l.pp)
            + "): " + secondsText(b.bubble) + " idle per step against " + secondsText(a.bubble) + "; " + slower;
        r.brief = "bubble " + percentText(lr.bubbleFraction) + " vs " + percentText(wr.bubbleFraction);
        break;
    case 2:
        r.kind = ReasonKind::TensorParallelComm;
        r.text = "TP=" + std::to_string(l.tp) + " all-reduces cost " + secondsText(b.tp) + " per step against "
            + secondsText(a.tp) + " at TP=" + std::to_string(w.tp) + "; " + slower;
        r.brief = "TP comm " + secondsText(b.tp) + " vs " + secondsText(a.tp);
        break;
    case 3:
        r.kind = ReasonKind::ContextParallelComm;
        r.text = "CP=" + std::to_string(l.cp) + " over " + cpCommName(l) + " exposes " + secondsText(b.cp)
            + " per step of context-parallel exchange against " + secondsText(a.cp)
            + (w.cp > 1 ? " over " + cpCommName(w) : std::string()) + "; " + slower;
        r.brief = "CP comm " + secondsText(b.cp) + " vs " + secondsText(a.cp);
        break;
    case 4: {
        const int domains = lr.groupsCrossingDomains[static_cast<int>(Dim::Ep)] > 0
            ? std::max(2, l.ep / std::max(1, m_domainSize))
            : 1;
        const double imbalance = expertLoadFactor(m_base.training, EfficiencyDefaults {}.expertLoadImbalance);
        r.kind = ReasonKind::ExpertAllToAll;
        r.text = "MoE all-to-all: EP=" + std::to_string(l.ep)
            + (domains > 1 ? " spans " + std::to_string(domains) + " NVLink domains, so dispatch and combine cross IB"
                           : " stays in one NVLink domain")
            + "; sized for the busiest expert at " + fixedText(imbalance, 2) + "x the mean load ("
            + (m_base.training.moeExpertCapacityFactor > 0 ? "training.moe_expert_capacity_factor" : "load imbalance")
            + "; GShard capacity factor, arXiv:2006.16668 sec. 2.2) it costs " + secondsText(b.ep)
            + " per step against " + secondsText(a.ep)
            + (imbalance > 1.0 ? ", of which the imbalance alone is " + secondsText(b.ep * (1.0 - 1.0 / imbalance))
                               : "")
            + "; " + slower;
        r.brief = "all-to-all " + secondsText(b.ep) + " vs " + secondsText(a.ep) + " (" + fixedText(imbalance, 2)
            + "x imbalance" + (domains > 1 ? ", over IB)" : ")");
        break;
    }
    case 5:
        r.kind = ReasonKind::DataParallelSync;
        r.text = "data-parallel sync exposes " + secondsText(b.dp) + " per step against " + secondsText(a.dp)
            + " (ZeRO-" + std::to_string(l.zero)
            + (l.zero >= 3 ? " gathers the weights again for every micro-batch, arXiv:1910.02054 sec. 7.2.2" : "")
            + ", DP=" + std::to_string(l.dp) + "); " + slower;
        r.brief = "DP sync " + secondsText(b.dp) + " vs " + secondsText(a.dp);
        break;
    default:
        r.kind = ReasonKind::Optimizer;
        r.text = "the optimizer step reads and writes " + gibText(lr.stages[lr.peakMemoryStage].optimizerBytes)
            + " of optimizer states per GPU (ZeRO-" + std::to_string(l.zero) + "): " + secondsText(b.optimizer)
            + " against " + secondsText(a.optimizer) + "; " + slower;
        r.brief = "optimizer " + secondsText(b.optimizer) + " vs " + secondsText(a.optimizer);
        break;
    }
    if (wr.stepTimeSeconds > 0)
        r.brief += ", " + percentText(lr.stepTimeSeconds / wr.stepTimeSeconds - 1.0) + " slower";
    return r;
}

std::optional<SearchPoint> Explainer::neighbour(const SearchPoint& w, const FamilyKey& family) const
{
    SearchPoint p = w;
    const int gpus = m_base.topology.gpuCount();
    auto rebalance = [&]() {
        const long long model = static_cast<long long>(p.tp) * p.cp * p.pp;
        if (model <= 0 || gpus % model != 0)
            return false;
        p.dp = static_cast<int>(gpus / model);
        if (m_base.model.isMoe()) {
            // Keep EP a divisor of the stage's ranks and the experts.
            const long long stageRanks = static_cast<long long>(p.tp) * p.cp * p.dp;
            p.ep = static_cast<int>(std::gcd(static_cast<long long>(p.ep), stageRanks));
        }
        return true;
    };
    switch (family.dim) {
    case FamilyDim::Tp:
        p.tp = family.value;
        if (!rebalance())
            return std::nullopt;
        break;
    case FamilyDim::Cp:
        p.cp = family.value;
        if (!rebalance())
            return std::nullopt;
        break;
    case FamilyDim::Pp:
        p.pp = family.value;
        if (!rebalance())
            return std::nullopt;
        break;
    case FamilyDim::Ep:
        p.ep = family.value;
        break;
    case FamilyDim::Zero:
        p.zero = family.value;
        break;
    case FamilyDim::MicroBatch:
        p.microBatch = family.value;
        break;
    case FamilyDim::Recompute:
        p.recompute = static_cast<Recompute>(family.value);
        break;
    case FamilyDim::Schedule:
        if (w.pp == 1)
            return std::nullopt;
        p.schedule = static_cast<ScheduleKind>(family.value / 256);
        p.vpp = family.value % 256;
        break;
    case FamilyDim::Dispatcher:
        if (w.ep <= 1)
            return std::nullopt; // nothing to dispatch: the family's own best answers
        p.dispatcher = static_cast<MoeDispatcher>(family.value);
        break;
    case FamilyDim::CpComm: {
        const CpCommChoice c = cpCommOfValue(family.value);
        if (w.cp <= 1 || !cpCommTypeFits(m_base.model, c.type, c.a2aSize, w.tp, w.cp))
            return std::nullopt; // nothing to exchange, or another layout's level: the family's own best answers
        p.cpComm = c.type;
        p.cpA2aSize = c.a2aSize;
        break;
    }
    case FamilyDim::Count:
        return std::nullopt;
    }
    if (p.pp == 1) {
        p.schedule = ScheduleKind::OneFOneB;
        p.vpp = 1;
    } else {
        const long long perStep = static_cast<long long>(p.microBatch) * p.dp;
        const int m = perStep > 0 ? static_cast<int>(m_base.training.globalBatch / perStep) : 0;
        const ScheduleShape shape { p.schedule, p.pp, m, p.vpp };
        if (family.dim != FamilyDim::Schedule
            && (!checkShape(shape).empty() || !stagesHoldLayers(m_base.model.layers, modelStageCount(shape)))) {
            p.schedule = ScheduleKind::OneFOneB;
            p.vpp = 1;
        }
    }
    if (p.ep <= 1)
        p.dispatcher = MoeDispatcher::AllToAll; // as the space enumerates it: nothing to dispatch
    if (p.cp <= 1 || !cpCommTypeFits(m_base.model, p.cpComm, p.cpA2aSize, p.tp, p.cp)) {
        p.cpComm = CpCommType::P2p; // as the space enumerates it: the ring runs on every layout
        p.cpA2aSize = 0;
    }
    if (p == w)
        return std::nullopt;
    return p;
}

std::optional<Explainer::FamilyVerdict> Explainer::explainFamily(
    const SearchPoint& w, const Report& wr, const FamilyKey& family)
{
    const std::optional<SearchPoint> near = neighbour(w, family);
    const Report* nr = near ? m_reports(*near) : nullptr;
    const std::optional<SearchPoint> rep = m_families(family);
    const Report* rr = rep ? m_reports(*rep) : nullptr;
    if (nr) {
        FamilyVerdict v { *near, explainLoss(w, wr, *near, *nr) };
        if (!nr->fits && rr && rr->fits) {
            const Reason best = explainLoss(w, wr, *rep, *rr);
            v.reason.text += "; the best " + familyLabel(family) + " configuration that fits (" + describe(*rep)
                + ") loses by " + best.brief;
        }
        return v;
    }
    if (rr)
        return FamilyVerdict { *rep, explainLoss(w, wr, *rep, *rr) };
    return std::nullopt;
}

std::vector<Reason> Explainer::explainWinner(const SearchPoint& w, const Report& r)
{
    std::vector<Reason> out;
    const StageMemory& st = r.stages[r.peakMemoryStage];
    Reason fits;
    fits.kind = ReasonKind::Fits;
    fits.text = "peak " + gibText(r.peakMemoryBytes) + " on stage " + std::to_string(st.stage) + ", "
        + gibText(r.hbmBytes - r.peakMemoryBytes) + " under the " + gibText(r.hbmBytes, 0) + " of HBM ("
        + memoryParts(st) + ")";
    fits.brief = "peak " + gibText(r.peakMemoryBytes) + " of " + gibText(r.hbmBytes, 0);
    if (r.memoryVerdict == MemoryVerdict::Tight) {
        // Tight candidates stay in the ranking (they may well run), flagged so that the reader can weigh the risk.
        fits.text = "tight: peak " + gibRangeText(r.peakMemoryBytes, r.peakMemoryLowBytes, r.peakMemoryHighBytes)
            + " on stage " + std::to_string(st.stage) + " straddles the " + gibText(r.hbmBytes, 0)
            + " of HBM within the memory model's measured error (" + memoryParts(st) + ")";
        fits.brief = "tight: peak " + gibText(r.peakMemoryBytes) + " of " + gibText(r.hbmBytes, 0);
    }
    out.push_back(fits);
    for (auto reason : { tpReason(w, r), cpReason(w, r), ppReason(w, r), scheduleReason(w, r), recomputeReason(w, r),
             zeroReason(w, r), dataAndExpertReason(w, r) }) {
        if (reason)
            out.push_back(*reason);
    }
    return out;
}

std::optional<Reason> Explainer::tpReason(const SearchPoint& w, const Report& r)
{
    Reason reason;
    reason.kind = ReasonKind::Choice;
    const bool crosses = r.groupsCrossingDomains[static_cast<int>(Dim::Tp)] > 0;
    if (w.tp > 1) {
        const auto [actual, nv] = tpAllReducePerLayer(w);
        if (crosses) {
            reason.kind = ReasonKind::TpCrossesDomain;
            reason.text = "TP=" + std::to_string(w.tp) + " crosses the NVLink domain (" + secondsText(actual)
                + " per layer and micro-batch over IB against " + secondsText(nv)
                + " on NVLink), yet every configuration that keeps TP inside a domain is slower or does not fit";
            reason.brief = "TP=" + std::to_string(w.tp) + " over IB (nothing else wins)";
            return reason;
        }
        reason.text = "TP=" + std::to_string(w.tp) + " keeps the tensor-parallel all-reduces on NVLink ("
            + secondsText(actual) + " per layer and micro-batch, " + secondsText(r.comm.tpSeconds) + " per step)";
        reason.brief = "TP=" + std::to_string(w.tp) + " on NVLink";
    } else {
        reason.text = "TP=1: no tensor-parallel collectives at all";
        reason.brief = "TP=1";
    }
    // The nearest TP values on either side, and why they lose; the brief keeps the first.
    bool briefed = false;
    for (int other : { w.tp / 2, w.tp * 2 }) {
        if (other < 1 || other == w.tp)
            continue;
        if (const auto verdict = explainFamily(w, r, { FamilyDim::Tp, other })) {
            reason.text += "; TP=" + std::to_string(other) + ": " + verdict->reason.brief;
            if (!briefed)
                reason.brief += " (TP=" + std::to_string(other) + ": " + verdict->reason.brief + ")";
            briefed = true;
        }
    }
    return reason;
}

std::optional<Reason> Explainer::cpReason(const SearchPoint& w, const Report& r)
{
    if (w.cp <= 1)
        return std::nullopt; // "why not CP=2" is the CP family's answer
    Reason reason;
    reason.kind = ReasonKind::Choice;
    reason.text = "CP=" + std::to_string(w.cp) + " over " + cpCommName(w) + ": " + secondsText(r.comm.cpSeconds)
        + " of context-parallel exchange per step, attention kernels over "
        + std::to_string(kernelKeys(w, m_base.seqLen())) + " keys at a time";
    reason.brief = "CP=" + std::to_string(w.cp) + " " + cpCommText(w.cpComm, w.cp, w.cpA2aSize);
    // The other communications the search tried on this layout, and what each would cost. USP (arXiv:2405.07719)
    // runs Ulysses inside the high-bandwidth group and the ring across it: the engine prices each and ranks them.
    bool briefed = false;
    std::vector<CpCommChoice> others { { CpCommType::P2p, 0 }, { CpCommType::AllGather, 0 }, { CpCommType::A2a, 0 } };
    for (int a : divisorsOf(w.cp)) {
        if (a > 1 && a < w.cp)
            others.push_back({ CpCommType::A2aP2p, a });
    }
    for (const CpCommChoice& c : others) {
        SearchPoint other = w;
        other.cpComm = c.type;
        other.cpA2aSize = c.a2aSize;
        if (other == w || !m_families({ FamilyDim::CpComm, cpCommValue(c.type, c.a2aSize) })
            || !cpCommTypeFits(m_base.model, c.type, c.a2aSize, w.tp, w.cp))
            continue;
        const Report* o = m_reports(other);
        if (!o || !o->valid)
            continue;
        const bool slower = o->stepTimeSeconds >= r.stepTimeSeconds;
        reason.text += "; " + cpCommName(other) + " "
            + (!o->fits      ? "needs " + gibText(o->peakMemoryBytes) + " > " + gibText(o->hbmBytes, 0)
                    : slower ? "exposes " + secondsText(o->comm.cpSeconds) + " and is " + slowerText(r, *o)
                             : "exposes " + secondsText(o->comm.cpSeconds) + " and would take "
                        + secondsText(o->stepTimeSeconds) + " per step");
        if (!briefed && o->fits && slower && r.stepTimeSeconds > 0) { // the brief keeps the first
            reason.brief += std::string(" (") + toString(c.type) + ": "
                + percentText(o->stepTimeSeconds / r.stepTimeSeconds - 1.0) + " slower)";
            briefed = true;
        }
    }
    return reason;
}

std::optional<Reason> Explainer::ppReason(const SearchPoint& w, const Report& r)
{
    Reason reason;
    reason.kind = ReasonKind::Choice;
    if (w.pp == 1) {
        reason.text = "PP=1: no pipeline bubble and no point-to-point traffic";
        reason.brief = "PP=1";
        for (int pp = 2; pp <= 2 * m_domainSize; ++pp) {
            if (!m_families({ FamilyDim::Pp, pp }))
                continue;
            if (const auto verdict = explainFamily(w, r, { FamilyDim::Pp, pp })) {
                reason.text += "; PP=" + std::to_string(pp) + ": " + verdict->reason.brief;
                reason.brief += " (PP=" + std::to_string(pp) + ": " + verdict->reason.brief + ")";
            }
            break;
        }
        return reason;
    }
    reason.text = "PP=" + std::to_string(w.pp);
    reason.brief = reason.text;
    // The next smaller pipeline depth the search met, on the winner's layout when possible.
    for (int pp = w.pp - 1; pp >= 1; --pp) {
        if (!m_families({ FamilyDim::Pp, pp }))
            continue;
        const auto verdict = explainFamily(w, r, { FamilyDim::Pp, pp });
        const Report* vr = verdict ? m_reports(verdict->point) : nullptr;
        if (!vr)
            continue;
        const std::string at = "PP=" + std::to_string(pp) + " (" + describe(verdict->point) + ")";
        if (!vr->fits) {
            reason.kind = ReasonKind::OutOfMemory;
            reason.text += " because at " + at + " stage " + std::to_string(vr->peakMemoryStage) + " needs "
                + gibText(vr->peakMemoryBytes) + " > " + gibText(vr->hbmBytes, 0);
            reason.brief = "PP=" + std::to_string(w.pp) + ": at PP=" + std::to_string(pp) + " stage "
                + std::to_string(vr->peakMemoryStage) + " needs " + gibText(vr->peakMemoryBytes) + " > "
                + gibText(vr->hbmBytes, 0);
        } else {
            reason.text += ": " + at + " fits but loses: " + verdict->reason.text;
            reason.brief
                = "PP=" + std::to_string(w.pp) + " (PP=" + std::to_string(pp) + ": " + verdict->reason.brief + ")";
        }
        return reason;
    }
    reason.text += ": the smallest pipeline depth the search could run";
    return reason;
}

std::optional<Reason> Explainer::scheduleReason(const SearchPoint& w, const Report& r)
{
    if (w.pp == 1)
        return std::nullopt;
    Reason reason;
    reason.kind = ReasonKind::Choice;
    SearchPoint plain = w;
    plain.schedule = ScheduleKind::OneFOneB;
    plain.vpp = 1;
    if (w.schedule == ScheduleKind::OneFOneB) {
        SearchPoint interleaved = w;
        interleaved.schedule = ScheduleKind::Interleaved1F1B;
        interleaved.vpp = 2;
        const Report* ir = m_reports(interleaved);
        reason.text = "1F1B: bubble " + percentText(r.bubbleFraction);
        reason.brief = "1F1B, bubble " + percentText(r.bubbleFraction);
        if (ir) {
            reason.text += "; interleaving (v=2) would cut it to " + percentText(ir->bubbleFraction) + " but "
                + (ir->fits ? "is " + slowerText(r, *ir)
                            : "needs " + gibText(ir->peakMemoryBytes) + " on stage "
                            + std::to_string(ir->peakMemoryStage) + " > " + gibText(ir->hbmBytes, 0));
        }
        return reason;
    }
    const Report* pr = m_reports(plain);
    if (!pr)
        return std::nullopt;
    const std::string name = scheduleName(w);
    if (w.schedule == ScheduleKind::Interleaved1F1B) {
        reason.kind = ReasonKind::Bubble;
        reason.text = "v=" + std::to_string(w.vpp) + " cuts the bubble from " + percentText(pr->bubbleFraction) + " to "
            + percentText(r.bubbleFraction) + " (" + secondsText(pr->stepTimeSeconds) + " per step under 1F1B"
            + (pr->fits ? "" : ", which does not fit") + ")";
        reason.brief = "v=" + std::to_string(w.vpp) + ": bubble " + percentText(pr->bubbleFraction) + " -> "
            + percentText(r.bubbleFraction);
    } else if (overlapsComm(w.schedule)) {
        reason.kind = ReasonKind::ExpertAllToAll;
        reason.text = name
            + " overlaps the all-to-all and pipeline traffic with compute (arXiv:2412.19437 sec. 3.2.1): "
            + secondsText(r.stepTimeSeconds) + " per step against " + secondsText(pr->stepTimeSeconds)
            + " under 1F1B (bubble " + percentText(r.bubbleFraction) + " vs " + percentText(pr->bubbleFraction) + ")";
        reason.brief
            = name + ": " + secondsText(r.stepTimeSeconds) + " vs " + secondsText(pr->stepTimeSeconds) + " (1F1B)";
    } else {
        reason.kind = ReasonKind::Bubble;
        reason.text = name + " splits the backward into B and W and fills the bubble with W (arXiv:2401.10241): bubble "
            + percentText(r.bubbleFraction) + " against " + percentText(pr->bubbleFraction) + " under 1F1B";
        reason.brief = name + ": bubble " + percentText(pr->bubbleFraction) + " -> " + percentText(r.bubbleFraction);
    }
    return reason;
}

std::optional<Reason> Explainer::recomputeReason(const SearchPoint& w, const Report& r)
{
    Reason reason;
    reason.kind = ReasonKind::Recompute;
    const StageMemory& st = r.stages[r.peakMemoryStage];
    if (w.recompute == Recompute::None) {
        reason.text = "no activation recompute: " + gibText(st.activationsBytes) + " of activations on stage "
            + std::to_string(st.stage) + " fit";
        reason.brief = "no recompute";
        return reason;
    }
    SearchPoint lighter = w;
    // Under fused attention selective recompute rebuilds nothing: the lighter step is none.
    const bool selectiveHelps = !m_base.training.flashAttention;
    lighter.recompute = w.recompute == Recompute::Full && selectiveHelps ? Recompute::Selective : Recompute::None;
    const Report* lr = m_reports(lighter);
    reason.text = std::string(toString(w.recompute)) + " recompute";
    reason.brief = reason.text;
    if (!lr)
        return reason;
    if (!lr->fits) {
        reason.kind = ReasonKind::OutOfMemory;
        reason.text += " because with " + std::string(toString(lighter.recompute)) + " stage "
            + std::to_string(lr->peakMemoryStage) + " needs " + gibText(lr->peakMemoryBytes) + " > "
            + gibText(lr->hbmBytes, 0) + " (activations " + gibText(lr->stages[lr->peakMemoryStage].activationsBytes)
            + " instead of " + gibText(st.activationsBytes) + ")";
        reason.brief += " (" + std::string(toString(lighter.recompute)) + ": " + gibText(lr->peakMemoryBytes) + " > "
            + gibText(lr->hbmBytes, 0) + ")";
    } else {
        reason.text += "; " + std::string(toString(lighter.recompute)) + " also fits (" + gibText(lr->peakMemoryBytes)
            + ") and runs in " + secondsText(lr->stepTimeSeconds);
    }
    return reason;
}

std::optional<Reason> Explainer::zeroReason(const SearchPoint& w, const Report& r)
{
    const int group = w.dp * w.cp;
    if (group == 1 && w.zero == 0)
        return std::nullopt;
    Reason reason;
    reason.kind = ReasonKind::Choice;
    const StageMemory& st = r.stages[r.peakMemoryStage];
    static constexpr const char* kShards[] = { "nothing", "the optimizer states", "the optimizer states and gradients",
        "the optimizer states, gradients and weights" };
    reason.text = "ZeRO-" + std::to_string(w.zero) + " shards " + kShards[w.zero] + " over the " + std::to_string(group)
        + " data-parallel ranks (arXiv:1910.02054 sec. 5): optimizer " + gibText(st.optimizerBytes)
        + " per GPU on stage " + std::to_string(st.stage);
    reason.brief = "ZeRO-" + std::to_string(w.zero);
    SearchPoint other = w;
    other.zero = w.zero > 0 ? w.zero - 1 : 1;
    if (const Report* zr = m_reports(other)) {
        reason.text += "; ZeRO-" + std::to_string(other.zero) + " "
            + (zr->fits ? "is " + slowerText(r, *zr)
                        : "needs " + gibText(zr->peakMemoryBytes) + " > " + gibText(zr->hbmBytes, 0));
    }
    return reason;
}

std::optional<Reason> Explainer::dataAndExpertReason(const SearchPoint& w, const Report& r)
{
    Reason reason;
    reason.kind = ReasonKind::Choice;
    reason.text = "DP=" + std::to_string(w.dp) + ", " + std::to_string(r.microbatches)
        + (r.microbatches == 1 ? " micro-batch" : " micro-batches") + " of " + std::to_string(w.microBatch)
        + (w.microBatch == 1 ? " sequence" : " sequences") + " per pipeline";
    if (w.dp * w.cp > 1)
        reason.text += "; gradient sync " + secondsText(r.comm.dpTotalSeconds) + " per step, "
            + secondsText(r.comm.dpSeconds) + " exposed";
    reason.brief = "DP=" + std::to_string(w.dp);
    if (m_base.model.isMoe()) {
        const bool crosses = r.groupsCrossingDomains[static_cast<int>(Dim::Ep)] > 0;
        const int perGpu = m_base.model.moe->experts / w.ep;
        reason.text += "; EP=" + std::to_string(w.ep) + " (" + std::to_string(perGpu)
            + (perGpu == 1 ? " expert" : " experts") + " per GPU) "
            + (crosses ? "runs its all-to-all over IB" : "keeps the all-to-all on NVLink") + ": "
            + secondsText(r.comm.epSeconds) + " per step";
        if (overlapsComm(w.schedule) && w.pp > 1)
            reason.text += " before DualPipe's overlap";
        // The other token dispatcher on the same layout (DeepEP against NCCL's all-to-all), where the search
        // tried it: what it would cost per step.
        if (w.ep > 1) {
            SearchPoint other = w;
            other.dispatcher = w.dispatcher == MoeDispatcher::DeepEp ? MoeDispatcher::AllToAll : MoeDispatcher::DeepEp;
            const Report* o = m_families({ FamilyDim::Dispatcher, static_cast<int>(other.dispatcher) })
                ? m_reports(other)
                : nullptr;
            const char* name = w.dispatcher == MoeDispatcher::DeepEp ? "DeepEP" : "NCCL's all-to-all";
            const char* otherName = w.dispatcher == MoeDispatcher::DeepEp ? "NCCL's all-to-all" : "DeepEP";
            if (o && o->valid && o->stepTimeSeconds >= r.stepTimeSeconds)
                reason.text += std::string("; ") + name + " dispatches the tokens; with " + otherName + " the "
                    + "all-to-all would take " + secondsText(o->comm.epSeconds) + " per step and the step would be "
                    + slowerText(r, *o);
            else if (o && o->valid && !o->fits) // faster, where the search cannot take it
                reason.text += std::string("; ") + name + " dispatches the tokens; " + otherName + " would take "
                    + secondsText(o->stepTimeSeconds) + " per step but needs " + gibText(o->peakMemoryBytes) + " > "
                    + gibText(o->hbmBytes, 0) + " of HBM";
            reason.brief
                += w.dispatcher == MoeDispatcher::DeepEp ? ", EP=" + std::to_string(w.ep) + " DeepEP" : std::string();
        }
    }
    return reason;
}

} // namespace parallax::core
