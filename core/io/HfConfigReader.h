// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/model/ModelSpec.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace parallax::core {

// Reads a Hugging Face transformers `config.json` (Llama, Mistral, Mixtral, Qwen2, Qwen2-MoE, Qwen3,
// Qwen3-MoE, DeepSeek-V2/V3, GPT-2, GPT-NeoX) into a Parallax model object: the `model` JSON of
// SCENARIO.md, so that the strict scenario reader checks it like a hand-written one.
class HfConfigReader {
public:
    // A config.json rather than a Parallax model: it names a `model_type` or `architectures`.
    static bool looksLikeHfConfig(const nlohmann::json& j);
    // `name` is shown for the model (e.g. the folder the file came from). On failure returns
    // nullopt and `error` names the config key and what to do.
    static std::optional<nlohmann::json> toModelJson(
        const nlohmann::json& config, const std::string& name, std::string& error);
    static std::optional<ModelSpec> read(const nlohmann::json& config, const std::string& name, std::string& error);
};

} // namespace parallax::core
