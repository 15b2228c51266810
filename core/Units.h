// SPDX-License-Identifier: Apache-2.0
#pragma once

// Unit constants. Bandwidths are bytes per second per direction unless a name says otherwise.
namespace parallax::core {

inline constexpr double kGB = 1e9; // decimal gigabyte, as datasheets use
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kMB = 1e6;
inline constexpr double kTera = 1e12;

// Gigabits per second (NIC datasheets) to bytes per second.
inline constexpr double gbpsToBytesPerSecond(double gbps)
{
    return gbps * 1e9 / 8.0;
}

} // namespace parallax::core
