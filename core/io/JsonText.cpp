#include "core/io/JsonText.h"

#include <algorithm>

namespace parallax::core::io {

std::string checkJsonNesting(std::string_view text, int maxDepth)
{
    int depth = 0;
    long long line = 1;
    bool inString = false;
    bool escaped = false;
    for (const char c : text) {
        if (c == '\n')
            ++line;
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > maxDepth)
                return "nesting deeper than " + std::to_string(maxDepth) + " levels at line " + std::to_string(line);
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return {};
}

std::string jsonExceptionText(const nlohmann::json::exception& e)
{
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ..." -> the part after the tag.
    if (!what.empty() && what.front() == '[') {
        const auto close = what.find("] ");
        if (close != std::string::npos)
            what = what.substr(close + 2);
    }
    switch (e.id) {
    case 406:
        return "a number is outside the range of a double (about 1.8e308): " + what;
    case 316:
        return "a string is not valid UTF-8; save the file as UTF-8";
    default:
        return what;
    }
}

std::optional<nlohmann::json> parseJsonBounded(std::string_view text, std::string& error)
{
    if (std::string deep = checkJsonNesting(text); !deep.empty()) {
        error = "not accepted: " + deep;
        return std::nullopt;
    }
    try {
        return nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error& e) {
        error = "not valid JSON (" + jsonExceptionText(e) + ")";
    } catch (const nlohmann::json::exception& e) {
        error = "not readable JSON (" + jsonExceptionText(e) + ")";
    } catch (const std::bad_alloc&) {
        error = "not readable JSON: out of memory while parsing";
    }
    return std::nullopt;
}

std::string dumpJsonSafely(const nlohmann::json& j, int indent)
{
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace parallax::core::io
