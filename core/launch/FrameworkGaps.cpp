// SPDX-License-Identifier: Apache-2.0
#include "core/launch/FrameworkGaps.h"

#include "core/parallel/OptimizerPrecision.h"
#include "core/search/NumberText.h"

namespace parallax::core {

namespace {

// The rank order Megatron-Core's flags give without --use-tp-pp-dp-mapping (parallel_state.py,
// initialize_model_parallel, order="tp-cp-ep-dp-pp"); torchtitan's mesh [pp, dp, cp, tp] nests the same way.
constexpr const char* kDefaultOrder = "tp-cp-ep-dp-pp";

// Megatron-Core's schedules (megatron/core/pipeline_parallel/schedules.py): 1F1B and interleaved 1F1B only.
void megatronCoreSchedule(const Scenario& s, LaunchFramework f, std::vector<FrameworkGap>& out, Scenario* run)
{
    const ParallelConfig& p = s.parallel;
    if (p.pp <= 1 || p.schedule == ScheduleKind::OneFOneB || p.schedule == ScheduleKind::Interleaved1F1B)
        return;
    const std::string name = frameworkName(f);
    const std::string vppKnob = f == LaunchFramework::Nemo ? "virtual_pipeline_model_parallel_size"
                                                           : "--num-layers-per-virtual-pipeline-stage";
    std::string note;
    if (p.schedule == ScheduleKind::GPipe)
        note = name
            + " has no GPipe schedule; it runs 1F1B, with the same bubble and at most pp micro-batches in flight "
              "instead of all of them";
    else if (p.schedule == ScheduleKind::DualPipe || p.schedule == ScheduleKind::DualPipeV)
        note = name + " has no " + toString(p.schedule)
            + " schedule (arXiv:2412.19437 sec. 3.2.1); use interleaved 1F1B (" + vppKnob
            + "), or torchtitan's DualPipeV";
    else
        note = name + " has no zero-bubble schedule (" + toString(p.schedule) + "); use interleaved 1F1B (" + vppKnob
            + "), torchtitan's ZBVZeroBubble / InterleavedZeroBubble, or the sail-sg/zero-bubble-pipeline-parallelism "
              "fork";
    out.push_back({ GapPlace::Pipeline, note, std::string("1F1B instead of ") + toString(p.schedule) });
    if (run) {
        run->parallel.schedule = ScheduleKind::OneFOneB;
        run->parallel.vpp = 1;
    }
}

// torch.distributed.pipelining's schedules (torchtitan's pipeline_parallel_schedule).
void torchtitanSchedule(const Scenario& s, std::vector<FrameworkGap>& out, Scenario* run)
{
    const ParallelConfig& p = s.parallel;
    if (p.pp <= 1)
        return;
    if (p.schedule == ScheduleKind::ZbH1 || p.schedule == ScheduleKind::ZbH2)
        out.push_back({ GapPlace::Pipeline,
            std::string("torch.distributed.pipelining has no ") + toString(p.schedule)
                + " schedule for one chunk per rank; InterleavedZeroBubble (2+ chunks) or ZBVZeroBubble are the "
                  "closest",
            {} });
    if (p.schedule == ScheduleKind::DualPipe) {
        // DualPipeV cuts the model into 2 x pp stages where DualPipe cuts pp: the design's first/last stage
        // counts are for the other cut, so the split is the engine's default one (StageLayout).
        out.push_back({ GapPlace::Pipeline,
            "torchtitan has DualPipeV (the V-shaped, half-parameter variant), not bidirectional DualPipe",
            "DualPipeV instead of DualPipe, its 2 x pp stages split as evenly as the layers allow" });
        if (run) {
            ParallelConfig& r = run->parallel;
            r.schedule = ScheduleKind::DualPipeV;
            r.firstStageLayers = 0;
            r.lastStageLayers = 0;
            r.accountForEmbedding = false;
            r.accountForLoss = false;
            r.pipelineLayout.clear();
        }
    }
}

void rankOrder(const Scenario& s, LaunchFramework f, std::vector<FrameworkGap>& out, Scenario* run)
{
    const std::string& order = s.parallel.order;
    if (order == kDefaultOrder || (order == "tp-cp-ep-pp-dp" && f != LaunchFramework::Torchtitan))
        return;
    std::string note;
    if (f == LaunchFramework::Torchtitan)
        note = "torchtitan builds its device mesh as [pp, dp_replicate, dp_shard, cp, tp]; the scenario's order "
            + order + " cannot be chosen";
    else
        note = std::string(frameworkName(f)) + " chooses only tp-cp-ep-dp-pp or ("
            + (f == LaunchFramework::Nemo ? "use_tp_pp_dp_mapping" : "--use-tp-pp-dp-mapping")
            + ") tp-cp-ep-pp-dp; for \"" + order + "\" pass order=\"" + order
            + "\" to megatron.core.parallel_state.initialize_model_parallel";
    out.push_back({ GapPlace::Parallel, note, std::string("rank order ") + kDefaultOrder + " instead of " + order });
    if (run)
        run->parallel.order = kDefaultOrder;
}

// DeepSeek-V3's own framework (arXiv:2412.19437 sec. 3.3.2): fp8 dispatch and its activation cache.
void deepseekFeatures(const Scenario& s, LaunchFramework f, std::vector<FrameworkGap>& out, Scenario* run)
{
    const TrainingConfig& t = s.training;
    const std::string name = frameworkName(f);
    const std::string knob = f == LaunchFramework::Nemo ? "switch" : "flag";
    if (f == LaunchFramework::Torchtitan) {
        if (t.moeTokenDispatcher == MoeDispatcher::DeepEp || t.deepseekFp8Dispatch) {
            const std::string what = t.deepseekFp8Dispatch ? "DeepEP dispatch with fp8 tokens" : "DeepEP dispatch";
            out.push_back({ GapPlace::Moe,
                "the scenario's " + what
                    + " is not reproduced; torchtitan's expert parallelism exchanges bf16 tokens with all-to-all",
                "bf16 all-to-all instead of " + what });
        }
        if (t.activationFuncFp8InputStore || t.deepseekActivationCache) {
            const std::string what
                = t.deepseekActivationCache ? "DeepSeek-V3 fp8/E5M6 activation cache" : "fp8 SwiGLU input store";
            out.push_back({ GapPlace::Training,
                "torchtitan saves activations in their compute dtype; the scenario's " + what + " is not reproduced",
                "without the " + what });
        }
        if (run) {
            run->training.moeTokenDispatcher = MoeDispatcher::AllToAll;
            run->training.deepseekFp8Dispatch = false;
            run->training.activationFuncFp8InputStore = false;
            run->training.deepseekActivationCache = false;
        }
        return;
    }
    if (t.deepseekFp8Dispatch) {
        out.push_back({ GapPlace::Moe,
            name
                + "'s DeepEP dispatch sends bf16 tokens; DeepSeek-V3's fp8 dispatch (arXiv:2412.19437 sec. 3.3.2) has "
                  "no "
                + knob + ", so the dispatch moves about twice the bytes the scenario assumes",
            "bf16 DeepEP dispatch instead of DeepSeek's fp8 one" });
        if (run)
            run->training.deepseekFp8Dispatch = false;
    }
    if (t.deepseekActivationCache) {
        out.push_back({ GapPlace::Training,
            name + " has no " + knob
                + " for DeepSeek-V3's activation cache (fp8 SwiGLU inputs under moe_act recompute, E5M6 attention "
                  "output; arXiv:2412.19437 sec. 3.3.2): it runs with more activation memory than the scenario assumes",
            "without DeepSeek-V3's activation cache" });
        if (run)
            run->training.deepseekActivationCache = false;
    }
}

// What torchtitan's job config has no key for (torchtitan/config/job_config.py, v0.2.0).
void torchtitanTraining(const Scenario& s, std::vector<FrameworkGap>& out, Scenario* run)
{
    const ParallelConfig& p = s.parallel;
    const TrainingConfig& t = s.training;
    if (p.tp > 1 && !p.sp) {
        out.push_back({ GapPlace::Parallel,
            "torchtitan's tensor parallelism always shards the sequence (SP); the scenario has SP off",
            "sequence parallelism on" });
        if (run)
            run->parallel.sp = true;
    }
    if (t.optimizer.precisionAware) {
        out.push_back({ GapPlace::Training,
            "torchtitan's AdamW keeps its states in the parameters' dtype (fp32 under FSDP2 mixed precision); the "
            "scenario's "
                + optimizerPrecisionText(t.optimizer) + " is not reproduced",
            "fp32 optimizer states instead of " + optimizerPrecisionText(t.optimizer) });
        if (run)
            run->training.optimizer = OptimizerPrecision {};
    }
    if (t.moeExpertCapacityFactor > 0) {
        out.push_back({ GapPlace::Training,
            "torchtitan's MoE is dropless; the scenario's expert capacity factor "
                + fixedText(t.moeExpertCapacityFactor, 2) + " (token dropping) is not reproduced",
            "dropless experts instead of capacity factor " + fixedText(t.moeExpertCapacityFactor, 2) });
        if (run) {
            run->training.moeExpertCapacityFactor = 0;
            run->training.moePadExpertInputToCapacity = false;
        }
    }
    if (!t.flashAttention) {
        out.push_back({ GapPlace::Training,
            "torchtitan uses scaled_dot_product_attention (flash or memory-efficient kernels); the scenario's unfused "
            "attention is not reproduced",
            "flash attention instead of unfused" });
        if (run)
            run->training.flashAttention = true;
    }
}

// torchtitan's data parallelism (torchtitan/models/llama3/infra/parallelize.py, apply_fsdp): data_parallel_shard_degree
// > 1 wraps each block in FSDP2's fully_shard, which keeps only the rank's shard of the gradients and the optimizer
// states (and, between steps, of the parameters). The launch file keeps the parameters gathered through the step
// for ZeRO-1 and ZeRO-2 (fsdp_reshard_after_forward "never"): that is ZeRO-2, so a ZeRO-1 design runs as ZeRO-2.
void torchtitanSharding(const Scenario& s, std::vector<FrameworkGap>& out, Scenario* run)
{
    const ParallelConfig& p = s.parallel;
    if (p.dp <= 1 || (p.zero != 1 && p.zero != 2))
        return;
    if (p.zero == 2) {
        out.push_back({ GapPlace::DataParallel,
            "torchtitan shards with FSDP2; ZeRO-2 is FSDP2 with the parameters kept gathered through the step", {} });
        return;
    }
    out.push_back({ GapPlace::DataParallel,
        "torchtitan shards with FSDP2, which keeps only each rank's gradient shard: the scenario's ZeRO-1 runs as "
        "ZeRO-2, with the parameters kept gathered through the step",
        "ZeRO-2 instead of ZeRO-1 (FSDP2 keeps each rank's gradient shard only)" });
    if (run)
        run->parallel.zero = 2;
}

// torchtitan's selective activation checkpointing (torchtitan/config/job_config.py, ActivationCheckpoint).
void torchtitanRecompute(const Scenario& s, std::vector<FrameworkGap>& out)
{
    const TrainingConfig& t = s.training;
    if (t.recompute != Recompute::Selective)
        return;
    std::string what = "Megatron's selective recompute of the attention core";
    if (t.recomputeModules != recompute_module::kCoreAttn) {
        std::string names;
        for (const std::string& name : recomputeModuleNames(t.recomputeModules))
            names += (names.empty() ? "" : ", ") + name;
        what = "the scenario's selective recompute of " + names;
    }
    out.push_back({ GapPlace::Training,
        "torchtitan's selective \"op\" policy saves matmul outputs and recomputes the rest, close to but not the "
        "same as "
            + what,
        {} });
}

// NeMo's MegatronStrategy always overlaps the interleaved schedule's p2p (overlap_p2p_comm).
void nemoPipelineOverlap(const Scenario& s, std::vector<FrameworkGap>& out, Scenario* run)
{
    if (s.parallel.p2pOverlap)
        return;
    out.push_back({ GapPlace::Pipeline,
        "NeMo always overlaps pipeline p2p with compute for interleaved 1F1B; the scenario's blocking p2p is not "
        "reproduced",
        "overlapped pipeline p2p" });
    if (run)
        run->parallel.p2pOverlap = true;
}

// Windowed attention past the window (shorter sequences train the same either way): Megatron-Core has sliding
// windows (window_size, window_attn_skip_freq) but not Llama 4's chunks; torchtitan's llama4 has the chunks
// (fixed_attn_block_size) and its other models neither.
void windowedAttention(const Scenario& s, LaunchFramework f, std::vector<FrameworkGap>& out, Scenario* run)
{
    const ModelSpec& m = s.model;
    if (!m.windowedBelow(s.seqLen()))
        return;
    const std::string window = std::to_string(m.slidingWindow) + "-token";
    if (f != LaunchFramework::Torchtitan && m.chunkedAttention) {
        out.push_back({ GapPlace::Training,
            std::string(frameworkName(f)) + " has sliding windows, not chunked attention: the launch trains " + window
                + " sliding windows on the chunked layers, about twice the chunks' attention work",
            "sliding windows instead of chunks" });
        if (run)
            run->model.chunkedAttention = false;
    } else if (f == LaunchFramework::Torchtitan && !m.chunkedAttention) {
        out.push_back({ GapPlace::Training,
            "torchtitan's models have no sliding window: the launch trains full causal attention on the " + window
                + " windowed layers",
            "full attention instead of " + window + " windows" });
        if (run)
            run->model.slidingWindow = 0;
    }
}

// torchtitan's context parallelism is PyTorch's ring attention (torch.distributed.tensor.experimental.context_parallel;
// parallelism.context_parallel_rotate_method "allgather" gathers the K/V shards behind the first block, "alltoall"
// rotates them): no head-parallel all-to-all (Ulysses) and no exposed all_gather type. Both run as the ring.
void torchtitanContextParallel(const Scenario& s, std::vector<FrameworkGap>& out, Scenario* run)
{
    if (s.parallel.cp <= 1 || s.parallel.cpCommType == CpCommType::P2p)
        return;
    const std::string type = toString(s.parallel.cpCommType);
    out.push_back({ GapPlace::Parallel,
        "torchtitan's context parallelism is PyTorch's ring attention (context_parallel_rotate_method allgather or "
        "alltoall), with no cp_comm_type "
            + type + ": the launch runs the ring",
        "the context-parallel ring instead of " + type });
    if (run)
        run->parallel.cpCommType = CpCommType::P2p;
}

// Every gap of the design under the framework, in launch-file order; with `run`, each change applied to it.
std::vector<FrameworkGap> gaps(const Scenario& s, LaunchFramework f, Scenario* run)
{
    std::vector<FrameworkGap> out;
    if (f == LaunchFramework::Torchtitan) {
        torchtitanSharding(s, out, run);
        torchtitanSchedule(s, out, run);
        rankOrder(s, f, out, run);
        deepseekFeatures(s, f, out, run);
        torchtitanTraining(s, out, run);
        torchtitanRecompute(s, out);
        torchtitanContextParallel(s, out, run);
        windowedAttention(s, f, out, run);
        return out;
    }
    megatronCoreSchedule(s, f, out, run);
    if (f == LaunchFramework::Nemo)
        nemoPipelineOverlap(s, out, run);
    rankOrder(s, f, out, run);
    deepseekFeatures(s, f, out, run);
    windowedAttention(s, f, out, run);
    return out;
}

} // namespace

std::vector<std::string> megatronCpCommTypes(const Scenario& s)
{
    const ModelSpec& m = s.model;
    if (s.parallel.cp > 1 && s.parallel.cpCommType != CpCommType::P2p)
        return { toString(s.parallel.cpCommType) };
    if (s.parallel.cp <= 1 || !m.windowedBelow(s.seqLen()))
        return {};
    if (m.slidingWindowPattern <= 0)
        return { "all_gather" };
    std::vector<std::string> types;
    types.reserve(static_cast<std::size_t>(m.layers));
    for (int l = 0; l < m.layers; ++l)
        types.emplace_back(m.isSlidingWindowLayer(l) ? "all_gather" : "p2p");
    return types;
}

const char* frameworkName(LaunchFramework f)
{
    switch (f) {
    case LaunchFramework::Nemo:
        return "NeMo";
    case LaunchFramework::Torchtitan:
        return "torchtitan";
    case LaunchFramework::MegatronLm:
    default:
        return "Megatron-LM";
    }
}

std::vector<FrameworkGap> frameworkGaps(const Scenario& s, LaunchFramework f)
{
    return gaps(s, f, nullptr);
}

std::vector<std::string> gapNotes(const Scenario& s, LaunchFramework f, GapPlace place)
{
    std::vector<std::string> lines;
    for (const FrameworkGap& g : gaps(s, f, nullptr)) {
        if (g.place == place)
            lines.push_back("# NOTE: " + g.note);
    }
    return lines;
}

std::string gapNoteText(const Scenario& s, LaunchFramework f, GapPlace place)
{
    std::string text;
    for (const std::string& line : gapNotes(s, f, place))
        text += line + "\n";
    return text;
}

Scenario runAs(const Scenario& s, LaunchFramework f, std::vector<std::string>& changes)
{
    Scenario run = s;
    changes.clear();
    for (const FrameworkGap& g : gaps(s, f, &run)) {
        if (!g.change.empty())
            changes.push_back(g.change);
    }
    return run;
}

} // namespace parallax::core
