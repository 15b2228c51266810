// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace parallax::core {

// Number formatting shared by reasons, the decision matrix and lesson texts (the C locale,
// so that golden outputs do not depend on the user's).
std::string fixedText(double value, int digits); // "12.35"
std::string gibText(double bytes, int digits = 1); // "61.2 GiB"
std::string secondsText(double seconds); // "4.56 s", "12.3 ms", "45 us"
std::string percentText(double fraction, int digits = 1); // "41.2%"
std::string signedPercentText(double fraction, int digits = 1); // "+41.2%", "-3.0%"

} // namespace parallax::core
