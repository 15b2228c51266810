// SPDX-License-Identifier: Apache-2.0
#include "core/io/PresetLibrary.h"

#include "core/io/EmbeddedPresets.h"
#include "core/io/ScenarioIo.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace parallax::core {

namespace {
bool startsWith(const std::string& s, const char* prefix)
{
    return s.rfind(prefix, 0) == 0;
}

std::string stem(const std::string& path)
{
    std::string name = path.substr(path.find_last_of('/') + 1);
    for (const char* ext : { ".parallax.json", ".json" }) {
        const std::string e = ext;
        if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0)
            return name.substr(0, name.size() - e.size());
    }
    return name;
}
} // namespace

const PresetLibrary& PresetLibrary::instance()
{
    static const PresetLibrary library;
    return library;
}

PresetLibrary::PresetLibrary()
{
    for (const EmbeddedFile& file : embeddedPresetFiles()) {
        const std::string path = file.relativePath;
        nlohmann::json doc;
        try {
            doc = nlohmann::json::parse(file.content);
        } catch (const nlohmann::json::exception& e) {
            m_errors.push_back(path + ": not valid JSON: " + e.what());
            continue;
        }
        LoadError error;
        if (startsWith(path, "gpus/")) {
            if (auto g = parseGpuSpec(doc, "", error)) {
                if (g->id.empty())
                    g->id = stem(path);
                m_gpus.push_back(*g);
            } else {
                m_errors.push_back(path + ": " + error.text());
            }
        } else if (startsWith(path, "models/")) {
            if (auto m = parseModelSpec(doc, "", error)) {
                if (m->id.empty())
                    m->id = stem(path);
                m_models.push_back(*m);
            } else {
                m_errors.push_back(path + ": " + error.text());
            }
        } else if (startsWith(path, "scenarios/")) {
            ScenarioPresetInfo info;
            info.id = stem(path);
            info.json = file.content;
            info.name = doc.value("name", info.id);
            const std::string description = doc.value("description", std::string());
            info.summary = description.substr(0, description.find('\n'));
            m_scenarios.push_back(std::move(info));
        }
    }
    auto byId = [](const auto& a, const auto& b) { return a.id < b.id; };
    std::sort(m_gpus.begin(), m_gpus.end(), byId);
    std::sort(m_models.begin(), m_models.end(), byId);
    std::sort(m_scenarios.begin(), m_scenarios.end(), byId);
}

std::optional<GpuSpec> PresetLibrary::gpu(const std::string& id) const
{
    for (const auto& g : m_gpus) {
        if (g.id == id)
            return g;
    }
    return std::nullopt;
}

std::optional<ModelSpec> PresetLibrary::model(const std::string& id) const
{
    const ModelSpec* m = findModel(id);
    return m ? std::optional<ModelSpec>(*m) : std::nullopt;
}

std::string PresetLibrary::modelIds() const
{
    std::string ids;
    for (const auto& m : m_models)
        ids += (ids.empty() ? "" : ", ") + m.id;
    return ids;
}

const ModelSpec* PresetLibrary::findModel(const std::string& id) const
{
    for (const auto& m : m_models) {
        if (m.id == id)
            return &m;
    }
    return nullptr;
}

const ScenarioPresetInfo* PresetLibrary::scenario(const std::string& id) const
{
    for (const auto& s : m_scenarios) {
        if (s.id == id)
            return &s;
    }
    return nullptr;
}

} // namespace parallax::core
