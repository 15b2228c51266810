// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/parallel/OptimizerPrecision.h"

#include <algorithm>
#include <string>
#include <vector>

namespace parallax::core {

enum class ScheduleKind { GPipe, OneFOneB, Interleaved1F1B, ZbH1, ZbH2, ZbV, DualPipe, DualPipeV };
enum class Recompute { None, Selective, Full };
enum class DType { Bf16, Fp8 };
// Megatron-Core's MoE token dispatcher (--moe-token-dispatcher-type): NCCL all-to-all, or the flex
// dispatcher with DeepEP's kernels (--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend deepep).
enum class MoeDispatcher { AllToAll, DeepEp };
// Megatron-Core's context-parallel communication (--cp-comm-type; TransformerConfig cp_comm_type). P2p: Transformer
// Engine's ring passes K and V behind the attention blocks (arXiv:2310.01889 sec. 3); the ring has no windows, so
// the windowed layers of a model run all_gather (TransformerEngine PR #1060). AllGather: every layer gathers K and V
// before its attention, exposed. A2a: DeepSpeed-Ulysses (arXiv:2309.14509 sec. 3.1): all-to-alls trade the sequence
// shard for a head shard, so each rank attends over the whole sequence with heads / cp heads; exposed, and it needs
// the query and the key/value heads of a TP rank divisible by cp (Transformer Engine's context_parallel.py asserts it).
// A2aP2p: hierarchical (--hierarchical-context-parallel-sizes a p): Ulysses over groups of a adjacent cp ranks, then
// the ring over the p groups with the heads / a that each holds (Transformer Engine >= 1.12).
enum class CpCommType { P2p, AllGather, A2a, A2aP2p };

// The submodules selective recompute re-runs in the backward, as bits: Megatron-Core
// TransformerConfig.recompute_modules / --recompute-modules (megatron/core/transformer/
// transformer_config.py), read only under --recompute-granularity selective. "core_attn", "mlp",
// "moe" and "shared_experts" are normal checkpoints (their inputs are kept, their internals
// recomputed); "moe_act", "layernorm" and "mla_up_proj" discard their outputs
// (tensor_parallel.CheckpointWithoutOutput), which frees the copy the next linear saved.
namespace recompute_module {
inline constexpr unsigned kCoreAttn = 1u << 0;
inline constexpr unsigned kMoeAct = 1u << 1;
inline constexpr unsigned kLayernorm = 1u << 2;
inline constexpr unsigned kMlaUpProj = 1u << 3;
inline constexpr unsigned kMlp = 1u << 4;
inline constexpr unsigned kMoe = 1u << 5;
inline constexpr unsigned kSharedExperts = 1u << 6;
inline constexpr unsigned kDefault = kCoreAttn; // Megatron-Core's default: ["core_attn"]
} // namespace recompute_module

// Parallel degrees in Megatron-Core terms: world = tp * cp * pp * dp; experts are sharded over
// ep ranks carved out of dp * cp (expert-data-parallel = dp * cp / ep), optionally with an expert
// tensor parallel size etp (Megatron-Core parallel_state, "expert_tensor_parallel_size").
struct ParallelConfig {
    int tp = 1;
    bool sp = false;
    int cp = 1;
    int pp = 1;
    int vpp = 1; // virtual stages (model chunks) per pipeline rank
    int dp = 1;
    int ep = 1;
    int etp = 1;
    int zero = 0; // 0..3
    CpCommType cpCommType = CpCommType::P2p; // read only with cp > 1
    // A2aP2p: the all-to-all level's size, the first of Megatron-Core's hierarchical_context_parallel_sizes (the ring
    // level is cp / it); 0 otherwise.
    int cpA2aSize = 0;
    ScheduleKind schedule = ScheduleKind::OneFOneB;
    std::string order = "tp-cp-ep-dp-pp"; // fastest-varying first
    // Megatron-Core --tp-comm-overlap (Transformer Engine userbuffers): TP all-gathers and
    // reduce-scatters are split into chunks and pipelined with the GEMMs they feed.
    bool tpCommOverlap = false;
    // --overlap-grad-reduce / --overlap-param-gather: DP collectives run behind the backward and the
    // next forward. Off, they run after the backward (Megatron-LM before 2023, DeepSpeed pipelines).
    bool dpOverlap = true;
    // --ddp-bucket-size: parameters per gradient bucket of pipeline rank 0's first model chunk, the only one
    // Megatron-Core buckets; 0 takes its default, max(40M, 1M x dp) (core/costs/GradBuckets.h).
    long long ddpBucketSize = 0;
    // --overlap-p2p-comm: pipeline sends and receives run beside compute. Off, each forward and
    // backward waits for its send (torch batch_isend_irecv + wait: Megatron-LM before Core, DeepSpeed).
    bool p2pOverlap = true;
    // --accumulate-allreduce-grads-in-fp32: Megatron forces it for bf16 training; fp16 runs of its
    // time reduced 16-bit gradients.
    bool gradReduceInFp32 = true;
    // --overlap-moe-expert-parallel-comm: the MoE dispatch/combine all-to-alls of one micro-batch run
    // behind another's compute. Off (the default), they sit on the critical path.
    bool epCommOverlap = false;
    // Uneven pipeline split (Megatron-Core TransformerConfig num_layers_in_first_pipeline_stage /
    // num_layers_in_last_pipeline_stage, --decoder-first/last-pipeline-num-layers): transformer layers
    // of the first and last pipeline ranks, 0 = even split. The account_for_* switches count the
    // embedding / the loss as one layer of the first / last rank instead. See core/parallel/PipelineSplit.h.
    int firstStageLayers = 0;
    int lastStageLayers = 0;
    bool accountForEmbedding = false;
    bool accountForLoss = false;
    // Megatron-Core's custom layout (--pipeline-model-parallel-layout, core/parallel/PipelineLayout.h): the
    // layers of every virtual stage given explicitly; empty = the forms above. Excludes them.
    std::string pipelineLayout;

