// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/report/Report.h"

#include <string>

namespace parallax::core {

// A prediction with its range, as the CLI table, the Markdown report and the GUI print it:
// "2.36 s (2.2-2.5)", "71.3 GiB (64.9-78.0)".
std::string secondsRangeText(double seconds, double lowSeconds, double highSeconds);
std::string gibRangeText(double bytes, double lowBytes, double highBytes);
// A rate with its range, the bounds without decimals from 100 up: "363.0 (327-388)", "5.2 (4.7-5.6)".
std::string rateRangeText(double value, double low, double high);

std::string stepTimeRangeText(const Report& r);
// What the step-time range was measured on: "h100-sxm x dense, runs of 8-6144 GPUs", or the family's text
// alone where no family was measured.
std::string stepTimeRangeSourceText(const Report& r);
std::string peakMemoryRangeText(const Report& r);

} // namespace parallax::core
