// SPDX-License-Identifier: Apache-2.0
#include "core/costs/GroupLimitedRouting.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <tuple>
#include <vector>

namespace parallax::core {

namespace {

constexpr int kTokens = 4096; // simulated tokens: the mean's standard error is under 0.005 units
constexpr std::uint32_t kSeed = 20241227; // fixed, so every run of the engine gives the same figure
constexpr std::size_t kMaxCached = 256;

double simulate(int experts, int topK, int groups, int chosen, int units)
{
    std::mt19937 rng(kSeed);
    const int perGroup = experts / groups;
    const int best = std::clamp(topK / chosen, 1, perGroup);
    std::vector<double> score(static_cast<std::size_t>(experts));
    std::vector<double> groupScore(static_cast<std::size_t>(groups));
    std::vector<double> top(static_cast<std::size_t>(perGroup));
    std::vector<int> order(static_cast<std::size_t>(groups));
    std::vector<int> eligible;
    std::vector<char> touched(static_cast<std::size_t>(units));
    double total = 0;
    for (int t = 0; t < kTokens; ++t) {
        // (x + 0.5) / 2^32: uniform in (0, 1), the same bits on every standard library.
        for (double& s : score)
            s = (static_cast<double>(rng()) + 0.5) / 4294967296.0;
        for (int g = 0; g < groups; ++g) {
            std::copy_n(score.begin() + static_cast<std::ptrdiff_t>(g) * perGroup, perGroup, top.begin());
            std::partial_sort(top.begin(), top.begin() + best, top.end(), std::greater<>());
            groupScore[static_cast<std::size_t>(g)] = std::accumulate(top.begin(), top.begin() + best, 0.0);
        }
        std::iota(order.begin(), order.end(), 0);
        std::partial_sort(order.begin(), order.begin() + chosen, order.end(), [&](int a, int b) {
            return groupScore[static_cast<std::size_t>(a)] > groupScore[static_cast<std::size_t>(b)];
        });
        eligible.clear();
        for (int c = 0; c < chosen; ++c) {
            for (int e = 0; e < perGroup; ++e)
                eligible.push_back(order[static_cast<std::size_t>(c)] * perGroup + e);
        }
        const int k = std::min<int>(topK, static_cast<int>(eligible.size()));
        std::nth_element(eligible.begin(), eligible.begin() + (k - 1), eligible.end(),
            [&](int a, int b) { return score[static_cast<std::size_t>(a)] > score[static_cast<std::size_t>(b)]; });
        std::fill(touched.begin(), touched.end(), 0);
        int count = 0;
        for (int i = 0; i < k; ++i) {
            const auto unit = static_cast<std::size_t>(
                static_cast<long long>(eligible[static_cast<std::size_t>(i)]) * units / experts);
            count += touched[unit] == 0 ? 1 : 0;
            touched[unit] = 1;
        }
        total += count;
    }
    return total / kTokens;
}

} // namespace

double groupLimitedUnitsTouched(int experts, int topK, int groups, int chosen, int units)
{
    if (experts < 1 || topK < 1 || units < 1 || groups < 2 || chosen < 1 || chosen >= groups || experts % groups != 0)
        return 0;
    units = std::min(units, experts);
    static std::mutex mutex;
    static std::map<std::tuple<int, int, int, int, int>, double> cache;
    const auto key = std::make_tuple(experts, topK, groups, chosen, units);
    {
        const std::lock_guard lock(mutex);
        if (const auto it = cache.find(key); it != cache.end())
            return it->second;
    }
    const double touched = simulate(experts, topK, groups, chosen, units);
    const std::lock_guard lock(mutex);
    if (cache.size() >= kMaxCached)
        cache.clear();
    cache.emplace(key, touched);
    return touched;
}

} // namespace parallax::core
