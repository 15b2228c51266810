// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace parallax::cli {

std::string gib(double bytes, int digits = 1); // "61.2 GiB"
std::string duration(double seconds); // "12.3 ms" / "4.56 s"
std::string percent(double fraction, int digits = 1); // "41.2%"
std::string billions(double count); // "70.55 B"
std::string padRight(const std::string& s, std::size_t width);
std::string padLeft(const std::string& s, std::size_t width);

} // namespace parallax::cli
