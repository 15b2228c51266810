// SPDX-License-Identifier: Apache-2.0
#include "core/validation/RecordReading.h"

#include "core/Limits.h"
#include "core/parallel/PipelineSplit.h"

#include <algorithm>
#include <cmath>

namespace parallax::core::record {

namespace {

ScheduleKind readSchedule(const std::string& s, int vpp)
{
    if (contains(s, "ZB-V"))
        return ScheduleKind::ZbV;
    if (contains(s, "DualPipeV"))
        return ScheduleKind::DualPipeV;
    if (contains(s, "DualPipe"))
        return ScheduleKind::DualPipe;
    // Zero Bubble's auto-searched ZB-2p / ZB-1p run as the handcrafted ZB-H2 / ZB-H1 with the same
    // memory limits (2p and p micro-batches of activations; arXiv:2401.10241 sec. 3).
    if (contains(s, "2p") || contains(s, "ZB-H2"))
        return ScheduleKind::ZbH2;
    if (contains(s, "Zero Bubble") || contains(s, "ZB-1p") || contains(s, "ZB-H1"))
        return ScheduleKind::ZbH1;
    if (contains(s, "GPipe"))
        return ScheduleKind::GPipe;
    return vpp > 1 ? ScheduleKind::Interleaved1F1B : ScheduleKind::OneFOneB;
}

Recompute readRecompute(const std::string& text, const SourceConventions& conv, std::vector<std::string>& assumed)
{
    if (contains(text, "full"))
        return Recompute::Full;
    if (contains(text, "selective"))
        return Recompute::Selective;
    if (contains(text, "none") || contains(text, "no recompute") || contains(text, "disabled"))
        return Recompute::None;
    assumed.push_back(
        std::string("training.recompute = ") + toString(conv.defaultRecompute) + " (" + conv.recomputeNote + ")");
    return conv.defaultRecompute;
}

// How the framework ran: kernels and overlaps (SourceConventions), as far as the record does not say.
void readFrameworkKnobs(const json& p, const SourceConventions& conv, Scenario& s, std::vector<std::string>& assumed)
{
    ParallelConfig& par = s.parallel;
    s.training.flashAttention = conv.flashAttention;
    par.tpCommOverlap = par.tp > 1 && (conv.tpCommOverlap || contains(text(p, "comm_overlap"), "--tp-comm-overlap"));
    par.dpOverlap = conv.dpOverlap;
    par.p2pOverlap = conv.p2pOverlap;
    // The context-parallel communication as the record names it (Megatron-Core --cp-comm-type), else the source's.
    if (par.cp > 1 && !parseCpCommType(text(p, "cp_comm_type"), par.cpCommType)) {
        par.cpCommType = conv.cpCommType;
        if (conv.cpCommType != CpCommType::P2p)
            assumed.push_back(std::string("parallel.cp_comm_type = ") + toString(conv.cpCommType)
                + " (the source's context parallelism)");
    }
    if (par.cp > 1 && par.cpCommType == CpCommType::A2aP2p)
        par.cpA2aSize = static_cast<int>(std::clamp(number(p, "cp_a2a_size").value_or(0.0), 0.0, 1e7));
    const bool fp16 = contains(text(p, "precision"), "fp16");
    par.gradReduceInFp32 = !fp16 && conv.gradReduceInFp32; // Megatron: fp32 for bf16, 16-bit gradients for fp16
    if (fp16)
        assumed.emplace_back("fp16 training: gradients reduced in 16 bits (Megatron's fp16 default)");
    assumed.push_back(conv.kernelNote);
}

// Interleaving not printed: the source framework's default (SourceConventions::defaultVirtualStages),
// where the layers and the micro-batches divide.
void defaultInterleaving(
    const std::string& schedule, const SourceConventions& conv, Scenario& s, std::vector<std::string>& assumed)
{
    ParallelConfig& par = s.parallel;
    const int v = conv.defaultVirtualStages;
    if (par.pp <= 1 || v <= 1 || !(contains(schedule, "interleaved") || contains(schedule, "not stated")))
        return;
    const int m = par.dp > 0 ? s.training.globalBatch / (s.training.microBatch * par.dp) : 0;
    if (s.model.layers % (par.pp * v) != 0 || m % par.pp != 0)
        return;
    par.vpp = v;
    par.schedule = ScheduleKind::Interleaved1F1B;
    assumed.push_back("parallel.vpp = " + std::to_string(v) + " (interleaved, chunks not printed)");
}

} // namespace

std::string readLayout(const json& p, const SourceConventions& conv, Scenario& s, std::vector<std::string>& assumed)
{
    ParallelConfig& par = s.parallel;
    TrainingConfig& train = s.training;
    const auto tp = number(p, "tp");
    if (!tp)
        return missingNumber(p, "parallel", "tp");
    for (const char* k : { "tp", "pp", "cp", "ep", "etp", "vpp", "micro_batch", "global_batch" }) {
        if (auto v = number(p, k); v && !(*v >= 1 && *v <= 1e7))
            return std::string("parallel.") + k + " = " + json(*v).dump() + " is not a degree or batch size";
    }
    if (std::string why = outOfRange(p, "parallel",
            { { "zero_stage", 3 }, { "global_batch_tokens", static_cast<double>(kMaxGlobalBatch) * kMaxSeqLen } });
        !why.empty())
        return why;
    par.tp = static_cast<int>(*tp);
    par.pp = static_cast<int>(number(p, "pp").value_or(1));
    par.cp = static_cast<int>(number(p, "cp").value_or(1));
    par.ep = static_cast<int>(number(p, "ep").value_or(1));
    par.etp = static_cast<int>(number(p, "etp").value_or(1));
    const int gpus = s.topology.gpuCount();
    if (!number(p, "etp") && s.model.isMoe() && conv.expertTensorParallelFollowsTp && par.tp > 1) {
        // Megatron-Core's default: expert_tensor_parallel_size = tensor_model_parallel_size. Each expert is
        // split over the TP ranks, and the EP group moves outward in the rank order (etp-ep-dp-pp), so EP
        // strides by etp and can leave the NVLink domain. Kept at 1 where ep x tp does not tile a stage.
        const long long stageRanks = gpus / std::max(1, par.pp);
        if (par.ep >= 1 && stageRanks % (static_cast<long long>(par.ep) * par.tp) == 0
            && s.model.moe->expertFfnHidden % par.tp == 0) {
            par.etp = par.tp;
            assumed.push_back("parallel.etp = tp = " + std::to_string(par.tp)
                + " (Megatron-Core default expert_tensor_parallel_size)");
        }
    }
    if (static_cast<double>(par.tp) * par.pp * par.cp > gpus) // each is up to 1e7: the int product may overflow
        return "gpu_count is not a multiple of tp * pp * cp";
    const int modelParallel = par.tp * par.pp * par.cp;
    if (modelParallel <= 0 || gpus % modelParallel != 0)
        return "gpu_count is not a multiple of tp * pp * cp";
    par.dp = gpus / modelParallel;
    if (p.contains("sp") && p["sp"].is_boolean()) {
        par.sp = p["sp"].get<bool>() && par.tp > 1;
    } else {
        par.sp = conv.sequenceParallelDefault && par.tp > 1;
        if (par.tp > 1)
            assumed.push_back(std::string("parallel.sp = ") + (par.sp ? "on" : "off") + " (framework default)");
    }
    if (auto z = number(p, "zero_stage")) {
        par.zero = static_cast<int>(*z);
    } else {
        par.zero = conv.defaultZero;
        assumed.push_back("parallel.zero = " + std::to_string(conv.defaultZero) + " (" + conv.zeroNote + ")");
    }
    const auto vpp = number(p, "vpp");
    par.vpp = static_cast<int>(vpp.value_or(1));
    const std::string schedule = text(p, "schedule");
    par.schedule = readSchedule(schedule, par.vpp);

    train.seqLen = 0;
    train.dtype = contains(text(p, "precision"), "fp8") ? DType::Fp8 : DType::Bf16;
    if (auto mb = number(p, "micro_batch")) {
        train.microBatch = static_cast<int>(*mb);
    } else {
        train.microBatch = 1;
        assumed.emplace_back("training.micro_batch = 1 (not printed)");
    }
    if (auto gb = number(p, "global_batch")) {
        train.globalBatch = static_cast<int>(*gb);
    } else if (auto tokens = number(p, "global_batch_tokens")) {
        const double sequences = std::round(*tokens / s.model.seqLen);
        if (sequences < 1 || sequences > static_cast<double>(kMaxGlobalBatch))
            return "parallel.global_batch_tokens / seq_len = " + json(sequences).dump()
                + " sequences is not a batch size";
        train.globalBatch = static_cast<int>(sequences);
        assumed.emplace_back("training.global_batch = global_batch_tokens / seq_len");
    } else {
        return missingNumber(p, "parallel", "global_batch");
    }
    train.recompute = readRecompute(text(p, "recompute"), conv, assumed);
    if (train.recompute == Recompute::Selective)
        train.recomputeModules = conv.selectiveModules;
    train.optimizer = conv.optimizer;
    train.deepseekActivationCache = conv.deepseekActivationCache && train.dtype == DType::Fp8;
    train.moeTokenDispatcher = conv.moeDispatcher;
    train.deepseekFp8Dispatch
        = conv.deepseekFp8Dispatch && conv.moeDispatcher == MoeDispatcher::DeepEp && train.dtype == DType::Fp8;
    if (!conv.memoryNote.empty())
        assumed.push_back(conv.memoryNote);
    readFrameworkKnobs(p, conv, s, assumed);
    if (!vpp)
        defaultInterleaving(schedule, conv, s, assumed);
    if (par.schedule != ScheduleKind::Interleaved1F1B)
        par.vpp = 1; // V-shaped and DualPipe schedules place their own two chunks
    if (par.pp == 1) {
        par.vpp = 1;
        par.schedule = ScheduleKind::OneFOneB;
    }
    if (conv.balancedPipelineSplit && par.pp > 1 && !hasUnevenSplit(par)) {
        const StageSplit split = balancedPipelineSplit(
            s.model.layers, par.pp, par.vpp, par.schedule, lmHeadLayerEquivalents(s.model, s.model.seqLen));
        if (split.firstStageLayers > 0 || split.lastStageLayers > 0) {
            par.firstStageLayers = split.firstStageLayers;
            par.lastStageLayers = split.lastStageLayers;
            assumed.push_back("parallel.first_stage_layers = " + std::to_string(split.firstStageLayers)
                + ", last_stage_layers = " + std::to_string(split.lastStageLayers)
                + " (a pipeline balanced for the head and MTP; the source publishes no per-stage counts)");
        }
    }
    return {};
}

} // namespace parallax::core::record
