// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>

namespace parallax::core {

// A load failure: the JSON path and the problem ("parallel.tp: must be >= 1, got 0").
struct LoadError {
    std::string path;
    std::string message;
    std::string text() const { return path.empty() ? message : path + ": " + message; }
};

// Strict readers. Presets are resolved through the PresetLibrary.
std::optional<Scenario> parseScenario(const std::string& jsonText, LoadError& error);
std::optional<Scenario> loadScenarioFile(const std::string& filePath, LoadError& error);

nlohmann::json scenarioToJson(const Scenario& s);
std::string serializeScenario(const Scenario& s); // pretty JSON, trailing newline

// Atomic save: writes a temporary file beside `filePath`, flushes, renames over it.
bool saveScenarioFile(const Scenario& s, const std::string& filePath, std::string& error);
bool writeFileAtomically(const std::string& filePath, const std::string& content, std::string& error);

// Readers for the pieces (shared by presets and inline objects). `path` prefixes error paths.
std::optional<GpuSpec> parseGpuSpec(const nlohmann::json& j, const std::string& path, LoadError& error);
std::optional<ModelSpec> parseModelSpec(const nlohmann::json& j, const std::string& path, LoadError& error);
nlohmann::json gpuSpecToJson(const GpuSpec& g);
nlohmann::json modelSpecToJson(const ModelSpec& m);
// training.optimizer: only the keys that differ from Megatron-Core's defaults ({} when all do not).
nlohmann::json optimizerPrecisionToJson(const OptimizerPrecision& o);

} // namespace parallax::core
