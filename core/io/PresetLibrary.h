// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/cluster/GpuSpec.h"
#include "core/model/ModelSpec.h"

#include <optional>
#include <string>
#include <vector>

namespace parallax::core {

struct ScenarioPresetInfo {
    std::string id; // file stem, e.g. "guide-70b-64"
    std::string name;
    std::string summary; // first line of the description
    std::string json; // the file's text
};

// The presets compiled into the binary (presets/ in the source tree). Loading is strict: a bad
// preset is a build-time test failure, not a runtime surprise.
class PresetLibrary {
public:
    static const PresetLibrary& instance();

    std::optional<GpuSpec> gpu(const std::string& id) const;
    std::optional<ModelSpec> model(const std::string& id) const;
    // The same without a copy: the library never changes after it loads. nullptr when there is none.
    const ModelSpec* findModel(const std::string& id) const;
    const std::vector<GpuSpec>& gpus() const { return m_gpus; }
    const std::vector<ModelSpec>& models() const { return m_models; }
    const std::vector<ScenarioPresetInfo>& scenarios() const { return m_scenarios; }
    const ScenarioPresetInfo* scenario(const std::string& id) const;
    const std::vector<std::string>& loadErrors() const { return m_errors; }
    // The model preset ids, comma separated, for a message that names the choices.
    std::string modelIds() const;

private:
    PresetLibrary();
    std::vector<GpuSpec> m_gpus;
    std::vector<ModelSpec> m_models;
    std::vector<ScenarioPresetInfo> m_scenarios;
    std::vector<std::string> m_errors;
};

inline constexpr const char* kDefaultScenarioPreset = "llama3-70b-64xh100";

} // namespace parallax::core
