// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/search/Family.h"
#include "core/search/SearchSpace.h"

#include <atomic>
#include <cmath>
#include <map>
#include <optional>
#include <queue>
#include <vector>

namespace parallax::core {

struct SearchOptions;

// Internal to core/search: the search's first phase.
namespace searchdetail {

// A scored configuration; ordered by step time, then peak memory, then the point's key.
struct Ranked {
    double step = 0;
    double peak = 0;
    SearchPoint point;
};
// Step times equal to the nanosecond are ties (configurations that do the same work in a
// different order differ only by rounding); ties go to less memory, then to the point's key.
inline long long nanoseconds(double seconds)
{
    return std::llround(seconds * 1e9);
}
inline bool better(const Ranked& a, const Ranked& b)
{
    const long long sa = nanoseconds(a.step), sb = nanoseconds(b.step);
    if (sa != sb)
        return sa < sb;
    if (a.peak != b.peak)
        return a.peak < b.peak;
    return a.point.key() < b.point.key();
}
struct WorstOnTop {
    bool operator()(const Ranked& a, const Ranked& b) const { return better(a, b); }
};

inline bool leaner(double peakA, const SearchPoint& a, double peakB, const SearchPoint& b)
{
    return peakA != peakB ? peakA < peakB : a.key() < b.key();
}

// The best fitting member of a family, its leanest scored member, and (when every member was
// pruned) the member with the smallest weights+grads+optimizer bound.
struct FamilySlot {
    bool hasFit = false;
    Ranked fit;
    bool hasRunnerUp = false; // the second best fitting member, in case the simulation rejects the best
    Ranked runnerUp;
    bool hasScored = false;
    Ranked lean;
    bool hasPruned = false;
    Ranked pruned;

    void offer(const Ranked& r, bool fits)
    {
        if (fits) {
            if (!hasFit || better(r, fit)) {
                if (hasFit) {
                    runnerUp = fit;
                    hasRunnerUp = true;
                }
                fit = r;
                hasFit = true;
            } else if (!hasRunnerUp || better(r, runnerUp)) {
                runnerUp = r;
                hasRunnerUp = true;
            }
        }
        if (!hasScored || leaner(r.peak, r.point, lean.peak, lean.point)) {
            lean = r;
            hasScored = true;
        }
    }
    void offerPruned(const Ranked& r)
    {
        if (!hasPruned || leaner(r.peak, r.point, pruned.peak, pruned.point)) {
            pruned = r;
            hasPruned = true;
        }
    }
    void merge(const FamilySlot& o)
    {
        if (o.hasFit)
            offer(o.fit, true);
        if (o.hasRunnerUp)
            offer(o.runnerUp, true);
        if (o.hasScored)
            offer(o.lean, false);
        if (o.hasPruned)
            offerPruned(o.pruned);
    }
    bool any() const { return hasScored || hasPruned; }
    // Members worth simulating: the two best fitting ones, else the leanest.
    std::vector<SearchPoint> contenders() const
    {
        if (!hasFit)
            return { leanest() };
        if (!hasRunnerUp)
            return { fit.point };
        return { fit.point, runnerUp.point };
    }
    const SearchPoint& leanest() const { return hasScored ? lean.point : pruned.point; }
};

// One configuration to simulate, with a lower bound of its simulated step time (ClosedFormScore):
// the point with its even split, or (`uneven`) with the split that balances the LM head
// (balancedPipelineSplit), whose bound holds for every split.
struct BoundedPoint {
    long long boundNs = 0; // nanoseconds(bound): the ranking's own resolution (better())
    bool uneven = false;
    SearchPoint point; // its even split
};
// Bound order, then a total order: which configurations are simulated does not depend on threads.
inline bool boundedBefore(const BoundedPoint& a, const BoundedPoint& b)
{
    if (a.boundNs != b.boundNs)
        return a.boundNs < b.boundNs;
    if (a.uneven != b.uneven)
        return a.uneven < b.uneven;
    return a.point.key() < b.point.key();
}
struct LastOnTop {
    bool operator()(const BoundedPoint& a, const BoundedPoint& b) const { return boundedBefore(a, b); }
};

// A window of the bound order: the first `capacity` configurations that fit on the closed form
// and come after `after` (all of them when `after` is empty).
struct BoundWindow {
    std::size_t capacity = std::size_t { 1 } << 20;
    std::optional<BoundedPoint> after;
};

// What one thread finds in its share of the layouts.
struct WorkerResult {
    std::priority_queue<BoundedPoint, std::vector<BoundedPoint>, LastOnTop> open; // the window; last on top
    bool windowFull = false; // some configuration in the window's range was left out of `open`
    std::map<FamilyKey, FamilySlot> families;
    FamilySlot overall; // every configuration: its leanest
    long long scored = 0, fitting = 0, pruned = 0;
};

// Shared by the search's threads: every configuration of a share of the layouts scored on the
// closed-form path, keeping the best fitting ones, each family's contenders and the leanest.
class ClosedFormPass {
public:
    ClosedFormPass(const Scenario& base, const SearchSpace& space, const SearchOptions& options)
        : m_base(base)
        , m_space(space)
        , m_options(options)
    {
    }

    // Scores layouts taken from `nextLayout` until none is left (or the search is cancelled),
    // keeping the configurations of `window`. With `windowOnly` it collects only those (a later
    // window of the same pass: families, the leanest and the counts are already known).
    void run(WorkerResult& out, std::atomic<int>& nextLayout, std::atomic<int>& layoutsDone,
        std::atomic<long long>& scored, const BoundWindow& window, bool windowOnly);

private:
    bool cancelled() const;

    const Scenario& m_base;
    const SearchSpace& m_space;
    const SearchOptions& m_options;
};

} // namespace searchdetail
} // namespace parallax::core
