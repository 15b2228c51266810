// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>

namespace parallax::core::io {

// Largest input file any reader accepts. The biggest file the project ships is the published-runs
// file (about 0.6 MB); scenarios, calibrations and model configs are a few kB. The cap keeps a
// hostile file (or /dev/zero) from exhausting memory before the parser sees it.
inline constexpr std::uintmax_t kMaxInputFileBytes = 16ull * 1024 * 1024;

// Reads a whole regular file of at most `maxBytes` into `content`. On failure returns false and
// an `error` that names the file and, for the size cap, the limit ("... is 20 MiB; the limit is 16 MiB").
// Directories, devices, FIFOs and sockets are refused before any byte is read.
bool readFileBounded(
    const std::string& path, std::string& content, std::string& error, std::uintmax_t maxBytes = kMaxInputFileBytes);

} // namespace parallax::core::io
