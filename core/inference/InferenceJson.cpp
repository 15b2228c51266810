// SPDX-License-Identifier: Apache-2.0
#include "core/inference/InferenceJson.h"

namespace parallax::core {

nlohmann::json inferenceReportToJson(const InferenceReport& r)
{
    using nlohmann::json;
    const ServingMemory& m = r.memory;
    json sweep = json::array();
    for (const auto& p : r.sweep)
        sweep.push_back({ { "concurrency", p.concurrency }, { "tpot_s", p.tpotSeconds },
            { "tokens_per_s_per_gpu", p.tokensPerSecondPerGpu } });
    return json {
        { "layout",
            { { "tp", r.tp }, { "pp", r.pp }, { "dp", r.dp }, { "ep", r.ep }, { "dp_attention", r.dpAttention } } },
        { "weight_dtype", r.weightDtype }, { "kv_dtype", r.kvDtype }, { "context_len", r.contextLen }, { "isl", r.isl },
        { "osl", r.osl }, { "gpu_memory_utilization", r.gpuMemoryUtilization },
        { "speculative_tokens", r.speculativeTokens }, { "draft_acceptance", r.draftAcceptance },
        { "speculative_method", r.speculativeMethod.empty() ? json(nullptr) : json(r.speculativeMethod) },
        { "draft_model", r.draftModel.empty() ? json(nullptr) : json(r.draftModel) },
        { "tokens_per_step", r.decode.tokensPerStep }, { "draft_weights_bytes", r.draftWeightsBytesPerGpu },
        { "model_weights_bytes", r.modelWeightsBytes }, { "weights_bytes", r.weightsBytesPerGpu },
        { "kv_bytes_per_token", r.kvBytesPerToken }, { "kv_bytes_per_token_per_gpu", r.kvBytesPerTokenPerGpu },
        { "kv_bytes_per_request_per_gpu", r.kvBytesPerRequestPerGpu }, { "kv_capacity_tokens", r.kvCapacityTokens },
        { "max_concurrency", r.maxConcurrency }, { "concurrency", r.concurrency },
        { "concurrency_solved", r.concurrencySolved }, { "ttft_s", r.ttftSeconds }, { "tpot_s", r.tpotSeconds },
        { "tokens_per_s_per_gpu", r.tokensPerSecondPerGpu },
        { "ttft_range_s", { r.ttftLowSeconds, r.ttftHighSeconds } },
        { "tpot_range_s", { r.tpotLowSeconds, r.tpotHighSeconds } },
        { "tokens_per_s_per_gpu_range", { r.tokensPerSecondPerGpuLow, r.tokensPerSecondPerGpuHigh } },
        { "decode_tokens_per_s_per_gpu", r.decodeTokensPerSecondPerGpu }, { "memory_verdict", toString(r.verdict) },
        { "verdict_reason", r.verdictReason },
        { "memory_per_gpu",
            { { "hbm_bytes", m.hbmBytes }, { "weights_bytes", m.weightsBytes }, { "kv_cache_bytes", m.kvCacheBytes },
                { "workspace_bytes", m.workspaceBytes }, { "cuda_graph_bytes", m.cudaGraphBytes },
                { "runtime_bytes", m.runtimeBytes }, { "reserve_bytes", m.reserveBytes } } },
        { "decode_step",
            { { "weights_s", r.decode.weightsSeconds }, { "kv_s", r.decode.kvSeconds },
                { "compute_s", r.decode.computeSeconds }, { "tp_s", r.decode.tpSeconds },
                { "ep_s", r.decode.epSeconds }, { "pp_s", r.decode.ppSeconds }, { "draft_s", r.decode.draftSeconds },
                { "step_s", r.decode.stepSeconds } } },
        { "prefill", { { "compute_s", r.prefillComputeSeconds }, { "comm_s", r.prefillCommSeconds } } },
        { "sweep", sweep }
    };
}

} // namespace parallax::core
