// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace parallax::core {

// What a published serving measurement printed that the serving engine predicts.
enum class ServingMetric {
    KvCacheTokens, // tokens the KV cache pool holds (vLLM "GPU KV cache size", SGLang "#tokens")
    KvCacheGib, // the pool's bytes per GPU (vLLM "Available KV cache memory")
    WeightsGibPerGpu, // weights one GPU loads (vLLM "Loading model weights took")
    TtftMs, // time to first token of one request
    TpotMs, // time per output token (inter-token latency)
    OutputTokensPerSecondPerGpu, // output tokens/s divided by the GPUs of the run
};
const char* toString(ServingMetric m); // "kv_cache_tokens", ...
const char* unitOf(ServingMetric m); // "tokens", "GiB", "ms", "tok/s/GPU"

// How the framework sizes its KV pool.
enum class KvPoolConvention {
    // vLLM: gpu_memory_utilization x HBM - weights - peak activations - CUDA graphs and non-torch memory
    // (vLLM docs "Conserving memory"; gpu_worker.determine_available_memory). TensorRT-LLM rows use it too.
    GpuMemoryUtilization,
    // SGLang: mem_fraction_static x the free HBM at start-up - weights; activations and CUDA graphs live in
    // the rest (sglang srt/model_executor/model_runner.py profile_max_num_token: rest_memory =
    // available_gpu_memory - total_gpu_memory * (1 - mem_fraction_static)).
    MemFractionStatic,
};

struct ServingFigure {
    ServingMetric metric = ServingMetric::TpotMs;
    double published = 0; // in unitOf(metric)
};

// One record of data/published_serving.json turned into an inference scenario plus what to compare.
struct PublishedServingRun {
    std::string id;
    std::string source; // source.label, e.g. "TensorRT-LLM perf-overview v1.0"
    std::string framework; // system.framework
    std::string version; // system.version as printed or "not printed (...)"
    std::string gpu; // GPU preset id
    Scenario scenario;
    KvPoolConvention pool = KvPoolConvention::GpuMemoryUtilization;
    double memFractionStatic = 0; // MemFractionStatic pools
    std::vector<ServingFigure> figures; // one or more per record
    std::vector<std::string> assumptions; // defaults the suite used for what the record does not print
};

// Either a run, or the reason the record cannot be modelled (a malformed field is named with its fix).
struct ServingRunConversion {
    std::optional<PublishedServingRun> run;
    std::string id;
    std::string reason;
};

ServingRunConversion convertServingRecord(const nlohmann::json& record);

} // namespace parallax::core
