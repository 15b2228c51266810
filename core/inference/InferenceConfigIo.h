// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/inference/InferenceConfig.h"

#include <nlohmann/json.hpp>

namespace parallax::core {

class JsonReader;

// The scenario's `inference` block. Throws JsonFieldError naming the field and the fix.
InferenceConfig readInferenceConfig(JsonReader& r);
nlohmann::json inferenceConfigToJson(const InferenceConfig& c);

} // namespace parallax::core
