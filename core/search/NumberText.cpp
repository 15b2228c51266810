// SPDX-License-Identifier: Apache-2.0
#include "core/search/NumberText.h"

#include "core/Units.h"

#include <cmath>
#include <cstdio>

namespace parallax::core {

std::string fixedText(double value, int digits)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

std::string gibText(double bytes, int digits)
{
    return fixedText(bytes / kGiB, digits) + " GiB";
}

std::string secondsText(double seconds)
{
    if (std::fabs(seconds) >= 1.0)
        return fixedText(seconds, 2) + " s";
    if (std::fabs(seconds) >= 1e-3)
        return fixedText(seconds * 1e3, std::fabs(seconds) >= 0.1 ? 0 : 1) + " ms";
    return fixedText(seconds * 1e6, 0) + " us";
}

std::string percentText(double fraction, int digits)
{
    return fixedText(fraction * 100.0, digits) + "%";
}

std::string signedPercentText(double fraction, int digits)
{
    return (fraction >= 0 ? "+" : "") + percentText(fraction, digits);
}

} // namespace parallax::core
