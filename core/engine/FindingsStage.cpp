// SPDX-License-Identifier: Apache-2.0
#include "core/engine/FindingsStage.h"

#include "core/Units.h"
#include "core/costs/MoeCosts.h"
#include "core/model/LayerShape.h"
#include "core/search/NumberText.h"

#include <cmath>
#include <string>
#include <vector>

namespace parallax::core {

namespace {
// What can bring a stage under its HBM, given the configuration: ZeRO shards over the
// data-parallel group (arXiv:1910.02054 sec. 5), so it is offered only where that group has ranks.
std::string memoryFixes(const Scenario& s)
{
    const ParallelConfig& p = s.parallel;
    std::vector<std::string> fixes;
    if (s.training.recompute == Recompute::None)
        fixes.emplace_back("selective or full recompute");
    else if (s.training.recompute == Recompute::Selective) {
        // Modules this model has that the list leaves out (Megatron-Core --recompute-modules).
        namespace rm = recompute_module;
        unsigned offered = rm::kCoreAttn | rm::kMlp;
        if (s.model.mla)
            offered |= rm::kLayernorm | rm::kMlaUpProj;
        if (s.model.isMoe())
            offered
                |= rm::kLayernorm | rm::kMoeAct | rm::kMoe | (s.model.moe->sharedExperts > 0 ? rm::kSharedExperts : 0u);
        std::string more;
        for (const std::string& name : recomputeModuleNames(offered & ~s.training.recomputeModules))
            more += (more.empty() ? "" : ", ") + name;
        if (!more.empty())
            fixes.push_back("recomputing more modules (training.recompute_modules: " + more + ")");
        fixes.emplace_back("full recompute");
    }
    // Megatron-Core's precision-aware optimizer: bf16 moments halve them (DeepSeek-V3, arXiv:2412.19437 sec. 3.3.3).
    const OptimizerPrecision& o = s.training.optimizer;
    if (p.zero >= 1 && (!o.precisionAware || o.expAvg == StateDType::Fp32 || o.expAvgSq == StateDType::Fp32))
        fixes.emplace_back("bf16 Adam moments (training.optimizer: precision_aware, exp_avg_dtype and "
                           "exp_avg_sq_dtype bf16)");
    if (p.zero < 3 && p.dp * p.cp > 1)
        fixes.push_back("ZeRO stage " + std::to_string(p.zero + 1));
    fixes.emplace_back("more pp or tp");
    std::string text = "try ";
    for (std::size_t i = 0; i < fixes.size(); ++i)
        text += (i == 0 ? "" : (i + 1 == fixes.size() ? " or " : ", ")) + fixes[i];
    if (p.dp * p.cp == 1 && p.zero < 3)
        text += "; ZeRO has no effect at dp=1: free GPUs for dp>1 to shard the optimizer";
    return text;
}

std::string domainSpan(const Topology& t, const ParallelGroup& g)
{
    const std::string& a = t.domains[g.firstDomain].name;
    const std::string& b = t.domains[g.lastDomain].name;
    return a == b ? a : a + " .. " + b;
}

// The first TP groups that leave their domain, one warning each, then a count of the rest.
void tpCrossingWarnings(
    const Scenario& s, const LayoutStageResult& layout, const LayerCostStageResult& costs, Report& report)
{
    const RankMap& map = report.rankMap;
    const int crossing = report.groupsCrossingDomains[static_cast<int>(Dim::Tp)];
    const int groups = map.groupCount(Dim::Tp);
    const ActivationContext& ctx = costs.context;
    int listed = 0;
    for (int index = 0; index < groups && crossing > 0; ++index) {
        const int first = map.member(Dim::Tp, index, 0);
        const int last = map.member(Dim::Tp, index, map.groupSize(Dim::Tp) - 1);
        if (map.domainOfRank(first) == map.domainOfRank(last))
            continue;
        if (listed++ == 2) {
            report.warnings.push_back(
                { "parallel.tp", "... and " + std::to_string(crossing - 2) + " more TP groups cross NVLink domains" });
            break;
        }
        const ParallelGroup g = map.group(Dim::Tp, index);
        CommGroup nvlinkOnly = layout.comm.tp;
        nvlinkOnly.outer = 1;
        nvlinkOnly.inner = nvlinkOnly.size;
        const double bytes = 2.0 * ctx.seqLen / ctx.cp * ctx.microBatch * s.model.hidden;
        const double ib = layout.comm.tp.seconds(CollectiveKind::AllReduce, bytes) * 4;
        const double nv = nvlinkOnly.seconds(CollectiveKind::AllReduce, bytes) * 4;
        report.warnings.push_back({ "parallel.tp",
            "TP group " + std::to_string(g.index) + " spans " + domainSpan(s.topology, g)
                + ": its all-reduces run over IB (" + fixedText(ib * 1e3, 2) + " ms per layer and micro-batch against "
                + fixedText(nv * 1e3, 2) + " ms on NVLink); keep tp within one NVLink domain" });
    }
}

void memoryWarnings(const Scenario& s, Report& report)
{
    if (report.memoryVerdict != MemoryVerdict::DoesNotFit && report.memoryVerdict != MemoryVerdict::Tight)
        return;
    const StageMemory& peak = report.stages[report.peakMemoryStage];
    const std::string peakText = "pipeline stage " + std::to_string(peak.stage) + " needs "
        + fixedText(peak.totalBytes() / kGiB, 1) + " GiB (" + fixedText(peak.lowBytes / kGiB, 1) + "-"
        + fixedText(peak.highBytes / kGiB, 1) + ")";
    if (report.memoryVerdict == MemoryVerdict::DoesNotFit) {
        report.warnings.push_back({ "memory",
            peakText + " > " + fixedText(report.hbmBytes / kGiB, 1) + " GiB of HBM: out of memory by "
                + fixedText((peak.totalBytes() - report.hbmBytes) / kGiB, 1)
                + " GiB even at the low end of the model's error (" + memoryFixes(s) + ")" });
    } else {
        report.warnings.push_back({ "memory",
            peakText + " against " + fixedText(report.hbmBytes / kGiB, 1)
                + " GiB of HBM: tight, the range of the memory model's measured error straddles HBM (it may run; for "
                  "margin, "
                + memoryFixes(s) + ")" });
    }
}
// With NCCL's all-to-all dispatcher and EP across domains: what DeepEP's (one IB copy per token and remote
// node, forwarded over NVLink; core/costs/MoeCosts.h) dispatch and combine would take on the first MoE
// layer, when it is at least a fifth faster. Empty otherwise.
std::string deepEpAlternative(const Scenario& s, const LayoutStageResult& layout, const LayerCostStageResult& costs)
{
    if (s.training.moeTokenDispatcher != MoeDispatcher::AllToAll)
        return {};
    for (int l = 0; l < s.model.layers; ++l) {
        if (!s.model.isMoeLayer(l))
            continue;
        const LayerShape shape = layerShape(s.model, l);
        const double hidden = static_cast<double>(s.model.hidden);
        ActivationContext deepEp = costs.context;
        deepEp.dispatcher = MoeDispatcher::DeepEp;
        const AllToAllEfficiency efficiency = allToAllEfficiency(costs.gpu);
        const double now = dispatchCombineSeconds(shape, costs.context, layout.comm.ep, hidden, efficiency);
        const double then = dispatchCombineSeconds(shape, deepEp, layout.comm.ep, hidden, efficiency);
        if (now <= 0 || then > 0.8 * now)
            return {};
        return "; DeepEP's dispatcher (training.moe_token_dispatcher: deepep; Megatron --moe-token-dispatcher-type "
               "flex --moe-flex-dispatcher-backend deepep) sends a token once per node: dispatch and combine "
            + fixedText(then * 1e3, 2) + " ms instead of " + fixedText(now * 1e3, 2)
            + " ms per MoE layer and micro-batch";
    }
    return {};
}
// A job outside the GPU span of its family's published runs: how far, and what the band does about it
// (core/memory/PredictionBands.h, widenedOutsideSpan).
std::string scaleOutsideNote(const StepTimeBand& b, int gpus)
{
    const bool above = b.doublingsOutside > 0;
    std::string text = std::to_string(gpus) + " GPUs is " + fixedText(std::abs(b.doublingsOutside), 1) + " doublings "
        + (above ? "beyond the largest" : "below the smallest") + " published " + b.family
        + " run the engine was checked on (" + std::to_string(b.spanEdgeGpus()) + " GPUs)";
    if (b.errorPerDoubling == 0)
        return text + "; those runs show no weak-scaling trend to carry over, so the step-time range is theirs";
    const bool engineFallsBehind = b.errorPerDoubling < 0; // published steps grow faster with the job
    const bool widensHigh = engineFallsBehind == above;
    return text + "; over the family's weak-scaling series published steps grew "
        + fixedText(std::abs(b.errorPerDoubling) * 100, 2) + " points per doubling of the GPUs "
        + (engineFallsBehind ? "faster" : "slower") + " than the engine's, so the step-time range's "
        + (widensHigh ? "high" : "low") + " end is widened by " + fixedText(b.widenedBy * 100, 1) + " points";
}
} // namespace

void findingsStage(const Scenario& scenario, const LayoutStageResult& layout, const LayerCostStageResult& costs,
    const StepTimeBand& timeBand, double busiestEpSeconds, Report& report)
{
    tpCrossingWarnings(scenario, layout, costs, report);
    const int cpCrossing = report.groupsCrossingDomains[static_cast<int>(Dim::Cp)];
    if (cpCrossing > 0)
        report.warnings.push_back({ "parallel.cp",
            std::to_string(cpCrossing) + " CP groups cross NVLink domains: ring attention runs over IB" });
    if (scenario.model.isMoe() && report.groupsCrossingDomains[static_cast<int>(Dim::Ep)] > 0)
        report.notes.push_back({ "parallel.ep",
            "EP groups span " + std::to_string(layout.comm.ep.outer) + " NVLink domains: the all-to-all runs over IB ("
                + secondsText(busiestEpSeconds) + " per step on the busiest rank)"
                + deepEpAlternative(scenario, layout, costs) });
    memoryWarnings(scenario, report);
    if (!timeBand.measured)
        report.notes.push_back({ "step_time", "step-time range: " + timeBand.family + "; the widest band is used" });
    if (timeBand.doublingsOutside != 0)
        report.notes.push_back({ "step_time", scaleOutsideNote(timeBand, scenario.parallel.worldSize()) });
}

} // namespace parallax::core
