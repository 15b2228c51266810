// SPDX-License-Identifier: Apache-2.0
#include "TextFormat.h"

#include "core/Units.h"

#include <cmath>
#include <cstdio>

namespace parallax::cli {

namespace {
std::string format(const char* fmt, double v)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, fmt, v);
    return buffer;
}
} // namespace

std::string gib(double bytes, int digits)
{
    return format(digits == 0 ? "%.0f GiB" : digits == 2 ? "%.2f GiB" : "%.1f GiB", bytes / core::kGiB);
}

std::string duration(double seconds)
{
    if (seconds >= 1.0)
        return format("%.3f s", seconds);
    if (seconds >= 1e-3)
        return format("%.2f ms", seconds * 1e3);
    return format("%.1f us", seconds * 1e6);
}

std::string percent(double fraction, int digits)
{
    return format(digits == 0 ? "%.0f%%" : "%.1f%%", fraction * 100.0);
}

std::string billions(double count)
{
    return format("%.2f B", count / 1e9);
}

std::string padRight(const std::string& s, std::size_t width)
{
    return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string padLeft(const std::string& s, std::size_t width)
{
    return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

} // namespace parallax::cli
