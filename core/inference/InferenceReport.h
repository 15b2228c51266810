// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace parallax::core {

enum class ServingVerdict { Fits, Tight, DoesNotFit };
const char* toString(ServingVerdict v); // "fits" | "tight" | "does not fit"

// One serving GPU's HBM (the fullest pipeline stage): what the engine loads, what it reserves, and
// the KV cache pool that is left (negative when the rest does not fit).
struct ServingMemory {
    double hbmBytes = 0;
    double reserveBytes = 0; // (1 - gpu_memory_utilization) x HBM, left to the driver and other processes
    double weightsBytes = 0;
    double workspaceBytes = 0; // activations of the largest prefill chunk and the sampler's logits
    double cudaGraphBytes = 0;
    double runtimeBytes = 0; // CUDA context, NCCL and custom all-reduce buffers
    double kvCacheBytes = 0; // the KV cache pool
    double usedBytes() const { return weightsBytes + workspaceBytes + cudaGraphBytes + runtimeBytes; }
};

// Decode step (one token for every request in flight, or with speculative decoding the drafts and their
// verification) on one model replica, seconds.
struct DecodeBreakdown {
    double weightsSeconds = 0; // reading the weights the step touches from HBM
    double kvSeconds = 0; // reading the requests' KV cache
    double computeSeconds = 0; // GEMM and attention FLOPs
    double tpSeconds = 0; // TP all-reduces
    double epSeconds = 0; // MoE dispatch and combine all-to-alls
    double ppSeconds = 0; // pipeline hops
    double draftSeconds = 0; // the MTP drafter's passes (speculative decoding), all its terms
    double stepSeconds = 0;
    double tokensPerStep = 1; // tokens a step emits per request (1 + the accepted drafts)
    double tpotSeconds() const { return tokensPerStep > 0 ? stepSeconds / tokensPerStep : stepSeconds; }
};

// A point of the concurrency sweep.
struct ConcurrencyPoint {
    int concurrency = 0;
    double tpotSeconds = 0;
    double tokensPerSecondPerGpu = 0;
};

struct InferenceReport {
    int tp = 1, pp = 1, dp = 1, ep = 1;
    bool dpAttention = false;
    std::string weightDtype, kvDtype;
    int contextLen = 0, isl = 0, osl = 0;
    double gpuMemoryUtilization = 0.9;
    int speculativeTokens = 0; // draft tokens per step (0: no speculative decoding)
    double draftAcceptance = 0;
    std::string speculativeMethod; // "mtp", "draft_model" or "eagle3" (SpeculativeMethod); empty without drafts
    std::string draftModel; // the separate draft model's name (method draft_model)

    double modelWeightsBytes = 0; // the whole model once, in its serving format
    double draftWeightsBytesPerGpu = 0; // the drafter's, on the last stage's GPUs
    double weightsBytesPerGpu = 0; // fullest GPU
    double kvBytesPerToken = 0; // whole model, unsharded
    double kvBytesPerTokenPerGpu = 0; // one GPU of the fullest stage
    // One request at context_len on one GPU of the fullest stage: what the capacity divides by. Windowed layers
    // (ModelSpec::slidingWindow) hold at most their window, so it can be far below per token x context_len.
    double kvBytesPerRequestPerGpu = 0;
    double kvCapacityTokens = 0; // all replicas, at context_len
    double kvCapacityTokensPerReplica = 0;
    int maxConcurrency = 0; // requests of context_len that fit at once, all replicas
    int concurrency = 0; // requests in flight used for the times (requested or solved)
    bool concurrencySolved = false;

    ServingMemory memory;
    ServingVerdict verdict = ServingVerdict::DoesNotFit;
    std::string verdictReason;

    double ttftSeconds = 0; // one request's prefill of isl tokens, unloaded
    double tpotSeconds = 0; // time per output token at `concurrency`: one decode step / tokens per step
    double tokensPerSecondPerGpu = 0; // output tokens, prefill included
    double decodeTokensPerSecondPerGpu = 0; // decode steps only
    // The ranges of the three figures from the measured error of the serving rows (core/inference/ServingBands.h).
    double ttftLowSeconds = 0, ttftHighSeconds = 0;
    double tpotLowSeconds = 0, tpotHighSeconds = 0;
    double tokensPerSecondPerGpuLow = 0, tokensPerSecondPerGpuHigh = 0;
    DecodeBreakdown decode;
    double prefillComputeSeconds = 0, prefillCommSeconds = 0;
    std::vector<ConcurrencyPoint> sweep;
};

} // namespace parallax::core
