// SPDX-License-Identifier: Apache-2.0
#include "core/io/JsonText.h"

#include <algorithm>
#include <vector>

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

namespace {

// Length of the UTF-8 sequence that starts at text[i] (1-4), or 0 where the bytes there are not one
// (RFC 3629 sec. 4: a lead byte and its continuation bytes 10xxxxxx; overlong leads C0, C1, F5-FF refused).
std::size_t utf8SequenceLength(std::string_view text, std::size_t i)
{
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t length = 0;
    if (lead < 0x80)
        return 1;
    if (lead >= 0xC2 && lead <= 0xDF)
        length = 2;
    else if (lead >= 0xE0 && lead <= 0xEF)
        length = 3;
    else if (lead >= 0xF0 && lead <= 0xF4)
        length = 4;
    else
        return 0;
    if (i + length > text.size())
        return 0;
    for (std::size_t k = 1; k < length; ++k) {
        if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80)
            return 0;
    }
    return length;
}

// nlohmann quotes the bytes it read last, which may end inside a character (a file cut mid-way) or hold
// control characters: keep every whole UTF-8 character ("≈" stays "≈"), '?' for the rest.
std::string printableUtf8(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = utf8SequenceLength(text, i);
        const auto c = static_cast<unsigned char>(text[i]);
        if (n == 0 || (n == 1 && c < 0x20 && c != '\n')) {
            out += '?';
            ++i;
        } else {
            out.append(text.substr(i, n));
            i += n;
        }
    }
    return out;
}

// "...; last read: '<a whole unterminated string>'" can quote kilobytes (a description cut before its
// closing quote): keep its last kLastReadChars bytes, on a character boundary, after "...".
std::string shortenedLastRead(const std::string& what)
{
    constexpr std::size_t kLastReadChars = 120;
    const std::string marker = "last read: '";
    const std::size_t open = what.find(marker);
    if (open == std::string::npos)
        return what;
    const std::size_t from = open + marker.size();
    const std::size_t close = what.rfind('\'');
    if (close == std::string::npos || close < from || close - from <= kLastReadChars)
        return what;
    std::size_t cut = close - kLastReadChars;
    while (cut < close && (static_cast<unsigned char>(what[cut]) & 0xC0) == 0x80)
        ++cut; // not inside a character
    return what.substr(0, from) + "..." + what.substr(cut);
}

} // namespace

std::string jsonExceptionText(const nlohmann::json::exception& e)
{
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ..." -> the part after the tag.
    if (!what.empty() && what.front() == '[') {
        const auto close = what.find("] ");
        if (close != std::string::npos)
            what = what.substr(close + 2);
    }
    what = shortenedLastRead(printableUtf8(what));
    switch (e.id) {
    case 406:
        return "a number is outside the range of a double (about 1.8e308): " + what;
    case 316:
        return "a string is not valid UTF-8; save the file as UTF-8";
    default:
        return what;
    }
}

namespace {

using Json = nlohmann::json;

// nlohmann's DOM builder behind a SAX handler that keeps the JSON path of the value being read, so
// that an exception inside a value (a number past double range, bad UTF-8) can name its field.
// (nlohmann's parse callback would do the same, but its parser rescans the parent container after
// every nested value: quadratic, 13 s for an explicit topology of 65,536 domains.)
class PathTrackingSax {
public:
    explicit PathTrackingSax(Json& result)
        : m_dom(result, true)
    {
    }

    bool null() { return value(m_dom.null()); }
    bool boolean(bool v) { return value(m_dom.boolean(v)); }
    bool number_integer(Json::number_integer_t v) { return value(m_dom.number_integer(v)); }
    bool number_unsigned(Json::number_unsigned_t v) { return value(m_dom.number_unsigned(v)); }
    bool number_float(Json::number_float_t v, const Json::string_t& s) { return value(m_dom.number_float(v, s)); }
    bool string(Json::string_t& v) { return value(m_dom.string(v)); }
    bool binary(Json::binary_t& v) { return value(m_dom.binary(v)); }
    bool start_object(std::size_t n)
    {
        m_stack.push_back({ false, std::string(), 0 });
        return m_dom.start_object(n);
    }
    bool key(Json::string_t& k)
    {
        m_stack.back().key = k;
        return m_dom.key(k);
    }
    bool end_object()
    {
        m_stack.pop_back();
        return value(m_dom.end_object());
    }
    bool start_array(std::size_t n)
    {
        m_stack.push_back({ true, std::string(), 0 });
        return m_dom.start_array(n);
    }
    bool end_array()
    {
        m_stack.pop_back();
        return value(m_dom.end_array());
    }
    template <typename Exception> bool parse_error(std::size_t position, const std::string& token, const Exception& ex)
    {
        m_failedAt = path();
        return m_dom.parse_error(position, token, ex); // throws `ex`
    }

