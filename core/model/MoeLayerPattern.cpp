// SPDX-License-Identifier: Apache-2.0
#include "core/model/MoeLayerPattern.h"

#include "core/model/LayerListFlag.h"

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
    return expandLayerList("--moe-layer-freq", value, layers, error);
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
