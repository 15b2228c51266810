// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/calibration/Calibration.h"

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace parallax::cli {

// Bad usage or an unreadable input: exit code 2 with this one-line message.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A value of the scenario out of range or inconsistent (the message names the field): exit code 1.
struct InvalidConfigError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalidConfig = 1;
inline constexpr int kExitUsage = 2;

// "--key value" options, "--switch" flags and positional arguments of one subcommand.
class Args {
public:
    // `switches` are the options that take no value.
    Args(const std::vector<std::string>& argv, const std::vector<std::string>& switches);

    bool has(const std::string& key) const { return m_values.count(key) > 0; }
    std::string value(const std::string& key, const std::string& fallback = "") const;
    int integer(const std::string& key, int fallback, int min, int max) const;
    double number(const std::string& key, double fallback, double min, double max) const;
    // A comma-separated value ("1f1b,dualpipe"), its empty items dropped; none when the option is absent.
    std::vector<std::string> list(const std::string& key) const;
    const std::vector<std::string>& positional() const { return m_positional; }
    // Fails on any option not in `known` (so typos are reported, not ignored).
    void allowOnly(const std::vector<std::string>& known) const;

private:
    std::map<std::string, std::string> m_values;
    std::vector<std::string> m_positional;
};

// The scenario of `evaluate`/`recommend`: a file (positional) and/or the SCENARIO.md flags, which
// override the file (or the default preset when no file is given).
core::Scenario scenarioFromArgs(const Args& args);
const std::vector<std::string>& scenarioFlagNames();
std::optional<core::Calibration> calibrationFromArgs(const Args& args);

} // namespace parallax::cli
