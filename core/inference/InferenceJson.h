// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/inference/InferenceReport.h"

#include <nlohmann/json.hpp>

namespace parallax::core {

// `evaluate --json`'s `inference` object (SCENARIO.md, second release): bytes, tokens, seconds.
nlohmann::json inferenceReportToJson(const InferenceReport& r);

} // namespace parallax::core
