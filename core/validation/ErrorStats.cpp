// SPDX-License-Identifier: Apache-2.0
#include "core/validation/ErrorStats.h"

#include "core/search/NumberText.h"

#include <algorithm>
#include <cmath>

namespace parallax::core {

ErrorStats errorStatsOf(const std::vector<std::pair<double, std::string>>& errors)
{
    ErrorStats s;
    s.count = static_cast<int>(errors.size());
    if (errors.empty())
        return s;
    std::vector<double> abs;
    for (const auto& [e, id] : errors) {
        abs.push_back(std::fabs(e));
        s.meanAbs += std::fabs(e);
        if (std::fabs(e) > s.maxAbs) {
            s.maxAbs = std::fabs(e);
            s.worstId = id;
        }
    }
    s.meanAbs /= static_cast<double>(abs.size());
    std::sort(abs.begin(), abs.end());
    const std::size_t n = abs.size();
    s.medianAbs = n % 2 ? abs[n / 2] : 0.5 * (abs[n / 2 - 1] + abs[n / 2]);
    return s;
}

std::string errorStatsLine(const std::string& label, const ErrorStats& s)
{
    if (s.count == 0)
        return label + ": no rows\n";
    return label + ": " + std::to_string(s.count) + (s.count == 1 ? " row" : " rows") + ", mean "
        + percentText(s.meanAbs) + ", median " + percentText(s.medianAbs) + ", worst " + percentText(s.maxAbs) + " ("
        + s.worstId + ")\n";
}

nlohmann::json errorStatsJson(const ErrorStats& s)
{
    return { { "rows", s.count }, { "mean_abs_error", s.meanAbs }, { "median_abs_error", s.medianAbs },
        { "max_abs_error", s.maxAbs }, { "worst", s.worstId } };
}

} // namespace parallax::core
