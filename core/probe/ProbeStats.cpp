// SPDX-License-Identifier: Apache-2.0
#include "core/probe/ProbeStats.h"

#include <algorithm>
#include <cmath>

namespace parallax::probe {

double percentile(const std::vector<double>& sorted, double q)
{
    if (sorted.empty())
        return 0;
    const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(position));
    const std::size_t above = std::min(below + 1, sorted.size() - 1);
    const double fraction = position - static_cast<double>(below);
    return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

Summary summarize(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    Summary s;
    s.count = static_cast<int>(values.size());
    s.median = percentile(values, 0.5);
    s.p10 = percentile(values, 0.1);
    s.p90 = percentile(values, 0.9);
    return s;
}

std::vector<double> ratesFromSeconds(double work, const std::vector<double>& seconds)
{
    std::vector<double> rates;
    rates.reserve(seconds.size());
    for (double t : seconds) {
        if (t > 0)
            rates.push_back(work / t);
    }
    return rates;
}

} // namespace parallax::probe
