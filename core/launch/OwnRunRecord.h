// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/launch/TrainingLogReader.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace parallax::core {

// A run of the user's own as a record of the published-runs schema (data/README.md), so that
// `validate --data FILE` measures the engine on the user's cluster beside the published runs: the design as
// the framework ran it (the whole scenario under "scenario", which the validation models as it is, with no
// source convention), the median step time after the warm-up and, for Megatron-LM and NeMo logs, the largest
// max allocated. `logName` and `date` (YYYY-MM-DD) name where and when it was measured; the id is the design's
// name and the log's file name.
nlohmann::json ownRunRecord(const LogCheck& check, const std::string& logName, const std::string& date);

// Adds `record` to the JSON array in the file at `path` (created when missing), replacing a record with the same
// id; saved atomically. False with `error` set when the file is not such an array or cannot be written.
bool addRunRecord(const std::string& path, const nlohmann::json& record, std::string& error);

// The checked run recorded today (UTC) in the runs file at `runsPath`, as `check-log --record` and File > Record
// Training Log do it, named after the log's file name: the record's id, or nullopt with `error` set.
std::optional<std::string> recordRun(
    const LogCheck& check, const std::string& logPath, const std::string& runsPath, std::string& error);

} // namespace parallax::core
