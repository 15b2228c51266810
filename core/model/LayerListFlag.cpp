// SPDX-License-Identifier: Apache-2.0
#include "core/model/LayerListFlag.h"

#include <cctype>

namespace parallax::core {

namespace {

// A small recursive reader of the expression: sum := term ('+' term)*; term := atom ('*' count)?;
// atom := '[' 0|1 (',' 0|1)* ']' | '(' sum ')'. Quotes and white space are dropped first.
class ListReader {
public:
    explicit ListReader(const std::string& text)
    {
        for (char c : text) {
            if (!std::isspace(static_cast<unsigned char>(c)) && c != '\'' && c != '"')
                m_text.push_back(c);
        }
    }

    bool read(std::vector<int>& out) { return readSum(out, 0) && m_at == m_text.size(); }

private:
    static constexpr std::size_t kMaxEntries = 1 << 16;
    static constexpr int kMaxDepth = 16;

    bool skip(char c)
    {
        if (m_at < m_text.size() && m_text[m_at] == c) {
            ++m_at;
            return true;
        }
        return false;
    }

    bool readSum(std::vector<int>& out, int depth)
    {
        do {
            if (!readTerm(out, depth))
                return false;
        } while (skip('+'));
        return true;
    }

    bool readTerm(std::vector<int>& out, int depth)
    {
        std::vector<int> atom;
        if (skip('(')) {
            // A group's ')' may be missing at the very end: NeMo's reader strips the line's trailing ')'.
            if (depth >= kMaxDepth || !readSum(atom, depth + 1) || (!skip(')') && m_at != m_text.size()))
                return false;
        } else if (!readList(atom)) {
            return false;
        }
        std::size_t times = 1;
        if (skip('*') && !readCount(times))
            return false;
        if (out.size() + times * atom.size() > kMaxEntries)
            return false;
        for (std::size_t t = 0; t < times; ++t)
            out.insert(out.end(), atom.begin(), atom.end());
        return true;
    }

    bool readCount(std::size_t& n)
    {
        const std::size_t start = m_at;
        n = 0;
        while (m_at < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_at])) && n <= kMaxEntries)
            n = n * 10 + static_cast<std::size_t>(m_text[m_at++] - '0');
        return m_at > start && n <= kMaxEntries;
    }

    bool readList(std::vector<int>& list)
    {
        if (!skip('['))
            return false;
        do {
            if (m_at >= m_text.size() || (m_text[m_at] != '0' && m_text[m_at] != '1'))
                return false;
            list.push_back(m_text[m_at++] - '0');
        } while (skip(','));
        return skip(']');
    }

    std::string m_text;
    std::size_t m_at = 0;
};

} // namespace

std::vector<int> expandLayerList(const std::string& flag, const std::string& value, int layers, std::string& error)
{
    std::vector<int> out;
    if (!ListReader(value).read(out)) {
        error = flag + " " + value
            + ": expected an integer or a list of 0/1 per layer such as \"([0]*3+[1]*58)\" or \"([1]*3+[0]*1)*3\"";
        return {};
    }
    if (static_cast<int>(out.size()) != layers) {
        error = flag + " " + value + " covers " + std::to_string(out.size()) + " layers but --num-layers is "
            + std::to_string(layers);
        return {};
    }
    return out;
}

} // namespace parallax::core
