// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/validation/SourceConventions.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

// Reading the parts of one published-run record (data/README.md schema) into a scenario. Each
// reader fills its part, appends every default it used to `assumed`, and returns the reason the
// record cannot be modelled (empty when it can).
namespace parallax::core::record {

using nlohmann::json;

std::optional<double> number(const json& j, const char* key);
std::string text(const json& j, const char* key);
bool contains(const std::string& haystack, const char* needle); // case-insensitive
// Why a required number is missing, naming the field: "model.layers not stated", or, where the record states it
// as something else, "model.layers must be a number, found string \"24\"".
std::string missingNumber(const json& j, const std::string& section, const char* key);

// Bounds checked before any narrowing cast (a double past int range cast to int is undefined
// behaviour): the reason a record cannot be modelled when a number of `j` named in `limits` lies
// outside [0, max], empty when every one is in range. `section` prefixes the key in the reason.
struct NumberLimit {
    const char* key;
    double max;
};
std::string outOfRange(const json& j, const std::string& section, std::initializer_list<NumberLimit> limits);

// hardware -> scenario topology (and its GPU preset id in `gpu`).
std::string readHardware(
    const json& hw, const SourceConventions& conv, Scenario& s, std::string& gpu, std::vector<std::string>& assumed);
// model -> scenario model.
std::string readModel(
    const json& m, const SourceConventions& conv, ModelSpec& model, std::vector<std::string>& assumed);
// parallel -> parallel degrees, schedule and training knobs (needs the topology and model read).
std::string readLayout(const json& p, const SourceConventions& conv, Scenario& s, std::vector<std::string>& assumed);

} // namespace parallax::core::record
