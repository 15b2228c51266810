// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/costs/CostModel.h"
#include "core/inference/InferenceConfig.h"
#include "core/inference/InferenceReport.h"
#include "core/inference/ServingLayout.h"
#include "core/model/ModelSpec.h"

namespace parallax::core {

// What the serving time model needs: the engine's own GEMM / HBM rates and collectives.
struct ServingTimeInputs {
    const ModelSpec& model;
    const InferenceConfig& config;
    ServingLayout layout;
    const ComputeRates& rates;
    CommGroup tp; // the attention / dense TP group
    CommGroup ep; // the expert-parallel group
    double ppHopLatencySeconds = 0;
    double ppHopBytesPerSecond = 0;
    // Prompt tokens one forward takes (vLLM --max-num-batched-tokens, TensorRT-LLM max_num_tokens;
    // ServingMemoryDefaults::maxBatchedTokens).
    double maxBatchedTokens = 8192;
    EfficiencyDefaults defaults {};
    // The rates of a bf16 drafter (a draft model or an EAGLE-3 head, kDraftModelWeightFormat) when the model's
    // weights are in another format; nullptr: `rates`.
    const ComputeRates* draftRates = nullptr;
};

// The GEMM dtype of a weight format: fp8, int8 and the fp4 formats run on the fp8 tensor-core rate
// (W8A8; fp4 peaks are not in the GPU presets), bf16 and W4A16 int4 on the bf16 rate.
DType servingComputeDType(WeightFormat f);

// Sustained FLOP/s of the engine's GEMM model at a saturating 8192^3 shape (core/costs/CostModel.h).
double sustainedGemmFlopsPerSecond(const ComputeRates& rates);

// One decode step on one replica with `requests` in flight at `averageContext` tokens each: per layer its
// kernels one after another, each GEMM bound by its FLOPs or by streaming its weights (the engine's GEMM
// model, ComputeRates::servingGemm) and the attention kernel by its FLOPs or by reading the KV cache
// (decode reads every weight it touches and the whole KV cache once per step), plus per layer the TP
// all-reduces and the MoE all-to-alls, plus a pipeline hop per stage. With pp > 1 the requests run as pp micro-batches
// (vLLM's virtual engines), so a token's step is the sum of the stages at requests / pp. With speculative
// decoding (core/inference/SpeculativeDecoding.h) the step adds the drafter's passes and verifies k + 1 tokens
// per request, and emits tokensPerStep of them.
DecodeBreakdown decodeStep(const ServingTimeInputs& in, double requests, double averageContext);

// Prefill of `prompts` requests of `tokens` each in one forward (1: TTFT without queueing): the layer's
// kernels on prompts x tokens rows with each prompt's causal attention, the collectives on those rows,
// and pp - 1 hops; with speculative decoding also the drafter's one pass over the prompt.
struct PrefillTime {
    double computeSeconds = 0;
    double commSeconds = 0;
    double totalSeconds() const { return computeSeconds + commSeconds; }
};
PrefillTime prefill(const ServingTimeInputs& in, double tokens, double prompts = 1);

// Output tokens per second per GPU with `concurrency` requests over all dp replicas, in the steady state
// of continuous batching (Orca, OSDI 2022; vLLM): every request costs its prefill once, batched with the
// other waiting prompts up to maxBatchedTokens per forward, and osl / tokensPerStep decode steps at the mean
// context isl + osl / 2.
ConcurrencyPoint servingThroughput(const ServingTimeInputs& in, int concurrency, double* decodeOnlyPerGpu = nullptr);

} // namespace parallax::core
