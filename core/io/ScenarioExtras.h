// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/io/JsonReader.h"

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <string>
#include <vector>

namespace parallax::core {

// Scenario::extra holds, by JSON path, what the reader of a scenario file read but the writer does not write:
// the unknown keys, and a few known keys that have no Scenario field (SCENARIO.md: unknown keys are kept on
// load and written back on save). Each object in it sits under a key the reader knows, so no unknown key of
// the same level can stand in its place. Two kinds go back by more than their path:
// - model.moe, model.mla and cluster.topology go back only into the object the writer produced: a
//   scenario edited to have no MoE, or a regular cluster, gets none of them (they alone would not load);
// - an element of cluster.topology.domains or .fabrics is held by its name, { name: keys }, and goes back
//   into the element of that name, so that a domain renamed or removed in the editor leaves its keys behind
//   instead of lending them to another. A name that two elements share keeps nothing (it is ambiguous).
// The kept keys of an inline GPU object (cluster.gpu, a domain's gpu) hold its "id" too, and go back only into a
// GPU of that id, so that a GPU swapped in the editor does not inherit another's sources.

// The keys of `r`'s object that the writer will not write back: those never read, and those of `verbatim`
// that it has (read into no field the writer writes).
nlohmann::json unwrittenKeys(JsonReader& r, std::initializer_list<const char*> verbatim = {});

// Sets holder[key] to `kept`, unless `kept` is empty: an empty object there would read as an unknown {}.
void keepExtras(nlohmann::json& holder, const std::string& key, nlohmann::json kept);

// { name: kept[i] } for each element whose name no other element has and whose kept keys are not empty.
nlohmann::json extrasByName(const std::vector<std::string>& names, const std::vector<nlohmann::json>& kept);

// What `extra` keeps of the inline GPU object of the domain named `domain`, when that GPU had the id `gpuId`;
// nullptr when nothing.
const nlohmann::json* domainGpuExtras(const nlohmann::json* extra, const std::string& domain, const std::string& gpuId);

// Writes `extra` back into the scenario document `out` (scenarioToJson): a key `out` has always wins.
void mergeScenarioExtras(nlohmann::json& out, const nlohmann::json& extra);

} // namespace parallax::core
