// SPDX-License-Identifier: Apache-2.0
#include "core/io/ScenarioExtras.h"

#include <map>

namespace parallax::core {

using nlohmann::json;

namespace {

const json* member(const json* object, const std::string& key)
{
    if (!object || !object->is_object())
        return nullptr;
    const auto found = object->find(key);
    return found == object->end() ? nullptr : &*found;
}

json* member(json* object, const std::string& key)
{
    if (!object || !object->is_object())
        return nullptr;
    const auto found = object->find(key);
    return found == object->end() ? nullptr : &*found;
}

// Objects the writer produces only when the scenario has them; their kept keys never create them (a null
// there was an unknown value, not kept keys, and goes back as it came).
bool createdOnlyByWriter(const std::string& path)
{
    return path == "model.moe" || path == "model.mla" || path == "cluster.topology"
        || path == "cluster.topology.domains" || path == "cluster.topology.fabrics";
}

// The kept keys of a GPU object carry the id of the GPU they were read with, and go back only into a GPU of that
// id: a domain given another GPU in the editor does not inherit them.
bool keptForOtherGpu(const std::string& path, const json& out, const json& kept)
{
    if (path != "cluster.gpu" && path != "cluster.topology.domains[].gpu")
        return false;
    const json* keptId = member(&kept, "id");
    const json* outId = member(&out, "id");
    return keptId && (!outId || *outId != *keptId);
}

// Adds the keys of `extra` that `out` lacks, recursively (known keys always win). `path` is out's JSON path.
void mergeUnknown(json& out, const json& extra, const std::string& path)
{
    if (!extra.is_object() || !out.is_object())
        return;
    for (auto it = extra.begin(); it != extra.end(); ++it) {
        const std::string childPath = path.empty() ? it.key() : path + "." + it.key();
        const auto found = out.find(it.key());
        if (found == out.end()) {
            if (!it.value().is_object() || !createdOnlyByWriter(childPath))
                out[it.key()] = it.value();
        } else if (found->is_object() && !keptForOtherGpu(childPath, *found, it.value()))
            mergeUnknown(*found, it.value(), childPath);
    }
}

const json* keptTopology(const json* extra)
{
    return member(member(extra, "cluster"), "topology");
}

// Merges byName[name] into the element of `elements` with that name, when no other element has it.
void mergeByName(json* elements, const json* byName, const std::string& path)
{
    if (!elements || !elements->is_array() || !byName || !byName->is_object())
        return;
    std::map<std::string, int> uses;
    for (const json& e : *elements) {
        if (const json* name = member(&e, "name"); name && name->is_string())
            ++uses[name->get<std::string>()];
    }
    for (json& e : *elements) {
        const json* name = member(&e, "name");
        if (!name || !name->is_string() || uses[name->get<std::string>()] != 1)
            continue;
        if (const json* kept = member(byName, name->get<std::string>()))
            mergeUnknown(e, *kept, path + "[]");
    }
}

} // namespace

json unwrittenKeys(JsonReader& r, std::initializer_list<const char*> verbatim)
{
    json kept = json::object();
    r.collectUnknown(kept);
    for (const char* key : verbatim) {
        if (r.has(key))
            kept[key] = r.at(key);
    }
    return kept;
}

void keepExtras(json& holder, const std::string& key, json kept)
{
    if (!kept.empty())
        holder[key] = std::move(kept);
}

json extrasByName(const std::vector<std::string>& names, const std::vector<json>& kept)
{
    std::map<std::string, int> uses;
    for (const auto& name : names)
        ++uses[name];
    json byName = json::object();
    for (std::size_t i = 0; i < names.size() && i < kept.size(); ++i) {
        if (uses[names[i]] == 1 && !kept[i].empty())
            byName[names[i]] = kept[i];
    }
    return byName;
}

const json* domainGpuExtras(const json* extra, const std::string& domain, const std::string& gpuId)
{
    const json* kept = member(member(member(keptTopology(extra), "domains"), domain), "gpu");
    const json* keptId = member(kept, "id");
    return kept && (!keptId || *keptId == gpuId) ? kept : nullptr;
}

void mergeScenarioExtras(json& out, const json& extra)
{
    mergeUnknown(out, extra, "");
    json* topology = member(member(&out, "cluster"), "topology");
    if (!topology || !topology->is_object())
        return;
    for (const char* list : { "domains", "fabrics" })
        mergeByName(
            member(topology, list), member(keptTopology(&extra), list), std::string("cluster.topology.") + list);
}

} // namespace parallax::core
