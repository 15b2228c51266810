// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <nlohmann/json.hpp>

#include <set>
#include <stdexcept>
#include <string>

namespace parallax::core {

// Thrown by JsonReader; carries the JSON path of the offending value. Callers turn it into a
// LoadError at the API boundary: nothing escapes the core as an exception.
struct JsonFieldError : std::runtime_error {
    std::string path;
    JsonFieldError(std::string p, const std::string& message)
        : std::runtime_error(message)
        , path(std::move(p))
    {
    }
};

// Strict typed access to one JSON object. Every key read is remembered, so that the keys nobody
// read can be kept (collectUnknown) and written back on save (SCENARIO.md: unknown keys survive).
class JsonReader {
public:
    JsonReader(const nlohmann::json& object, std::string path);

    const std::string& path() const { return m_path; }
    std::string childPath(const std::string& key) const { return m_path.empty() ? key : m_path + "." + key; }
    bool has(const std::string& key) const;
    const nlohmann::json& at(const std::string& key); // required, any type

    long long integer(const std::string& key, long long min, long long max);
    long long integer(const std::string& key, long long min, long long max, long long fallback);
    double number(const std::string& key, double min, double max);
    double number(const std::string& key, double min, double max, double fallback);
    bool boolean(const std::string& key, bool fallback);
    std::string string(const std::string& key);
    std::string string(const std::string& key, const std::string& fallback);
    JsonReader object(const std::string& key);

    [[noreturn]] void fail(const std::string& key, const std::string& message) const;
    // Copies the keys that were never read into `extra` (an object).
    void collectUnknown(nlohmann::json& extra) const;

private:
    const nlohmann::json& m_object;
    std::string m_path;
    std::set<std::string> m_used;
};

std::string jsonTypeName(const nlohmann::json& j);

} // namespace parallax::core
