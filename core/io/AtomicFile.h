// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace parallax::core::io {

// Replaces `filePath` with `content` so that a reader sees either the old file or the new one,
// never a mix, and a crash or full disk leaves the old file as it was:
// the bytes go to an unnamed file in the same folder (O_TMPFILE; a named ".tmp-PID" file where the
// file system lacks it), are fsync'ed, then renamed over the target and the folder is fsync'ed.
// Every write, fsync and close result is checked. An existing file keeps its permission bits.
// Temporaries left by a crashed earlier save of the same file (their process is gone) are removed.
bool writeFileAtomically(const std::string& filePath, const std::string& content, std::string& error);

// Copies a file (read with the input cap of BoundedRead.h) over `toPath` atomically: when the
// source cannot be read or the write fails, `toPath` keeps its old content.
bool copyFileAtomically(const std::string& fromPath, const std::string& toPath, std::string& error);

} // namespace parallax::core::io
