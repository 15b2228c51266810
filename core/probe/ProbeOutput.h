// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace parallax::probe {

// Writes `content` to a temporary file beside `path` (same directory, so the rename stays on one
// file system), flushes it to disk, then renames it over `path`: a reader sees the old file or
// the new one, never half of one (POSIX rename(2) is atomic).
bool writeFileAtomically(const std::string& path, const std::string& content, std::string& error);

// Current time as UTC ISO 8601, "2025-11-30T02:18:00Z".
std::string utcTimestamp();

} // namespace parallax::probe
