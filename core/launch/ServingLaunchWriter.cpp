// SPDX-License-Identifier: Apache-2.0
#include "core/launch/ServingLaunchWriter.h"

#include "core/Engine.h"
#include "core/inference/SpeculativeDecoding.h"
#include "core/launch/LaunchHosts.h"
#include "core/launch/LaunchMarker.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace parallax::core {

namespace {

// Hugging Face checkpoints of the model presets a serving design names (their model cards).
const char* checkpointOf(const std::string& preset, WeightFormat f)
{
    const bool fp8 = f == WeightFormat::Fp8;
    if (preset == "llama3-8b")
        return "meta-llama/Llama-3.1-8B-Instruct";
    if (preset == "llama3-70b")
        return "meta-llama/Llama-3.1-70B-Instruct";
    if (preset == "llama3-405b")
        return fp8 ? "meta-llama/Llama-3.1-405B-Instruct-FP8" : "meta-llama/Llama-3.1-405B-Instruct";
    if (preset == "deepseek-v3")
        return "deepseek-ai/DeepSeek-V3"; // an fp8 checkpoint (128x128 block scales)
    if (preset == "mixtral-8x7b")
        return "mistralai/Mixtral-8x7B-Instruct-v0.1";
    return nullptr;
}

// The published EAGLE-3 head of a model preset (the EAGLE authors' checkpoints; TensorRT-LLM's speculative
// decoding docs list EAGLE 3 for Llama 3.1 8B and Llama 3.3 70B, the 70B head serving Llama 3.1 70B's
// architecture), or nullptr.
const char* eagle3HeadOf(const std::string& preset)
{
    if (preset == "llama3-8b")
        return "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B";
    if (preset == "llama3-70b")
        return "yuhuili/EAGLE3-LLaMA3.3-Instruct-70B";
    return nullptr;
}

// A checkpoint that already stores the design's weight format needs no quantization flag.
bool checkpointIsQuantized(const std::string& preset, WeightFormat f)
{
    return f == WeightFormat::Fp8 && (preset == "deepseek-v3" || preset == "llama3-405b");
}

struct Plan {
    int tp = 1, pp = 1, dp = 1, ep = 1;
    int gpus = 1, gpusPerNode = 1;
    bool dpAttention = false;
    int context = 0;
    int perReplicaRequests = 0; // the concurrency the design runs, per attention replica
    int totalRequests = 0;
    int drafts = 0; // speculative decoding's draft tokens per step
    SpeculativeMethod method = SpeculativeMethod::Mtp;
    std::string drafterName; // a separate drafter's (draft model, EAGLE-3 head), for its notes
    const char* drafterCheckpoint = nullptr; // its public checkpoint; nullptr: none known
    bool separateDrafter() const { return drafts > 0 && method != SpeculativeMethod::Mtp; }
    const InferenceConfig* config = nullptr;
    std::string preset;
};

Plan planOf(const Scenario& s)
{
    Plan p;
    p.tp = s.parallel.tp;
    p.pp = s.parallel.pp;
    p.dp = s.parallel.dp;
    p.ep = s.parallel.ep;
    p.gpus = p.tp * p.pp * p.dp;
    p.gpusPerNode = launchHosts(s.topology).gpusPerHost; // a rack-scale domain launches per host
    p.dpAttention = p.dp > 1 && p.ep > 1;
    p.config = &s.inference;
    p.context = s.inference.effectiveContextLen();
    p.preset = s.modelPreset;
    p.drafts = draftTokensPerStep(s.model, s.inference);
    p.method = s.inference.speculativeMethod;
    if (p.method == SpeculativeMethod::DraftModel) {
        // The draft model is read in bf16 (kDraftModelWeightFormat): its 16-bit checkpoint.
        p.drafterName = "the draft model \"" + s.inference.draftModel + "\"";
        p.drafterCheckpoint = checkpointOf(s.inference.draftModel, kDraftModelWeightFormat);
    } else if (p.method == SpeculativeMethod::Eagle3) {
        p.drafterName = "the EAGLE-3 head of \"" + LaunchMarker::oneLine(s.model.name) + "\"";
        p.drafterCheckpoint = eagle3HeadOf(s.modelPreset);
    }
    const Report r = evaluate(s);
    const int requests = r.inference ? r.inference->concurrency : std::max(1, s.inference.concurrency);
    p.totalRequests = std::max(1, requests);
    p.perReplicaRequests = std::max(1, static_cast<int>(std::ceil(static_cast<double>(p.totalRequests) / p.dp)));
    return p;
}

std::string fraction(double v)
{
    std::ostringstream o;
    o.precision(2);
    o << std::fixed << v;
    return o.str();
}

void header(std::ostringstream& o, const Scenario& s, const Plan& p, const char* engine, const char* reference)
{
    o << "#!/usr/bin/env bash\n";
    o << "# " << engine << " launch for \"" << LaunchMarker::oneLine(s.name.empty() ? s.model.name : s.name)
      << "\", written by Parallax.\n";
    o << "# Flag names as in " << reference << ".\n";
    o << "# " << p.gpus << " GPUs = tp " << p.tp << " x pp " << p.pp << " x dp " << p.dp;
    if (p.ep > 1)
        o << ", experts over ep " << p.ep << (p.dpAttention ? " (DP-attention)" : "");
    o << "; " << p.totalRequests << " requests of up to " << p.context << " tokens in flight.\n";
    o << "set -euo pipefail\n\n";
    const char* hf = checkpointOf(p.preset, p.config->weightFormat);
    o << "MODEL=\"${MODEL:-" << (hf ? hf : "/path/to/checkpoint") << "}\"\n";
    if (!hf)
        o << "# NOTE: the model \"" << LaunchMarker::oneLine(s.model.name)
          << "\" has no public checkpoint Parallax knows; set MODEL to its Hugging Face directory.\n";
    if (p.separateDrafter()) {
        o << "DRAFT_MODEL=\"${DRAFT_MODEL:-" << (p.drafterCheckpoint ? p.drafterCheckpoint : "/path/to/drafter")
          << "}\"\n";
        if (!p.drafterCheckpoint)
            o << "# NOTE: " << p.drafterName
              << " has no public checkpoint Parallax knows; set DRAFT_MODEL to its Hugging Face directory.\n";
    }
}

// Weight formats other than bf16 and fp8 are read from a pre-quantized checkpoint's config.
void quantizationNote(std::ostringstream& o, const Plan& p)
{
    const WeightFormat f = p.config->weightFormat;
    if (f != WeightFormat::Bf16 && f != WeightFormat::Fp8)
        o << "# NOTE: weights " << toString(f)
          << ": point MODEL at a checkpoint quantized to it (the engine reads the method from its config).\n";
}

void multiNodeNote(std::ostringstream& o, const Plan& p, const char* how)
{
    if (p.gpus > p.gpusPerNode)
        o << "# NOTE: " << p.gpus << " GPUs span " << (p.gpus + p.gpusPerNode - 1) / p.gpusPerNode << " nodes of "
          << p.gpusPerNode << ": " << how << "\n";
}

std::string writeVllm(const Scenario& s, const Plan& p)
{
    std::ostringstream o;
    header(o, s, p, "vLLM", "vLLM v0.11 (`vllm serve` engine arguments)");
    quantizationNote(o, p);
    // vLLM's expert parallelism splits the experts over every tp x dp rank of a stage (docs: "Expert
    // Parallel Deployment"); with data parallelism the attention runs on dp replicas.
    if (p.ep > 1 && p.ep != p.tp * p.dp)
        o << "# NOTE: vLLM splits the experts over all tp x dp = " << p.tp * p.dp
          << " ranks (--enable-expert-parallel); the design's ep " << p.ep << " has no vLLM flag.\n";
    if (p.dp > 1 && p.ep == 1)
        o << "# NOTE: dp " << p.dp
          << " dense replicas: --data-parallel-size runs them in one server (or run one server per replica).\n";
    multiNodeNote(o, p,
        "start a Ray cluster across them for tp / pp beyond a node, or add --data-parallel-size-local and "
        "--data-parallel-address for the dp ranks of each node (vLLM data-parallel deployment docs).");
    o << "\nvllm serve \"$MODEL\" \\\n";
    o << "    --tensor-parallel-size " << p.tp << " \\\n";
    if (p.pp > 1)
        o << "    --pipeline-parallel-size " << p.pp << " \\\n";
    if (p.dp > 1)
        o << "    --data-parallel-size " << p.dp << " \\\n";
    if (p.ep > 1)
        o << "    --enable-expert-parallel \\\n";
    if (p.config->weightFormat == WeightFormat::Fp8 && !checkpointIsQuantized(p.preset, p.config->weightFormat))
        o << "    --quantization fp8 \\\n"; // online fp8 of a 16-bit checkpoint
    if (p.config->kvDtype == KvDtype::Fp8)
        o << "    --kv-cache-dtype fp8 \\\n";
    o << "    --max-model-len " << p.context << " \\\n";
    o << "    --gpu-memory-utilization " << fraction(p.config->gpuMemoryUtilization) << " \\\n";
    o << "    --max-num-batched-tokens 8192 \\\n";
    // vLLM docs, "MTP (Multi-Token Prediction)": the model's own MTP layers draft; "Draft Models" and "EAGLE Draft
    // Models": a separate checkpoint (method "draft_model" or "eagle3"), at the model's tensor-parallel size by
    // default.
    if (p.separateDrafter())
        o << "    --speculative-config \"{\\\"method\\\":\\\"" << toString(p.method)
          << "\\\",\\\"model\\\":\\\"$DRAFT_MODEL\\\",\\\"num_speculative_tokens\\\":" << p.drafts << "}\" \\\n";
    else if (p.drafts > 0)
        o << "    --speculative-config '{\"method\":\"mtp\",\"num_speculative_tokens\":" << p.drafts << "}' \\\n";
    o << "    --max-num-seqs " << p.perReplicaRequests << "\n";
    return o.str();
}

std::string writeSglang(const Scenario& s, const Plan& p)
{
    std::ostringstream o;
    header(o, s, p, "SGLang", "SGLang v0.5 (`sglang.launch_server` server arguments)");
    quantizationNote(o, p);
    // Under --enable-dp-attention SGLang's --tp-size is every GPU of the stage and --dp-size the attention
    // replicas among them (SGLang DeepSeek usage docs: --tp 8 --dp 8 --enable-dp-attention).
    const int tpSize = p.dpAttention ? p.tp * p.dp : p.tp;
    o << "# NOTE: --mem-fraction-static is the share of HBM for weights and KV cache (SGLang), set here to the "
         "design's gpu_memory_utilization.\n";
    const bool multiNode = p.gpus > p.gpusPerNode;
    multiNodeNote(o, p,
        "run this on every node with NODE_RANK 0..N-1 and MASTER_ADDR the first node (--nnodes, --node-rank, "
        "--dist-init-addr).");
    o << "\npython -m sglang.launch_server --model-path \"$MODEL\" \\\n";
    o << "    --tp-size " << tpSize << " \\\n";
    if (p.dp > 1)
        o << "    --dp-size " << p.dp << " \\\n";
    if (p.dpAttention)
        o << "    --enable-dp-attention \\\n";
    if (p.ep > 1)
        o << "    --ep-size " << p.ep << " \\\n";
    if (p.pp > 1)
        o << "    --pp-size " << p.pp << " \\\n";
    if (p.config->weightFormat == WeightFormat::Fp8 && !checkpointIsQuantized(p.preset, p.config->weightFormat))
        o << "    --quantization fp8 \\\n";
    if (p.config->kvDtype == KvDtype::Fp8)
        o << "    --kv-cache-dtype fp8_e4m3 \\\n";
    o << "    --context-length " << p.context << " \\\n";
    o << "    --mem-fraction-static " << fraction(p.config->gpuMemoryUtilization) << " \\\n";
    o << "    --chunked-prefill-size 8192 \\\n";
    // SGLang docs, "Speculative Decoding" / DeepSeek usage: MTP runs on the EAGLE worker, one chain of drafts;
    // a separate small model on the STANDALONE worker ("Standalone Speculative Decoding (Small Draft Model)"),
    // an EAGLE-3 head on EAGLE3.
    if (p.drafts > 0) {
        const char* algorithm = p.method == SpeculativeMethod::DraftModel ? "STANDALONE"
            : p.method == SpeculativeMethod::Eagle3                       ? "EAGLE3"
                                                                          : "EAGLE";
        o << "    --speculative-algorithm " << algorithm << " \\\n";
        if (p.separateDrafter())
            o << "    --speculative-draft-model-path \"$DRAFT_MODEL\" \\\n";
        o << "    --speculative-num-steps " << p.drafts << " \\\n";
        o << "    --speculative-eagle-topk 1 \\\n";
        o << "    --speculative-num-draft-tokens " << p.drafts + 1 << " \\\n";
    }
    if (multiNode) {
        o << "    --max-running-requests " << p.totalRequests << " \\\n";
        o << "    --nnodes " << (p.gpus + p.gpusPerNode - 1) / p.gpusPerNode << " \\\n";
        o << "    --node-rank \"${NODE_RANK:?set NODE_RANK}\" \\\n";
        o << "    --dist-init-addr \"${MASTER_ADDR:?set MASTER_ADDR}:5000\"\n";
    } else {
        o << "    --max-running-requests " << p.totalRequests << "\n";
    }
    return o.str();
}

std::string writeTrtLlm(const Scenario& s, const Plan& p)
{
    std::ostringstream o;
    header(o, s, p, "TensorRT-LLM", "TensorRT-LLM 1.0 (`trtllm-serve`, PyTorch backend, LLM API options)");
    quantizationNote(o, p);
    if (p.config->weightFormat == WeightFormat::Fp8 && !checkpointIsQuantized(p.preset, p.config->weightFormat))
        o << "# NOTE: TensorRT-LLM serves fp8 from an fp8 checkpoint (ModelOpt); point MODEL at one.\n";
    // With attention DP the tp_size ranks each run their own attention and share the experts
    // (enable_attention_dp; TensorRT-LLM DeepSeek examples: --tp_size 8 --ep_size 8).
    const int tpSize = p.dpAttention ? p.tp * p.dp : p.tp;
    if (p.dp > 1 && !p.dpAttention)
        o << "# NOTE: dp " << p.dp << " replicas: run this server " << p.dp << " times, one per " << p.tp * p.pp
          << " GPUs (CUDA_VISIBLE_DEVICES), behind a load balancer.\n";
    if (p.dpAttention && p.tp > 1)
        o << "# NOTE: TensorRT-LLM's attention DP runs attention at tp 1 on each of the " << tpSize
          << " ranks; the design's attention tp " << p.tp << " has no flag.\n";
    o << "# NOTE: free_gpu_memory_fraction is a share of the memory left after weights and buffers (TensorRT-LLM), "
         "not of all HBM as the design's gpu_memory_utilization.\n";
    multiNodeNote(o, p, "launch with mpirun / srun (one rank per GPU) as in TensorRT-LLM's multi-node docs.");
    o << "\ncat > extra_llm_api_options.yaml <<'EOF'\n";
    if (p.dpAttention)
        o << "enable_attention_dp: true\n";
    o << "kv_cache_config:\n";
    if (p.config->kvDtype == KvDtype::Fp8)
        o << "  dtype: fp8\n";
    o << "  free_gpu_memory_fraction: " << fraction(p.config->gpuMemoryUtilization) << "\n";
    // TensorRT-LLM DeepSeek-V3 example: MTP speculative decoding in the LLM API options; a separate draft model
    // is DraftTargetDecodingConfig, an EAGLE-3 head EagleDecodingConfig ("Speculative Decoding" docs; later
    // releases name the checkpoint key speculative_model).
    if (p.separateDrafter()) {
        o << "speculative_config:\n";
        o << "  decoding_type: " << (p.method == SpeculativeMethod::Eagle3 ? "Eagle" : "DraftTarget") << "\n";
        o << "  max_draft_len: " << p.drafts << "\n";
        o << "  speculative_model_dir: " << (p.drafterCheckpoint ? p.drafterCheckpoint : "/path/to/drafter") << "\n";
        if (p.method == SpeculativeMethod::Eagle3)
            o << "  eagle3_one_model: false\n"; // the two-model path, the one that serves Llama heads
    } else if (p.drafts > 0) {
        o << "speculative_config:\n";
        o << "  decoding_type: MTP\n";
        o << "  num_nextn_predict_layers: " << p.drafts << "\n";
    }
    o << "EOF\n\n";
    o << "trtllm-serve \"$MODEL\" \\\n";
    o << "    --backend pytorch \\\n";
    o << "    --tp_size " << tpSize << " \\\n";
    o << "    --pp_size " << p.pp << " \\\n";
    if (p.ep > 1)
        o << "    --ep_size " << p.ep << " \\\n";
    o << "    --max_batch_size " << p.perReplicaRequests << " \\\n"; // per attention-DP rank or per server
    o << "    --max_num_tokens 8192 \\\n";
    o << "    --max_seq_len " << p.context << " \\\n";
    o << "    --extra_llm_api_options extra_llm_api_options.yaml\n";
    return o.str();
}

} // namespace

std::optional<ServingFramework> parseServingFramework(const std::string& name)
{
    if (name == "vllm")
        return ServingFramework::Vllm;
    if (name == "sglang")
        return ServingFramework::Sglang;
    if (name == "trtllm")
        return ServingFramework::TrtLlm;
    return std::nullopt;
}

std::string ServingLaunchWriter::write(const Scenario& s, ServingFramework f)
{
    if (s.mode != ScenarioMode::Inference)
        throw std::invalid_argument("this is a training design (mode training): serving launches (vllm, sglang, "
                                    "trtllm) need mode inference; use megatron, nemo or torchtitan for training");
    const Plan p = planOf(s);
    switch (f) {
    case ServingFramework::Vllm:
        return writeVllm(s, p);
    case ServingFramework::Sglang:
        return writeSglang(s, p);
    case ServingFramework::TrtLlm:
        return writeTrtLlm(s, p);
    }
    return {};
}

} // namespace parallax::core
