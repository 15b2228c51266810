// SPDX-License-Identifier: Apache-2.0
#include "core/Validation.h"

#include "core/Limits.h"
#include "core/cluster/TopologySummary.h"
#include "core/parallel/PipelineSplit.h"
#include "core/schedule/PipelineSchedule.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string_view>

namespace parallax::core {

std::vector<int> divisorsOf(long long n)
{
    std::vector<int> d;
    for (long long i = 1; i * i <= n; ++i) {
        if (n % i == 0) {
            d.push_back(static_cast<int>(i));
            if (i * i != n)
                d.push_back(static_cast<int>(n / i));
        }
    }
    std::sort(d.begin(), d.end());
    return d;
}

bool ulyssesSplitsHeads(const ModelSpec& m, int tp, int cp)
{
    if (cp <= 1)
        return true;
    const int kvHeads = m.mla ? m.heads : m.kvHeads; // MLA attends with a key and a value per query head
    return tp > 0 && m.heads % (tp * cp) == 0 && kvHeads % (tp * cp) == 0;
}

bool cpCommTypeFits(const Scenario& s, int tp, int cp)
{
    return cpCommTypeFits(s.model, s.parallel.cpCommType, s.parallel.cpA2aSize, tp, cp);
}

bool cpCommTypeFits(const ModelSpec& m, CpCommType type, int a2aSize, int tp, int cp)
{
    if (cp <= 1 || type == CpCommType::P2p || type == CpCommType::AllGather)
        return true;
    if (type == CpCommType::A2a)
        return ulyssesSplitsHeads(m, tp, cp);
    return a2aSize > 1 && a2aSize < cp && cp % a2aSize == 0 && ulyssesSplitsHeads(m, tp, a2aSize);
}

bool interleavingDividesStages(int layers, int pp, int vpp)
{
    return pp <= 0 || vpp <= 1 || layers % pp != 0 || (layers / pp) % vpp == 0;
}

int nearestDivisor(long long n, int wanted)
{
    int best = 1;
    for (int d : divisorsOf(std::max(1LL, n))) {
        if (std::abs(d - wanted) < std::abs(best - wanted))
            best = d;
    }
    return best;
}

namespace {
std::string str(long long v)
{
    return std::to_string(v);
}

class Checker {
public:
    ValidationResult result;
    void error(const std::string& field, const std::string& text) { result.errors.push_back({ field, text }); }
    void note(const std::string& field, const std::string& text) { result.notes.push_back({ field, text }); }
    // "a=64 is not divisible by b=16: choose tp in {1, 2, 4, 8}" style.
    // `suggestion` (when > 0) replaces the nearest divisor of `what` in the fix: a value that also
    // satisfies the degree's other rules.
    void divides(const std::string& field, const std::string& degreeName, long long degree, const std::string& whatName,
        long long what, int suggestion = 0)
    {
        if (degree <= 0 || what % degree == 0)
            return;
        std::ostringstream fix;
        fix << whatName << "=" << what << " is not divisible by " << degreeName << "=" << degree << ": use "
            << degreeName << "=" << (suggestion > 0 ? suggestion : nearestDivisor(what, static_cast<int>(degree)));
        error(field, fix.str());
    }
};

// The tp closest to the one asked for that passes every tp rule at once: it divides heads, kv_heads
// (without MLA), ffn_hidden, the sequence per CP rank with SP, and the GPUs per tp group (so that a dp
// exists). 0 when no tp does (then the cluster itself is the problem).
int tpSatisfyingAllRules(const Scenario& s, int seq)
{
    const ModelSpec& m = s.model;
    const ParallelConfig& p = s.parallel;
    const long long gpus = s.topology.gpuCount();
    int best = 0;
    for (int t : divisorsOf(m.heads)) {
        if ((!m.mla && m.kvHeads % t != 0) || m.ffnHidden % t != 0)
            continue;
        if (p.sp && t > 1 && (seq / std::max(1, p.cp)) % t != 0)
            continue;
        if (gpus > 0 && gpus % (static_cast<long long>(t) * p.cp * p.pp) != 0)
            continue;
        if (best == 0 || std::abs(t - p.tp) < std::abs(best - p.tp))
            best = t;
    }
    return best;
}

// Each of tp, cp, ep, dp and pp exactly once, dash-separated.
bool validOrder(std::string_view order)
{
    static constexpr std::string_view kNames[] = { "cp", "dp", "ep", "pp", "tp" };
    int seen[5] = {};
    int tokens = 0;
    for (std::size_t start = 0;;) {
        const std::size_t dash = order.find('-', start);
        const std::string_view tok = order.substr(start, dash == std::string_view::npos ? order.npos : dash - start);
        const auto* it = std::find(std::begin(kNames), std::end(kNames), tok);
        if (it == std::end(kNames))
            return false;
        ++seen[it - std::begin(kNames)];
        ++tokens;
        // A trailing dash ends the list, as std::getline reads it.
        if (dash == std::string_view::npos || dash + 1 == order.size())
            break;
        start = dash + 1;
    }
    return tokens == 5 && std::all_of(std::begin(seen), std::end(seen), [](int n) { return n == 1; });
}
} // namespace

std::vector<Message> modelProblems(const ModelSpec& m)
{
    std::vector<Message> out;
    // Llama 4's chunked attention chunks by the window's size (as the scenario file requires).
    if (m.chunkedAttention && m.slidingWindow <= 0)
        out.push_back({ "model.chunked_attention",
            "chunked attention needs its chunk: set model.sliding_window to the chunk size, or clear "
            "chunked_attention" });
    return out;
}

// The context-parallel communication type (parallel.cp_comm_type, cp_a2a_size) against the model and cp.
void checkCpCommType(const Scenario& s, Checker& c)
{
    const ParallelConfig& p = s.parallel;
    const ModelSpec& m = s.model;
    const int tp = std::max(1, p.tp);
    if (p.cpA2aSize > 0 && (p.cpCommType != CpCommType::A2aP2p || p.cp <= 1))
        c.note(
            "parallel.cp_a2a_size", "the all-to-all level's size applies to cp_comm_type \"a2a+p2p\" with cp > 1 only");
    if (p.cp <= 1) {
        if (p.cpCommType != CpCommType::P2p)
            c.note("parallel.cp_comm_type", "the context-parallel communication type has no effect with cp=1");
        return;
    }
    if (p.cpCommType == CpCommType::P2p && m.windowedBelow(s.seqLen()))
        c.note("parallel.cp",
            std::string("sliding-window attention with cp > 1 runs as --cp-comm-type all_gather (Transformer Engine's "
                        "p2p ring has no windows; Megatron-LM PR #1160): each windowed layer's K/V all-gather is "
                        "exposed, not hidden behind attention")
                + (m.slidingWindowPattern > 1 ? "; the full-attention layers keep the p2p ring (one type per layer)"
                                              : ""));
    int a2aRanks = p.cpCommType == CpCommType::A2a ? p.cp : 0;
    if (p.cpCommType == CpCommType::A2aP2p) {
        // Megatron-Core: the product of hierarchical_context_parallel_sizes is the context-parallel size.
        if (p.cpA2aSize < 2 || p.cpA2aSize >= p.cp || p.cp % p.cpA2aSize != 0) {
            std::string choices;
            for (int a : divisorsOf(p.cp)) {
                if (a > 1 && a < p.cp)
                    choices += (choices.empty() ? "" : ", ") + str(a);
            }
            c.error("parallel.cp_a2a_size",
                "a2a+p2p needs the all-to-all level's size, a divisor of cp=" + str(p.cp)
                    + " above 1 and below it (--hierarchical-context-parallel-sizes a cp/a), got " + str(p.cpA2aSize)
                    + (choices.empty() ? ": cp=" + str(p.cp) + " has none, use cp_comm_type \"a2a\" or \"p2p\""
                                       : ": use one of " + choices));
        } else
            a2aRanks = p.cpA2aSize;
        if (m.windowedBelow(s.seqLen()))
            c.error("parallel.cp_comm_type",
                "a2a+p2p passes K/V around a ring, and Transformer Engine's ring has no windows: use \"a2a\" or "
                "\"all_gather\" for a model with sliding windows");
    }
    if (a2aRanks > 1 && !ulyssesSplitsHeads(m, tp, a2aRanks))
        c.error("parallel.cp_comm_type",
            std::string(toString(p.cpCommType)) + " splits the heads of a TP rank over " + str(a2aRanks)
                + " ranks, which does not divide "
                + (m.mla ? "heads/tp=" + str(m.heads / tp)
                         : "both heads/tp=" + str(m.heads / tp) + " and kv_heads/tp=" + str(m.kvHeads / tp))
                + " (Transformer Engine asserts both): use a cp"
                + (p.cpCommType == CpCommType::A2aP2p ? "_a2a_size" : "")
                + " that divides them, or cp_comm_type \"p2p\"");
}

ValidationResult validateScenario(const Scenario& s)
{
    return validateScenario(s, TopologySummary::of(s.topology));
}

ValidationResult validateScenario(const Scenario& s, const TopologySummary& topology)
{
    Checker c;
    const ModelSpec& m = s.model;
    const ParallelConfig& p = s.parallel;
    const TrainingConfig& t = s.training;
    const int gpus = topology.gpus;
    const int seq = s.seqLen();

    if (gpus <= 0)
        c.error("cluster", "the cluster has no GPUs: add an NVLink domain with at least one GPU");
    if (!topology.connected && s.topology.domains.size() > 1)
        c.error("cluster.topology.fabrics",
            "some NVLink domains are on no common fabric: put every domain on one IB fabric");

    const long long world = static_cast<long long>(p.tp) * p.cp * p.pp * p.dp;
    if (gpus > 0 && world != gpus) {
        std::ostringstream msg;
        msg << "tp*cp*pp*dp = " << p.tp << "*" << p.cp << "*" << p.pp << "*" << p.dp << " = " << world
            << " but the cluster has " << gpus << " GPUs";
        const long long rest = static_cast<long long>(p.tp) * p.cp * p.pp;
        if (gpus % rest == 0)
            msg << ": set dp=" << gpus / rest;
        else {
            // Say how to resize the cluster too: 65 GPUs rarely has the factorisation one wants.
            const long long lower = gpus / rest * rest, upper = lower + rest;
            msg << ": choose degrees whose product is " << gpus
                << ", or make the cluster a multiple of tp*cp*pp = " << rest << " GPUs (";
            if (lower > 0)
                msg << "remove " << gpus - lower << " GPU" << (gpus - lower == 1 ? "" : "s") << " for " << lower
                    << ", or ";
            msg << "add " << upper - gpus << " for " << upper << ")";
        }
        c.error("parallel.dp", msg.str());
    }
    if (!validOrder(p.order))
        c.error("parallel.order", "\"" + p.order + "\" must name tp, cp, ep, dp and pp once each, e.g. tp-cp-ep-dp-pp");

    // Tensor parallelism splits heads, query groups and the FFN (arXiv:1909.08053 sec. 3).
    // The fix is searched only when a tp rule fails.
    // Sequence parallelism splits each CP rank's share of the sequence over tp; when cp itself does not
    // divide the sequence, the cp error below names the fix and the share is not checked.
    const bool cpSplitsSequence = p.cp <= 1 || seq % (2 * p.cp) == 0;
    const bool spRuleFails = p.sp && p.tp > 1 && cpSplitsSequence && (seq / std::max(1, p.cp)) % p.tp != 0;
    const bool tpRuleFails = p.tp > 0
        && (m.heads % p.tp != 0 || (!m.mla && m.kvHeads % p.tp != 0) || m.ffnHidden % p.tp != 0 || spRuleFails);
    const int tpFix = tpRuleFails ? tpSatisfyingAllRules(s, seq) : 0;
    c.divides("parallel.tp", "tp", p.tp, "heads", m.heads, tpFix);
    if (!m.mla)
        c.divides("parallel.tp", "tp", p.tp, "kv_heads", m.kvHeads, tpFix);
    c.divides("parallel.tp", "tp", p.tp, "ffn_hidden", m.ffnHidden, tpFix);
    if (p.sp && p.tp > 1 && cpSplitsSequence)
        c.divides("parallel.sp", "tp", p.tp, p.cp > 1 ? "seq_len/cp" : "seq_len", seq / std::max(1, p.cp), tpFix);
    if (p.sp && p.tp == 1)
        c.note("parallel.sp", "sequence parallelism has no effect with tp=1");
    if (p.ddpBucketSize > 0 && !p.dpOverlap)
        c.note("parallel.ddp_bucket_size",
            "the bucket size has no effect without dp_overlap: Megatron-Core then reduces each chunk's gradients "
            "as one buffer after the backward");

    // Context parallelism: Megatron-Core splits each sequence into 2*cp chunks for load balance
    // of the causal mask (megatron/core/transformer/attention, "cp_comm_type" docs).
    if (p.cp > 1 && seq % (2 * p.cp) != 0)
        c.error("parallel.cp",
            "seq_len=" + str(seq) + " is not divisible by 2*cp=" + str(2 * p.cp)
                + ": use cp=" + str(nearestDivisor(seq / 2, p.cp)));
    checkCpCommType(s, c);

    for (const Message& problem : modelProblems(m))
        c.error(problem.field, problem.text);

    // Experts: ep * etp must divide the tp*cp*dp ranks of a pipeline stage (Megatron-Core
    // parallel_state.initialize_model_parallel: expert_tensor_model_pipeline_parallel_size).
    if (!m.isMoe()) {
        if (p.ep > 1)
            c.error("parallel.ep", "the model has no experts: set ep=1");
        if (p.etp > 1)
            c.error("parallel.etp", "the model has no experts: set etp=1");
    } else {
        c.divides("parallel.ep", "ep", p.ep, "experts", m.moe->experts);
        const long long stageRanks = static_cast<long long>(p.tp) * p.cp * p.dp;
        if (stageRanks % (static_cast<long long>(p.ep) * p.etp) != 0)
            c.error("parallel.ep",
                "ep*etp=" + str(static_cast<long long>(p.ep) * p.etp) + " must divide tp*cp*dp=" + str(stageRanks)
                    + " (the ranks of one pipeline stage): use ep=" + str(nearestDivisor(stageRanks / p.etp, p.ep)));
        c.divides("parallel.etp", "etp", p.etp, "expert_ffn_hidden", m.moe->expertFfnHidden);
        // Group-limited routing (Megatron-Core --moe-router-num-groups / --moe-router-group-topk): the groups
        // split the experts evenly and the chosen groups must hold top_k experts. Scenario files are checked
        // as they are read (core/io/ScenarioIo.cpp); this catches edits made in the GUI.
        const MoeSpec& moe = *m.moe;
        // The GUI's edits: the dense prefix and the MoE layer step leave an MoE layer (files: ScenarioIo).
        if (moe.layerStep < 1 || moe.firstDenseLayers + moe.layerStep > m.layers)
            c.error(moe.layerStep < 1 ? "model.moe.layer_step" : "model.moe.first_dense_layers",
                "first_dense_layers=" + str(moe.firstDenseLayers) + " and layer_step=" + str(moe.layerStep)
                    + " leave no MoE layer among " + str(m.layers)
                    + ": keep first_dense_layers + layer_step <= " + str(m.layers));
        if (moe.routerGroups > 0 || moe.routerGroupTopk > 0) {
            if (moe.routerGroups <= 0 || moe.routerGroupTopk <= 0) {
                c.error(moe.routerGroups > 0 ? "model.moe.router_group_topk" : "model.moe.router_groups",
                    "group-limited routing needs both router_groups and router_group_topk: set both, or both to 0");
            } else {
                c.divides("model.moe.router_groups", "router_groups", moe.routerGroups, "experts", moe.experts);
                if (moe.routerGroupTopk > moe.routerGroups)
                    c.error("model.moe.router_group_topk",
                        "router_group_topk=" + str(moe.routerGroupTopk) + " exceeds router_groups="
                            + str(moe.routerGroups) + ": use at most " + str(moe.routerGroups));
                else if (moe.experts % moe.routerGroups == 0
                    && static_cast<long long>(moe.routerGroupTopk) * (moe.experts / moe.routerGroups) < moe.topK)
                    c.error("model.moe.router_group_topk",
                        str(moe.routerGroupTopk) + " groups of " + str(moe.experts / moe.routerGroups)
                            + " experts cannot hold top_k=" + str(moe.topK) + ": raise router_group_topk");
            }
        }
        if (p.tp > 1 && !p.sp)
            c.error("parallel.sp", "MoE layers with tp > 1 need sequence parallelism (Megatron-Core): set sp=true");
        if (m.parallelBlock)
            c.error("model.parallel_block",
                "Parallax models the parallel attention + MLP block for dense layers only: clear parallel_block");
        if (p.ep > 1 && stageRanks % (static_cast<long long>(p.ep) * p.etp) == 0) {
            const long long edp = stageRanks / (static_cast<long long>(p.ep) * p.etp);
            c.note("parallel.ep",
                "Megatron-Core mapping: the " + str(stageRanks) + " ranks of each pipeline stage (tp*cp*dp=" + str(p.tp)
                    + "*" + str(p.cp) + "*" + str(p.dp) + ") hold experts as ep=" + str(p.ep) + " x etp=" + str(p.etp)
                    + " x expert-data-parallel=" + str(edp) + "; dense layers use dp=" + str(p.dp));
        }
    }

    // Batch: global = micro * dp * m (arXiv:2104.04473 sec. 2.2).
    const long long perStep = static_cast<long long>(t.microBatch) * p.dp;
    if (t.globalBatch % perStep != 0) {
        c.error("training.global_batch",
            "global_batch=" + str(t.globalBatch) + " is not divisible by micro_batch*dp=" + str(perStep)
                + ": use global_batch=" + str((t.globalBatch / perStep + 1) * perStep));
    } else if (t.globalBatch / perStep > kMaxMicrobatchesPerStep) {
        c.error("training.global_batch",
            "more than " + str(kMaxMicrobatchesPerStep) + " micro-batches per step: raise micro_batch or dp");
    }
    const int microbatches = microbatchesPerStep(p, t);
    if (t.globalBatch < perStep)
        c.error("training.global_batch",
            "global_batch=" + str(t.globalBatch) + " is smaller than micro_batch*dp=" + str(perStep)
                + ": raise global_batch to at least " + str(perStep));

    if (t.dtype == DType::Fp8) {
        for (const auto& d : s.topology.domains) {
            if (d.gpu.fp8FlopsPerSecond <= 0) {
                c.error("training.dtype", d.gpu.name + " has no fp8 tensor cores: use dtype bf16");
                break;
            }
        }
    }

    if (t.deepseekActivationCache && t.dtype != DType::Fp8)
        c.error("training.deepseek_activation_cache",
            "DeepSeek-V3's activation cache stores fp8 and E5M6 tensors of FP8 training (arXiv:2412.19437 sec. "
            "3.3.2): set training.dtype to fp8 or turn the cache off");
    if (t.deepseekFp8Dispatch && (t.dtype != DType::Fp8 || t.moeTokenDispatcher != MoeDispatcher::DeepEp))
        c.error("training.deepseek_fp8_dispatch",
            "DeepSeek-V3 sends fp8 tokens through DeepEP's dispatch in FP8 training (arXiv:2412.19437 sec. 3.3.2): set "
            "training.dtype to fp8 and training.moe_token_dispatcher to deepep, or turn fp8 dispatch off");
    if (t.moeTokenDispatcher == MoeDispatcher::DeepEp) {
        if (!m.isMoe() || p.ep <= 1)
            c.note("training.moe_token_dispatcher",
                "DeepEP dispatches routed tokens between expert-parallel ranks; with no MoE layers or ep=1 it moves "
                "nothing");
        for (const auto& d : s.topology.domains) {
            if (d.gpu.smCount > 0 && t.moeDeepepNumSms >= d.gpu.smCount) {
                c.error("training.moe_deepep_num_sms",
                    str(t.moeDeepepNumSms) + " SMs for DeepEP leave none of the " + str(d.gpu.smCount) + " SMs of the "
                        + d.gpu.name + " for compute: use fewer (Megatron-Core's default is 20)");
                break;
            }
        }
    }
    if (t.activationFuncFp8InputStore && m.activation != Activation::SwiGlu)
        c.note("training.activation_func_fp8_input_store",
            "Megatron-Core stores the activation input in fp8 only in its fused SwiGLU; this model's activation is "
            "not SwiGLU, so the flag saves no memory");
    else if (t.activationFuncFp8InputStore && m.isMoe() && !t.deepseekActivationCache
        && t.recompute == Recompute::Selective && (t.recomputeModules & recompute_module::kMoeAct) != 0)
        c.note("training.activation_func_fp8_input_store",
            "with moe_act recomputed the checkpoint keeps the experts' 16-bit SwiGLU input "
            "(megatron/core/tensor_parallel/random.py CheckpointWithoutOutput), so the fp8 store saves memory on the "
            "dense and shared-expert MLPs only; drop moe_act to keep the experts' input in fp8 instead");

    // Pipeline: schedule shape, chunks and layers.
    if (const std::string problem = vppScheduleProblem(p.schedule, p.vpp); !problem.empty())
        c.error("parallel.vpp", problem.substr(problem.find(": ") + 2));
    if (p.pp > 1 && microbatches >= 1) {
        // The vpp of a schedule that does not interleave is reported above; its shape is checked as run.
        const int vpp = p.schedule == ScheduleKind::Interleaved1F1B ? p.vpp : 1;
        ScheduleShape shape { p.schedule, p.pp, microbatches, vpp };
        const std::string problem = checkShape(shape);
        if (!problem.empty()) {
            const auto colon = problem.find(": ");
            if (colon != std::string::npos && problem.rfind("parallel.", 0) == 0)
                c.error(problem.substr(0, colon), problem.substr(colon + 2));
            else if (colon != std::string::npos && problem.rfind("training.", 0) == 0)
                c.error(problem.substr(0, colon), problem.substr(colon + 2));
            else
                c.error("parallel.schedule", problem);
        } else {
            const int stages = modelStageCount(shape);
            if (m.layers < stages - 2 || (m.layers < stages && stages <= 2))
                c.error("parallel.pp",
                    "layers=" + str(m.layers) + " is fewer than the " + str(stages) + " model stages of pp=" + str(p.pp)
                        + (p.vpp > 1 ? " x vpp=" + str(p.vpp) : std::string()) + ": lower pp or vpp");
            else if (const std::string split = pipelineSplitProblem(m.layers, p, m.mtpLayers); !split.empty())
                c.error(split.substr(0, split.find(": ")), split.substr(split.find(": ") + 2));
            else if (hasUnevenSplit(p))
                ; // the split's own rules replace the even split's divisibility
            else if (p.schedule == ScheduleKind::Interleaved1F1B && !interleavingDividesStages(m.layers, p.pp, p.vpp))
                c.error("parallel.vpp",
                    "the " + str(m.layers / p.pp) + " layers of each pipeline stage do not split into vpp=" + str(p.vpp)
                        + " chunks: use vpp=" + str(nearestDivisor(m.layers / p.pp, p.vpp)));
            else if (m.layers < stages)
                c.note("parallel.pp",
                    "layers=" + str(m.layers) + " over " + str(stages)
                        + " model stages: the first holds only the embedding and the last only the LM head and loss "
                          "(Megatron-Core --account-for-embedding-in-pipeline-split / -loss-)");
            else if (m.layers % stages != 0)
                c.note("parallel.pp",
                    "layers=" + str(m.layers) + " over " + str(stages) + " model stages is uneven: stages hold "
                        + str(m.layers / stages) + " or " + str(m.layers / stages + 1)
                        + " layers, the first and last ones fewer (arXiv:2407.21783 sec. 3.3.2)");
        }
    } else if (p.pp == 1 && p.vpp > 1) {
        c.error("parallel.vpp", "vpp=" + str(p.vpp) + " needs pp > 1: set vpp=1");
    }
    if (p.pp <= 1 && hasUnevenSplit(p)) {
        const std::string split = pipelineSplitProblem(m.layers, p, m.mtpLayers);
        c.error(split.substr(0, split.find(": ")), split.substr(split.find(": ") + 2));
    }
    const OptimizerPrecisionProblem optimizer = optimizerPrecisionProblem(s.training.optimizer, p.zero);
    if (!optimizer.field.empty())
        c.error(optimizer.field, optimizer.text);
    if (p.zero > 0 && p.dp * p.cp == 1)
        c.note("parallel.zero", "ZeRO shards over the data-parallel group; with dp=1 it has no effect");
    return c.result;
}

} // namespace parallax::core
