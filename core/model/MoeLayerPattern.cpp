// SPDX-License-Identifier: Apache-2.0
#include "core/model/MoeLayerPattern.h"

#include <cctype>

namespace parallax::core {

std::string moeLayerFreqPattern(const ModelSpec& m)
{
    if (!m.isMoe() || m.moeLayerCount() == m.layers)
        return {};
    const int first = m.moe->firstDenseLayers;
    const int step = std::max(1, m.moe->layerStep);
    const int moe = m.moeLayerCount();
    std::string out = "(";
    if (first > 0)
        out += "[0]*" + std::to_string(first) + "+";
    if (step == 1) {
        out += "[1]*" + std::to_string(moe);
    } else {
        std::string unit = "[";
        for (int k = 0; k < step; ++k)
            unit += k + 1 < step ? "0," : "1]";
        out += unit + "*" + std::to_string(moe);
    }
    if (const int rest = m.layers - first - moe * step; rest > 0)
        out += "+[0]*" + std::to_string(rest);
    return out + ")";
}

namespace {

// A small reader of "([0,1]*24+[0]*2)": terms joined by '+', each a list of 0/1 with an optional "*count".
class PatternReader {
public:
    explicit PatternReader(const std::string& text)
    {
        for (char c : text) {
            if (!std::isspace(static_cast<unsigned char>(c)) && c != '\'' && c != '"')
                m_text.push_back(c);
        }
    }

    bool read(std::vector<int>& out)
    {
        skip('(');
        do {
            std::vector<int> list;
            if (!readList(list))
                return false;
            long long times = 1;
            if (skip('*') && !readCount(times))
                return false;
            if (times < 0 || times * static_cast<long long>(list.size()) > kMaxEntries)
                return false;
            for (long long t = 0; t < times; ++t)
                out.insert(out.end(), list.begin(), list.end());
        } while (skip('+'));
        skip(')');
        return m_at == m_text.size();
    }

private:
    static constexpr long long kMaxEntries = 1 << 16;

    bool skip(char c)
    {
        if (m_at < m_text.size() && m_text[m_at] == c) {
            ++m_at;
            return true;
        }
        return false;
    }

    bool readCount(long long& n)
    {
        const std::size_t start = m_at;
        n = 0;
        while (m_at < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_at])) && n < kMaxEntries)
            n = n * 10 + (m_text[m_at++] - '0');
        return m_at > start;
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

std::vector<int> expandMoeLayerFreq(const std::string& value, int layers, std::string& error)
{
    std::vector<int> out;
    bool integer = !value.empty();
    for (char c : value)
        integer = integer && std::isdigit(static_cast<unsigned char>(c));
    if (integer) {
        const long long n = value.size() > 9 ? 0 : std::stoll(value);
        if (n < 1) {
            error = "--moe-layer-freq " + value + ": an integer frequency must be at least 1";
            return {};
        }
        for (int l = 0; l < layers; ++l) // megatron/core/transformer/moe: layer i is MoE when i % N == 0
            out.push_back(l % n == 0 ? 1 : 0);
        return out;
    }
    if (!PatternReader(value).read(out)) {
        error = "--moe-layer-freq " + value
            + ": expected an integer or a list of 0/1 per layer such as \"([0]*3+[1]*58)\" or \"([0,1]*24)\"";
        return {};
    }
    if (static_cast<int>(out.size()) != layers) {
        error = "--moe-layer-freq " + value + " covers " + std::to_string(out.size()) + " layers but --num-layers is "
            + std::to_string(layers);
        return {};
    }
    return out;
}

std::optional<MoePlacement> moePlacementOf(const std::vector<int>& pattern)
{
    const int layers = static_cast<int>(pattern.size());
    int first = 0;
    while (first < layers && pattern[first] == 0)
        ++first;
    if (first == layers)
        return std::nullopt; // no MoE layer
    int next = first + 1;
    while (next < layers && pattern[next] == 0)
        ++next;
    // One MoE layer: a step that puts no second one inside the model.
    const int step = next < layers ? next - first : layers - first;
    MoePlacement p { first - (step - 1), step };
    if (p.firstDenseLayers < 0)
        return std::nullopt;
    ModelSpec probe;
    probe.layers = layers;
    probe.moe = MoeSpec { .experts = 1, .topK = 1, .firstDenseLayers = p.firstDenseLayers, .layerStep = p.layerStep };
    for (int l = 0; l < layers; ++l) {
        if (probe.isMoeLayer(l) != (pattern[l] == 1))
            return std::nullopt;
    }
    return p;
}

} // namespace parallax::core
