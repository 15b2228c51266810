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

std::string jsonExceptionText(const nlohmann::json::exception& e)
{
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ..." -> the part after the tag.
    if (!what.empty() && what.front() == '[') {
        const auto close = what.find("] ");
        if (close != std::string::npos)
            what = what.substr(close + 2);
    }
    // nlohmann quotes the bytes it read last: keep the message printable and valid UTF-8.
    for (char& c : what) {
        if (static_cast<unsigned char>(c) >= 0x80 || (static_cast<unsigned char>(c) < 0x20 && c != '\n'))
            c = '?';
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

namespace {

// The JSON path of the value the parser is in, kept from nlohmann's parse events so that an
// exception thrown inside a value (a number past double range, bad UTF-8) can name its field.
class PathTracker {
public:
    bool onEvent(int depth, nlohmann::json::parse_event_t event, const nlohmann::json& parsed)
    {
        (void)depth;
        using E = nlohmann::json::parse_event_t;
        switch (event) {
        case E::object_start:
            m_stack.push_back({ false, std::string(), 0 });
            break;
        case E::array_start:
            m_stack.push_back({ true, std::string(), 0 });
            break;
        case E::key:
            if (!m_stack.empty())
                m_stack.back().key = parsed.is_string() ? parsed.get<std::string>() : std::string();
            break;
        case E::object_end:
        case E::array_end:
            if (!m_stack.empty())
                m_stack.pop_back();
            advance();
            break;
        case E::value:
            advance();
            break;
        }
        return true;
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

private:
    struct Level {
        bool array;
        std::string key;
        std::size_t index;
    };
    void advance()
    {
        if (!m_stack.empty() && m_stack.back().array)
            ++m_stack.back().index;
    }
    std::vector<Level> m_stack;
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
    PathTracker tracker;
    const nlohmann::json::parser_callback_t callback
        = [&tracker](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
              return tracker.onEvent(depth, event, parsed);
          };
    try {
        return nlohmann::json::parse(text.begin(), text.end(), callback);
    } catch (const nlohmann::json::parse_error& e) {
        // A syntax error is the file's, not a field's: the path only says where it happened.
        const std::string where = tracker.path();
        error = "not valid JSON" + (where.empty() ? std::string() : " in " + where) + " (" + jsonExceptionText(e) + ")";
    } catch (const nlohmann::json::exception& e) {
        error = jsonExceptionText(e);
        if (field)
            *field = tracker.path();
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
