// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace parallax::core::io {

// Deepest nesting of arrays and objects a reader accepts. The scenario format nests five levels
// (cluster.topology.fabrics[i].domains); the cap leaves room for unknown keys of newer files while
// keeping nlohmann's recursive parse, copy, dump and destruction far from the stack's end, and
// bounds the pretty-printed size of a saved file (its indentation grows with the depth).
inline constexpr int kMaxJsonDepth = 64;

// A linear scan of the brackets outside strings, run before any recursive parse. Returns an empty
// string, or "nesting deeper than 64 levels at line L" for the first bracket past the cap.
std::string checkJsonNesting(std::string_view text, int maxDepth = kMaxJsonDepth);

// The text of a nlohmann exception in the words of a user, without the "[json.exception...]" tag:
// a number out of double range, invalid UTF-8, a type mismatch.
std::string jsonExceptionText(const nlohmann::json::exception& e);

// checkJsonNesting, then nlohmann::json::parse with every exception caught; nothing is thrown. On
// failure `error` says what is wrong and where: a syntax error (or bad UTF-8) with its line, column
// and JSON path in the text; a well-formed value out of range (1e400) with `field` (when given) set
// to its JSON path ("parallel.tp", "gemm[2].m"), so that the caller can report it as that field's.
std::optional<nlohmann::json> parseJsonBounded(std::string_view text, std::string& error, std::string* field = nullptr);

// Pretty-prints like dump(indent), but writes containers nested deeper than `prettyDepth` on one
// line. Pretty-printing indents each line by its depth, so a deep value (an unknown key of a newer
// file, kept on save) would otherwise grow the output to about depth x size: gigabytes for a
// 16 MiB input. Invalid UTF-8 is replaced as in dumpJsonSafely.
std::string dumpJsonPrettyBounded(const nlohmann::json& j, int indent, int prettyDepth);

// Dumps JSON that may hold user strings with invalid UTF-8 (nlohmann's type_error.316) by
// replacing such bytes with U+FFFD; never throws.
std::string dumpJsonSafely(const nlohmann::json& j, int indent = -1);

} // namespace parallax::core::io