    const std::string& failedAt() const { return m_failedAt; }

private:
    struct Level {
        bool array;
        std::string key;
        std::size_t index;
    };

    bool value(bool ok)
    {
        if (!m_stack.empty() && m_stack.back().array)
            ++m_stack.back().index;
        return ok;
    }

    std::string path() const
    {
        std::string out;
        for (const Level& l : m_stack) {
            if (l.array)
                out += "[" + std::to_string(l.index) + "]";
            else if (!l.key.empty())
                out += (out.empty() ? "" : ".") + l.key;
        }
        return out;
    }

    nlohmann::detail::json_sax_dom_parser<Json> m_dom;
    std::vector<Level> m_stack;
    std::string m_failedAt;
};

} // namespace

std::optional<nlohmann::json> parseJsonBounded(std::string_view text, std::string& error, std::string* field)
{
    if (field)
        field->clear();
    if (std::string deep = checkJsonNesting(text); !deep.empty()) {
        error = "not accepted: " + deep;
        return std::nullopt;
    }
    Json result;
    PathTrackingSax sax(result);
    try {
        Json::sax_parse(text.begin(), text.end(), &sax);
        return result;
    } catch (const Json::parse_error& e) {
        // A syntax error is the file's, not a field's: the path only says where it happened.
        const std::string& where = sax.failedAt();
        error = "not valid JSON" + (where.empty() ? std::string() : " in " + where) + " (" + jsonExceptionText(e) + ")";
    } catch (const Json::exception& e) {
        error = jsonExceptionText(e);
        if (field)
            *field = sax.failedAt();
    } catch (const std::bad_alloc&) {
        error = "not readable JSON: out of memory while parsing";
    }
    return std::nullopt;
}

namespace {

// Replaces each container deeper than `prettyDepth` by a placeholder string, keeping its compact
// text in `compact` (the placeholder's number is its index there).
void compactDeep(nlohmann::json& j, int depth, int prettyDepth, std::vector<std::string>& compact)
{
    if (!j.is_structured())
        return;
    if (depth > prettyDepth && !j.empty()) {
        compact.push_back(dumpJsonSafely(j));
        j = "\u0001parallax-compact-" + std::to_string(compact.size() - 1) + "\u0001";
        return;
    }
    for (auto& child : j)
        compactDeep(child, depth + 1, prettyDepth, compact);
}

} // namespace

std::string dumpJsonPrettyBounded(const nlohmann::json& j, int indent, int prettyDepth)
{
    nlohmann::json copy = j;
    std::vector<std::string> compact;
    compactDeep(copy, 0, prettyDepth, compact);
    std::string text = dumpJsonSafely(copy, indent);
    if (compact.empty())
        return text;
    std::string out;
    out.reserve(text.size());
    const std::string open = "\"\\u0001parallax-compact-";
    const std::string close = "\\u0001\"";
    std::size_t from = 0;
    for (std::size_t at = text.find(open); at != std::string::npos; at = text.find(open, from)) {
        const std::size_t digits = at + open.size();
        const std::size_t end = text.find(close, digits);
        if (end == std::string::npos)
            break;
        const std::string number = text.substr(digits, end - digits);
        const bool ours = !number.empty() && number.size() < 10
            && number.find_first_not_of("0123456789") == std::string::npos && std::stoul(number) < compact.size();
        out.append(text, from, at - from);
        out += ours ? compact[std::stoul(number)] : text.substr(at, end + close.size() - at);
        from = end + close.size();
    }
    out.append(text, from, std::string::npos);
    return out;
}

std::string dumpJsonSafely(const nlohmann::json& j, int indent)
{
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace parallax::core::io
