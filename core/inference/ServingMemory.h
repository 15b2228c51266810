// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/inference/InferenceConfig.h"
#include "core/inference/InferenceReport.h"
#include "core/inference/ServingLayout.h"
#include "core/model/ModelSpec.h"

namespace parallax::core {

// Stated defaults of a vLLM-style serving engine's memory outside weights and KV cache.
struct ServingMemoryDefaults {
    // The profile run's batch: vLLM V1 --max-num-batched-tokens default for the API server on GPUs
    // with >= 70 GiB (vLLM engine arguments docs, "max_num_batched_tokens"), chunked prefill on.
    double maxBatchedTokens = 8192;
    // Requests scheduled at once: vLLM --max-num-seqs 256 (engine arguments docs); its sampler
    // profile makes fp32 logits for that many rows.
    int maxNumSeqs = 256;
    // CUDA graphs of the decode batch sizes: vLLM logs 24-28 MiB per captured size for Llama 3.1 8B
    // (vllm-project/vllm PR #23184) and the sizes share one memory pool; stated 0.5 GiB per GPU.
    double cudaGraphBytes = 0.5 * 1024 * 1024 * 1024;
    // CUDA context and cuBLAS workspaces, as training's OtherMemoryDefaults (core/memory/MemoryModel.h).
    double cudaContextBytes = 0.75 * 1024 * 1024 * 1024;
    // NCCL: ~0.25 GiB per communicator (NCCL_BUFFSIZE 4 MiB per channel and peer; NCCL env docs).
    double ncclBytesPerCommunicator = 0.25 * 1024 * 1024 * 1024;
};

struct ServingMemoryInputs {
    const ModelSpec& model;
    const InferenceConfig& config;
    ServingLayout layout;
    double hbmBytes = 0;
    ServingMemoryDefaults defaults {};
};

// Memory of the fullest GPU; `kvBytesPerRequest` receives the bytes one request of context_len holds on
// the stage that limits the capacity (the stage whose pool fills first).
ServingMemory servingMemory(
    const ServingMemoryInputs& in, double& kvBytesPerRequestOnLimitingStage, double& kvBytesPerTokenOnLimitingStage);

// Activation workspace of one GPU for a prefill chunk of `tokens` (bf16 activations of one layer at a
// time: residual, norm output, QKV, attention output, MLP or routed-expert intermediates; plus the
// fp32 logits of maxNumSeqs rows), as vLLM's profile run measures it.
double prefillWorkspaceBytes(const ModelSpec& m, ServingLayout layout, double tokens, int maxNumSeqs);

} // namespace parallax::core
