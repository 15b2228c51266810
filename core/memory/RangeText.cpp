// SPDX-License-Identifier: Apache-2.0
#include "core/memory/RangeText.h"

#include "core/Units.h"
#include "core/search/NumberText.h"

#include <algorithm>
#include <cmath>

namespace parallax::core {

namespace {
// A bound at `digits` decimals, rounded to nearest unless that would put it on the wrong side of the value it
// brackets: a printed range always contains its printed point ("15.8 ms (15-20)", not "(16-20)").
std::string boundText(double bound, double value, int digits, bool low)
{
    const double unit = std::pow(10.0, digits);
    double shown = std::round(bound * unit) / unit;
    if (low && shown > value)
        shown = std::floor(bound * unit) / unit;
    if (!low && shown < value)
        shown = std::ceil(bound * unit) / unit;
    return fixedText(shown, digits);
}
} // namespace

std::string secondsRangeText(double seconds, double lowSeconds, double highSeconds)
{
    // The bounds in the value's unit, one digit less precise than the value itself.
    const double magnitude = std::fabs(seconds);
    const double scale = magnitude >= 1.0 ? 1.0 : magnitude >= 1e-3 ? 1e3 : 1e6;
    const int digits = magnitude >= 1.0 ? 2 : magnitude >= 0.1 ? 0 : magnitude >= 1e-3 ? 1 : 0;
    const int boundDigits = std::max(0, digits - 1);
    return secondsText(seconds) + " (" + boundText(lowSeconds * scale, seconds * scale, boundDigits, true) + "-"
        + boundText(highSeconds * scale, seconds * scale, boundDigits, false) + ")";
}

std::string gibRangeText(double bytes, double lowBytes, double highBytes)
{
    return gibText(bytes) + " (" + fixedText(lowBytes / kGiB, 1) + "-" + fixedText(highBytes / kGiB, 1) + ")";
}

std::string rateRangeText(double value, double low, double high)
{
    const int boundDigits = std::fabs(value) >= 100.0 ? 0 : 1;
    return fixedText(value, 1) + " (" + boundText(low, value, boundDigits, true) + "-"
        + boundText(high, value, boundDigits, false) + ")";
}

std::string stepTimeRangeText(const Report& r)
{
    return secondsRangeText(r.stepTimeSeconds, r.stepTimeLowSeconds, r.stepTimeHighSeconds);
}

std::string stepTimeRangeSourceText(const Report& r)
{
    if (r.stepTimeFamilyMostGpus <= 0)
        return r.stepTimeFamily;
    return r.stepTimeFamily + ", runs of " + std::to_string(r.stepTimeFamilyFewestGpus) + "-"
        + std::to_string(r.stepTimeFamilyMostGpus) + " GPUs";
}

std::string peakMemoryRangeText(const Report& r)
{
    return gibRangeText(r.peakMemoryBytes, r.peakMemoryLowBytes, r.peakMemoryHighBytes);
}

} // namespace parallax::core
