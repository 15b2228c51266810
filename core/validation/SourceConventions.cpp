// SPDX-License-Identifier: Apache-2.0
#include "core/validation/SourceConventions.h"

namespace parallax::core {

namespace {

std::string field(const nlohmann::json& j, const char* key)
{
    return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

bool startsWith(const std::string& s, const char* prefix)
{
    return s.rfind(prefix, 0) == 0;
}

// Megatron-LM before FlashAttention and before --overlap-grad-reduce (2021-2023 code bases).
SourceConventions legacyMegatron(std::string label)
{
    SourceConventions c;
    c.label = std::move(label);
    c.gptStyle = true;
    c.tiedEmbeddings = true; // Megatron GPT shares input and output embeddings unless told otherwise
    c.dropout = true; // --hidden-dropout / --attention-dropout default 0.1
    c.sequenceParallelDefault = false;
    c.defaultZero = 0;
    c.zeroNote = "plain data parallelism";
    c.flashAttention = false;
    c.dpOverlap = false;
    c.p2pOverlap = false;
    c.kernelNote = "attention as batched GEMMs with fused scale-mask-softmax (no FlashAttention); gradients "
                   "all-reduced after the backward; blocking pipeline sends (Megatron-LM of the time)";
    return c;
}

// Selene (DGX A100, 8 x 200 Gb/s HDR InfiniBand per node), where NVIDIA's Megatron-LM papers ran.
void onSelene(SourceConventions& c)
{
    c.nicGbps = 200;
    c.networkNote = "network: Selene, 8 x 200 Gb/s HDR InfiniBand per DGX A100";
}

// Megatron-LM's layers under DeepSpeed's pipeline engine (Megatron-DeepSpeed): blocking sends, gradients reduced
// after the flush, the optimizer states sharded as ZeRO-1 and every block's activations checkpointed.
SourceConventions megatronDeepSpeed(std::string label, std::string zeroNote, std::string recomputeNote)
{
    SourceConventions c = legacyMegatron(std::move(label));
    c.defaultZero = 1;
    c.zeroNote = std::move(zeroNote);
    c.defaultRecompute = Recompute::Full;
    c.recomputeNote = std::move(recomputeNote);
    c.kernelNote = "attention as batched GEMMs with fused softmax (no FlashAttention); the DeepSpeed pipeline "
                   "engine sends blocking and reduces gradients after the flush";
    return c;
}

} // namespace

SourceConventions sourceConventions(const nlohmann::json& record)
{
    const nlohmann::json source = record.value("source", nlohmann::json::object());
    const std::string arxiv = field(source, "arxiv");
    const std::string title = field(source, "title");

    if (arxiv == "2104.04473") {
        SourceConventions c = legacyMegatron("arXiv:2104.04473");
        onSelene(c);
        c.networkNote += " (as printed)";
        c.defaultRecompute = Recompute::Full;
        c.recomputeNote = "eq. 3 assumes full recompute";
        c.defaultVirtualStages = 2;
        c.flopConvention = FlopConvention::NarayananEq3;
        return c;
    }
    if (arxiv == "2205.05198") {
        // Korthikanti et al. ran Megatron-LM of 2022 on Selene: the attention core as batched GEMMs with
        // the softmax and its dropout stored (sec. 4.1 counts those tensors; sec. 5's selective recompute
        // recomputes exactly them, pointless under a fused kernel), dropout 0.1 (its masks are counted),
        // gradients reduced after the backward.
        SourceConventions c = legacyMegatron("arXiv:2205.05198");
        onSelene(c);
        return c;
    }
    if (arxiv == "2201.11990") {
        // Megatron-Turing NLG 530B (arXiv:2201.11990 sec. 2, methods): Megatron-LM's tensor slicing inside a DGX A100
        // with DeepSpeed's pipeline parallelism (1F1B) and ZeRO-powered data parallelism, on Selene in 2021: the
        // Megatron-LM of the time (no FlashAttention, no sequence parallelism, dropout on) under DeepSpeed's
        // pipeline engine, which sends blocking and reduces gradients after the flush; ZeRO stage 1 (the
        // stage DeepSpeed's pipeline engine supports) and Megatron-DeepSpeed's activation checkpointing.
        SourceConventions c
            = megatronDeepSpeed("arXiv:2201.11990", "DeepSpeed ZeRO stage 1, the stage its pipeline engine supports",
                "Megatron-DeepSpeed activation checkpointing of every transformer block");
        onSelene(c);
        c.defaultVocab = 51200;
        c.vocabNote = "GPT-2 BPE, 50257 padded to a multiple of 128 x tp by Megatron-LM";
        // Megatron-DeepSpeed prints TFLOP/s with arXiv:2104.04473 eq. 3 (its checkpoint-activations factor 4).
        c.flopConvention = FlopConvention::NarayananEq3;
        return c;
    }
    if (arxiv == "2401.10241") {
        SourceConventions c = legacyMegatron("arXiv:2401.10241");
        c.nicGbps = 200;
        c.networkNote = "network: RoCE, not quantified; 8 x 200 Gb/s per 8-GPU node assumed";
        c.defaultVocab = 50304;
        c.vocabNote = "GPT-2 BPE, 50257 padded to a multiple of 128 by Megatron-LM";
        c.defaultRecompute = Recompute::None;
        c.recomputeNote = "not stated; the printed memory implies none";
        // Megatron's report_memory prints MB of 2^20 bytes; the paper's GB are those / 1024.
        c.memoryUnitBytes = 1024.0 * 1024.0 * 1024.0;
        return c;
    }
    if (arxiv == "2211.05100") {
        SourceConventions c = megatronDeepSpeed(
            "arXiv:2211.05100", "DeepSpeed BF16 optimizer shards like ZeRO-1", "DeepSpeed activation checkpointing");
        c.nicGbps = 100;
        c.nicsPerNode = 4;
        c.networkNote = "network: Jean Zay, 4 x 100 Gb/s Omni-Path links per 8-GPU node (as printed)";
        c.dropout = false; // BLOOM trained without dropout (arXiv:2211.05100 sec. 3.5)
        c.flopConvention = FlopConvention::BigScience;
        c.expertTensorParallelFollowsTp = false; // DeepSpeed-MoE keeps whole experts per rank
        return c;
    }
    SourceConventions c; // Megatron-Core / NeMo of 2024-2025
    c.label = startsWith(title, "NVIDIA DGX Cloud") ? "dgxc-benchmarking"
        : startsWith(title, "NVIDIA/Megatron-LM")   ? "Megatron-LM README"
        : !arxiv.empty()                            ? "arXiv:" + arxiv
                                                    : title.substr(0, 40);
    c.networkNote = "network: 8 x 400 Gb/s InfiniBand per 8-GPU node (DGX H100 reference architecture)";
    const std::string model = record.value("model", nlohmann::json::object()).value("name", "");
    c.gptStyle = model.find("GPT") != std::string::npos;
    c.tiedEmbeddings = false;
    c.dropout = false;
    c.defaultZero = 1;
    c.zeroNote = "Megatron-Core distributed optimizer";
    c.defaultRecompute = Recompute::None;
    c.recomputeNote = "recipe default, not printed";
    c.flashAttention = true;
    c.tpCommOverlap = c.label == "dgxc-benchmarking";
    c.dpOverlap = true;
    // NeMo's performance recipes (pretrain_performance_optimizations in nemo/collections/llm/recipes, and
    // scripts/performance for fp8) set trainer.plugins.grad_reduce_in_fp32 = False: a bf16 grad buffer.
    c.gradReduceInFp32 = c.label != "dgxc-benchmarking";
    c.kernelNote = "Transformer Engine fused attention; --overlap-grad-reduce and --overlap-param-gather"
        + std::string(c.tpCommOverlap ? "; TP communication overlap (NeMo performance recipes)" : "")
        + std::string(c.gradReduceInFp32 ? "" : "; bf16 gradient buffer and reduce (grad_reduce_in_fp32=False)");
    c.flopConvention = FlopConvention::MegatronCore;
    if (c.label == "Megatron-LM README")
        c.defaultVirtualStages = 2; // "interleaved likely": the smallest interleaving
    if (arxiv == "2402.15627" && field(record, "system").find("MegaScale") != std::string::npos) {
        // MegaScale fuses the TP all-gather / reduce-scatter into the adjacent parallel linears
        // (arXiv:2402.15627 sec. 3.2, "tensor parallelism"); its Megatron-LM baseline rows do not.
        c.tpCommOverlap = true;
        c.kernelNote += "; TP communication fused with the GEMMs (MegaScale sec. 3.2)";
        // Its algorithmic optimizations (sec. 3.1) include the parallel transformer block; the sliding-window
        // attention and LAMB of the same section change the model and the batch, which the record states.
        c.parallelBlock = true;
        c.parallelBlockNote = "MegaScale's parallel transformer block, arXiv:2402.15627 sec. 3.1";
    }
    if (arxiv == "2412.19437") {
        // DeepSeek-V3's own framework (arXiv:2412.19437 sec. 3.2-3.3, methods): ZeRO-1 data parallelism
        // (sec. 3.2), recompute of every RMSNorm and the MLA up-projections (sec. 3.2.3) and of the MoE
        // SwiGLU output (sec. 3.3.2), AdamW moments in BF16 with FP32 master weights (sec. 3.3.3), the
        // SwiGLU inputs cached in fp8 and the attention output in E5M6 (sec. 3.3.2).
        c.zeroNote = "ZeRO-1 (arXiv:2412.19437 sec. 3.2)";
        c.defaultRecompute = Recompute::Selective;
        c.recomputeNote = "RMSNorm, MLA up-projection and SwiGLU-output recompute, arXiv:2412.19437 sec. 3.2.3";
        c.selectiveModules = recompute_module::kLayernorm | recompute_module::kMlaUpProj | recompute_module::kMoeAct;
        c.optimizer.precisionAware = true;
        c.optimizer.expAvg = StateDType::Bf16;
        c.optimizer.expAvgSq = StateDType::Bf16;
        c.optimizer.storeParamRemainders = false;
        c.deepseekActivationCache = true;
        c.memoryNote = "recompute_modules layernorm, mla_up_proj, moe_act; AdamW moments bf16, fp32 master weights; "
                       "fp8 SwiGLU inputs and E5M6 attention output under fp8 (arXiv:2412.19437 sec. 3.2.3, 3.3)";
        // Its dispatch (sec. 3.2.2, 3.3.2): each token crosses InfiniBand once per node it needs (at most 4,
        // node-limited routing) and is forwarded over NVLink, by kernels on 20 of the 132 SMs; fp8 dispatch.
        c.moeDispatcher = MoeDispatcher::DeepEp;
        c.deepseekFp8Dispatch = true;
        // Pre-training ran one multi-token-prediction depth (sec. 2.2, 4.2: "we set the MTP depth D to 1").
        c.mtpLayers = 1;
        // DualPipe places the shallowest and the deepest layers (embedding, head) on one rank and overlaps
        // a forward and a backward chunk (sec. 3.2.1, 3.2.3): a balanced pipeline; no per-stage counts are
        // published.
        c.balancedPipelineSplit = true;
        c.kernelNote = "DeepSeek's framework: all-to-all and pipeline sends overlapped by DualPipe (sec. 3.2.1-3.2.2); "
                       "tokens sent once per node over IB and forwarded over NVLink on 20 SMs, dispatched in fp8 "
                       "(sec. 3.2.2, 3.3.2)";
    }
    if (arxiv == "2406.11704") {
        // Nemotron-4 340B (arXiv:2406.11704, training details: 8-way tensor, 12-way pipeline parallelism with
        // interleaving, data parallelism, distributed optimizer) does not print the chunks per rank. NVIDIA's
        // published pre-training configuration of the model (Megatron-Bridge nemotron4_340b_pretrain_config: TP 8,
        // PP 12, VPP 8, with TP communication overlap) interleaves 8, one layer per chunk.
        c.defaultVirtualStages = 8;
        c.tpCommOverlap = true;
        c.kernelNote += "; TP communication overlap (NVIDIA's Nemotron-4 340B pre-training configuration)";
    }
    if (arxiv == "2407.21783") {
        // Llama 3 (arXiv:2407.21783 sec. 3.3.1-3.3.2): FSDP shards the optimizer states and the gradients
        // but does not reshard the weights after the forward (ZeRO-2), and gradients are accumulated over
        // the micro-batches and reduce-scattered in FP32 ("numerical stability").
        c.defaultZero = 2;
        c.zeroNote = "FSDP shards optimizer states and gradients, not the weights (arXiv:2407.21783 sec. 3.3)";
        c.gradReduceInFp32 = true;
        // Its context parallelism all-gathers K and V, then attends the local query chunks (sec. 3.3.2: "an
        // all-gather based method"), not the ring: Megatron-Core's --cp-comm-type all_gather.
        c.cpCommType = CpCommType::AllGather;
    }
    return c;
}

double sourceFlopsPerStep(FlopConvention convention, const Scenario& s, const nlohmann::json& record)
{
    const ModelSpec& m = s.model;
    const double B = s.training.globalBatch;
    const double seq = s.seqLen();
    const double L = m.layers;
    const double h = static_cast<double>(m.hidden);
    const double V = static_cast<double>(m.vocab);
    switch (convention) {
    case FlopConvention::NarayananEq3:
        // arXiv:2104.04473 eq. 3: 96 B s l h^2 (1 + s/(6h) + V/(16 l h)).
        return 96.0 * B * seq * L * h * h * (1.0 + seq / (6.0 * h) + V / (16.0 * L * h));
    case FlopConvention::BigScience: {
        // bigscience math/README.md: params x 4 x 2 x tokens (with activation checkpointing).
        const double params = record.value("model", nlohmann::json::object()).value("params_b", 0.0) * 1e9;
        return 8.0 * params * seq * B;
    }
    case FlopConvention::MegatronCore:
    default: {
        // Megatron-Core training.py num_floating_point_operations (r0.8): 12 B s L h^2 [(1 + g/a + s/h)
        // + (F/h) k (3/2 if gated) + V/(2 L h)].
        const double g = m.kvHeads > 0 ? m.kvHeads : m.heads;
        const double experts = m.isMoe() ? m.moe->topK : 1.0;
        const double ffn = m.isMoe() ? static_cast<double>(m.moe->expertFfnHidden) : static_cast<double>(m.ffnHidden);
        const double gated = m.activation == Activation::SwiGlu ? 1.5 : 1.0;
        return 12.0 * B * seq * L * h * h
            * ((1.0 + g / m.heads + seq / h) + ffn / h * experts * gated + V / (2.0 * L * h));
    }
    }
}

} // namespace parallax::core
