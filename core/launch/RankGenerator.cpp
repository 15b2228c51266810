// SPDX-License-Identifier: Apache-2.0
#include "core/launch/RankGenerator.h"

#include <algorithm>
#include <sstream>

namespace parallax::core {

namespace {
std::vector<std::string> splitDash(const std::string& text)
{
    std::vector<std::string> parts;
    std::stringstream in(text);
    std::string t;
    while (std::getline(in, t, '-'))
        parts.push_back(t);
    return parts;
}
} // namespace

std::optional<RankGenerator> RankGenerator::make(
    int tp, int ep, int dp, int pp, int cp, const std::string& order, std::string& error)
{
    const std::vector<std::pair<std::string, int>> sizes { { "tp", tp }, { "pp", pp }, { "dp", dp }, { "ep", ep },
        { "cp", cp } };
    RankGenerator g;
    std::string lower = order;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    g.m_axes = splitDash(lower);
    for (const auto& token : g.m_axes) {
        const bool known = std::any_of(sizes.begin(), sizes.end(), [&](const auto& s) { return s.first == token; });
        if (!known) {
            error = "unknown axis \"";
            error += token;
            error += "\" in order \"";
            error += order;
            error += "\"; use tp, cp, ep, dp and pp";
            return std::nullopt;
        }
        if (std::count(g.m_axes.begin(), g.m_axes.end(), token) > 1) {
            error = "axis \"";
            error += token;
            error += "\" appears twice in order \"";
            error += order;
            error += "\"";
            return std::nullopt;
        }
    }
    // parallel_state.RankGenerator.__init__: a size-1 axis may be left out of the order.
    for (const auto& [name, size] : sizes) {
        if (std::find(g.m_axes.begin(), g.m_axes.end(), name) != g.m_axes.end())
            continue;
        if (size != 1) {
            error = "order \"";
            error += order;
            error += "\" lacks ";
            error += name;
            error += " but ";
            error += name;
            error += "=" + std::to_string(size);
            error += "; name every axis of size > 1";
            return std::nullopt;
        }
        g.m_axes.push_back(name);
    }
    for (const auto& token : g.m_axes) {
        const auto it = std::find_if(sizes.begin(), sizes.end(), [&](const auto& s) { return s.first == token; });
        if (it->second < 1) {
            error = token + " must be >= 1, got " + std::to_string(it->second);
            return std::nullopt;
        }
        g.m_sizes.push_back(it->second);
        g.m_world *= it->second;
    }
    return g;
}

std::vector<std::vector<int>> RankGenerator::ranks(const std::string& token) const
{
    const std::vector<std::string> wanted = splitDash(token);
    std::vector<bool> mask(m_axes.size(), false);
    for (const auto& w : wanted) {
        const auto it = std::find(m_axes.begin(), m_axes.end(), w);
        if (it == m_axes.end())
            return {};
        mask[static_cast<std::size_t>(it - m_axes.begin())] = true;
    }
    std::vector<int> maskedSize, maskedStride, freeSize, freeStride;
    int stride = 1;
    for (std::size_t i = 0; i < m_axes.size(); ++i) {
        (mask[i] ? maskedSize : freeSize).push_back(m_sizes[i]);
        (mask[i] ? maskedStride : freeStride).push_back(stride);
        stride *= m_sizes[i];
    }
    int groupSize = 1;
    for (int s : maskedSize)
        groupSize *= s;
    const int groupCount = m_world / groupSize;

    // Mixed-radix digits of `index` over `shape` (fastest first) dotted with `strides`.
    auto place = [](int index, const std::vector<int>& shape, const std::vector<int>& strides) {
        int rank = 0;
        for (std::size_t i = 0; i < shape.size(); ++i) {
            rank += (index % shape[i]) * strides[i];
            index /= shape[i];
        }
        return rank;
    };
    std::vector<std::vector<int>> groups(static_cast<std::size_t>(groupCount));
    for (int g = 0; g < groupCount; ++g) {
        const int base = place(g, freeSize, freeStride);
        auto& members = groups[static_cast<std::size_t>(g)];
        members.reserve(static_cast<std::size_t>(groupSize));
        for (int r = 0; r < groupSize; ++r)
            members.push_back(base + place(r, maskedSize, maskedStride));
    }
    return groups;
}

} // namespace parallax::core
