// SPDX-License-Identifier: Apache-2.0
#include "core/launch/OwnRunRecord.h"

#include "core/io/BoundedRead.h"
#include "core/io/ScenarioIo.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>

namespace parallax::core {

namespace {

// "Llama 3 70B on 64 H100" + "run-17.out" -> "llama-3-70b-on-64-h100-run-17".
std::string recordId(const std::string& design, const std::string& logName)
{
    std::string words = design;
    words += ' ';
    words += std::filesystem::path(logName).stem().string();
    std::string id;
    for (const char c : words) {
        if (std::isalnum(static_cast<unsigned char>(c)))
            id += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        else if (!id.empty() && id.back() != '-')
            id += '-';
    }
    while (!id.empty() && id.back() == '-')
        id.pop_back();
    return id.empty() ? "own-run" : id;
}

} // namespace

nlohmann::json ownRunRecord(const LogCheck& check, const std::string& logName, const std::string& date)
{
    const Scenario& s = check.run;
    const ParallelConfig& p = s.parallel;
    const LogComparison& c = check.comparison;
    nlohmann::json measured { { "iteration_time_s", c.measuredSeconds },
        { "iteration_time_range_s", { c.measuredLowSeconds, c.measuredHighSeconds } },
        { "iterations_used", c.iterationsUsed } };
    // The validation compares the allocator's peak (max allocated); torchtitan logs max reserved.
    if (c.measuredAllocatedBytes > 0 && !c.memoryIsReserved)
        measured["peak_memory_bytes"] = c.measuredAllocatedBytes;
    nlohmann::json record { { "id", recordId(check.name, logName) },
        { "source",
            { { "title", "Own measurement: " + logName },
                { "quality", "own measurement (parallax-cli check-log --record)" }, { "date", date } } },
        { "system", frameworkName(check.framework) }, { "run_kind", "benchmark" },
        { "model", { { "name", s.model.name }, { "layers", s.model.layers }, { "hidden", s.model.hidden } } },
        { "hardware",
            { { "gpu", s.topology.domains.empty() ? std::string() : s.topology.domains.front().gpu.name },
                { "gpu_count", s.topology.gpuCount() } } },
        { "parallel",
            { { "tp", p.tp }, { "cp", p.cp }, { "pp", p.pp }, { "vpp", p.vpp }, { "dp", p.dp }, { "ep", p.ep },
                { "micro_batch", s.training.microBatch }, { "global_batch", s.training.globalBatch },
                { "schedule", toString(p.schedule) } } },
        { "measured", measured }, { "scenario", scenarioToJson(s) } };
    if (!check.changes.empty())
        record["notes"]
            = "The design as " + std::string(frameworkName(check.framework)) + " ran it; the plan differed.";
    return record;
}

bool addRunRecord(const std::string& path, const nlohmann::json& record, std::string& error)
{
    nlohmann::json records = nlohmann::json::array();
    if (std::filesystem::exists(path)) {
        std::string text;
        if (!io::readFileBounded(path, text, error))
            return false;
        records = nlohmann::json::parse(text, nullptr, false);
        if (!records.is_array()) {
            error = path
                + ": not a JSON array of run records (data/README.md); give a new file or one that "
                  "check-log --record wrote";
            return false;
        }
    }
    bool replaced = false;
    for (nlohmann::json& r : records) {
        if (r.is_object() && r.contains("id") && r["id"] == record.value("id", nlohmann::json())) { // as JSON: no throw
            r = record;
            replaced = true;
        }
    }
    if (!replaced)
        records.push_back(record);
    return writeFileAtomically(path, records.dump(1) + "\n", error);
}

std::optional<std::string> recordRun(
    const LogCheck& check, const std::string& logPath, const std::string& runsPath, std::string& error)
{
    const std::chrono::year_month_day day { std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now()) };
    char date[16];
    std::snprintf(date, sizeof date, "%04d-%02u-%02u", static_cast<int>(day.year()), static_cast<unsigned>(day.month()),
        static_cast<unsigned>(day.day()));
    const nlohmann::json record = ownRunRecord(check, std::filesystem::path(logPath).filename().string(), date);
    if (!addRunRecord(runsPath, record, error))
        return std::nullopt;
    return record["id"].get<std::string>();
}

} // namespace parallax::core
