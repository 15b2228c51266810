// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace parallax::core {

// Absolute relative errors of one group of compared figures (training or serving rows).
struct ErrorStats {
    int count = 0;
    double meanAbs = 0;
    double medianAbs = 0;
    double maxAbs = 0;
    std::string worstId;
};

// Mean, median and worst absolute error of (signed error, row id) pairs.
ErrorStats errorStatsOf(const std::vector<std::pair<double, std::string>>& errors);
// "label: 12 rows, mean 4.2%, median 3.1%, worst 17.5% (id)\n", or "label: no rows\n".
std::string errorStatsLine(const std::string& label, const ErrorStats& s);
nlohmann::json errorStatsJson(const ErrorStats& s);

} // namespace parallax::core