    int worldSize() const { return tp * cp * pp * dp; }
};

struct TrainingConfig {
    int microBatch = 1;
    int globalBatch = 1; // sequences per step
    int seqLen = 0; // 0 means the model's default
    Recompute recompute = Recompute::None;
    // Under selective recompute, the submodules re-run (recompute_module bits); ignored otherwise.
    unsigned recomputeModules = recompute_module::kDefault;
    DType dtype = DType::Bf16;
    // Main parameters, gradients and Adam moments of the optimizer (training.optimizer).
    OptimizerPrecision optimizer;
    // Fused attention (FlashAttention, arXiv:2205.14135): the s x s scores are never stored. Off, the
    // attention core runs as batched GEMMs plus memory-bound softmax/dropout kernels and stores the
    // scores (arXiv:2205.05198 sec. 4.1).
    bool flashAttention = true;
    // Megatron-Core --activation-func-fp8-input-store (TransformerConfig.activation_func_fp8_input_store):
    // the fused SwiGLU (bias_swiglu_impl, weighted_bias_swiglu_impl) saves its input in fp8 for the backward.
    bool activationFuncFp8InputStore = false;
    // DeepSeek-V3's low-precision activation cache (arXiv:2412.19437 sec. 3.3.2): the MoE SwiGLU inputs
    // in fp8, and the attention output, which the output projection also reads, once in 12-bit E5M6.
    bool deepseekActivationCache = false;
    // Megatron-Core token dropping (--moe-expert-capacity-factor; TransformerConfig.moe_expert_capacity_factor):
    // an expert takes at most this multiple of the mean tokens and drops the rest; 0: dropless. With
    // --moe-pad-expert-input-to-capacity every expert's input is padded to exactly that capacity.
    double moeExpertCapacityFactor = 0;
    bool moePadExpertInputToCapacity = false;
    // The token dispatcher. DeepEP sends a token once to each node its experts are on and forwards it over
    // NVLink there (deepseek-ai/DeepEP README, "normal kernels"); its kernels hold moeDeepepNumSms SMs
    // (--moe-deepep-num-sms, Megatron-Core default 20; DeepSeek-V3 used 20 of 132, arXiv:2412.19437 sec. 3.2.2).
    MoeDispatcher moeTokenDispatcher = MoeDispatcher::AllToAll;
    int moeDeepepNumSms = 20;
    // DeepSeek-V3's low-precision communication (arXiv:2412.19437 sec. 3.3.2): the dispatch sends fp8 with
    // one fp32 scale per 128 values, the combine stays bf16. Needs FP8 and DeepEP; no Megatron-Core flag.
    bool deepseekFp8Dispatch = false;
};

// The busiest expert's tokens over the mean: the engine's load imbalance, capped by a capacity factor
// (tokens beyond it are dropped), or the capacity itself where the input is padded to it (GShard's
// capacity factor, arXiv:2006.16668 sec. 2.2; Megatron-Core moe_utils.py, token dropping).
inline double expertLoadFactor(const TrainingConfig& t, double imbalance)
{
    if (t.moeExpertCapacityFactor <= 0)
        return imbalance;
    return t.moePadExpertInputToCapacity ? t.moeExpertCapacityFactor : std::min(imbalance, t.moeExpertCapacityFactor);
}

// Number of micro-batches per pipeline per step: m = global / (micro * dp).
inline int microbatchesPerStep(const ParallelConfig& p, const TrainingConfig& t)
{
    const long denom = static_cast<long>(t.microBatch) * p.dp;
    return denom > 0 ? static_cast<int>(t.globalBatch / denom) : 0;
}

const char* toString(ScheduleKind k);
const char* toString(Recompute r);
const char* toString(DType d);
const char* toString(MoeDispatcher d);
bool parseMoeDispatcher(const std::string& s, MoeDispatcher& out);
const char* toString(CpCommType t); // Megatron-Core's spelling: p2p, all_gather, a2a
bool parseCpCommType(const std::string& s, CpCommType& out); // also reads allgather
// "a2a", "a2a+p2p (2 x 4)": the type, and for a2a+p2p its all-to-all level times the ring's ranks.
std::string cpCommText(CpCommType t, int cp, int a2aSize);
bool parseSchedule(const std::string& s, ScheduleKind& out);
bool parseRecompute(const std::string& s, Recompute& out);
bool parseDType(const std::string& s, DType& out);
// A Megatron-Core recompute module name ("core_attn", "moe_act", ...) as its bit; false if unknown.
bool parseRecomputeModule(const std::string& s, unsigned& bit);
// The names of the modules in `modules`, in Megatron-Core's order of the choices list.
std::vector<std::string> recomputeModuleNames(unsigned modules);
// The list every module name accepts, for messages: "core_attn, moe_act, ...".
std::string recomputeModuleChoices();
// The modules selective recompute re-runs for this configuration: its list under selective, none otherwise.
unsigned selectiveModules(const TrainingConfig& t);
// "selective", "full", "none", or "selective (layernorm, mla_up_proj, moe_act)" for a non-default list.
std::string recomputeText(const TrainingConfig& t);
// The framework switches that differ from their defaults, for configuration lines:
// "unfused attention", "TP comm overlap", "DP sync not overlapped", "blocking p2p",
// "16-bit gradient reduce", "precision-aware optimizer (exp_avg bf16, ...)"; empty when all are at
// their defaults.
std::vector<std::string> nonDefaultSwitches(const ParallelConfig& p, const TrainingConfig& t);
bool scheduleSplitsBackward(ScheduleKind k); // zero-bubble family and DualPipe: B and W ops
bool scheduleUsesChunks(ScheduleKind k); // interleaved / V / DualPipe family carry 2+ chunks

} // namespace parallax::core
