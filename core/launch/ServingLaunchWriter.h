// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"

#include <optional>
#include <string>

namespace parallax::core {

// The serving engines a serving design can be launched on.
enum class ServingFramework { Vllm, Sglang, TrtLlm };

std::optional<ServingFramework> parseServingFramework(const std::string& name); // "vllm", "sglang", "trtllm"

// The command that serves a serving scenario (mode inference) on one of the engines, as a bash script:
// vLLM `vllm serve` (engine arguments of vLLM v0.11), SGLang `python -m sglang.launch_server` (server
// arguments of SGLang v0.5) or TensorRT-LLM `trtllm-serve` (1.0, PyTorch backend, with its
// extra_llm_api_options YAML). The layout (tp, pp, dp, ep; DP-attention), the context length, the
// memory share, the KV-cache dtype, the weight format and the concurrency the engine solved become the
// framework's flags; what a framework cannot express becomes a "# NOTE:" line saying what to do.
class ServingLaunchWriter {
public:
    // Throws std::invalid_argument naming the fix when the scenario is a training design.
    static std::string write(const Scenario& s, ServingFramework f);
};

} // namespace parallax::core
