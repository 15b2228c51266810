// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/report/Report.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace parallax::core {

// Lesson placeholders of a serving scenario (core/search/LessonText.h): {{kv_capacity_tokens}},
// {{max_concurrency}}, {{memory_verdict}}, ... Empty optional: not an inference name, or the report
// has no inference part.
std::optional<std::string> inferenceLessonValue(const std::string& name, const Scenario& s, const Report& r);
const std::vector<std::pair<std::string, std::string>>& inferenceLessonPlaceholderNames();

// Variant fields of serving lessons: weight_dtype, kv_dtype, context_len, isl, osl, concurrency
// (a number or max), gpu_memory_utilization. Empty optional: not an inference field.
std::optional<bool> applyInferenceOverride(
    Scenario& s, const std::string& field, const std::string& value, std::string& error);

} // namespace parallax::core
