// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/parallel/PipelineSplit.h"
#include "core/search/Family.h"
#include "core/search/SearchSpace.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

namespace parallax::core {

struct SearchOptions;

// Internal to core/search: the search's first phase.
namespace searchdetail {

// Step times equal to the nanosecond are ties (configurations that do the same work in a
// different order differ only by rounding); ties go to less memory, then to the point's key.
inline long long nanoseconds(double seconds);

// A scored configuration; ordered by step time, then peak memory, then the point's key.
struct Ranked {
    Ranked() = default;
    Ranked(double stepSeconds, double peakBytes, const SearchPoint& p)
        : step(stepSeconds)
        , peak(peakBytes)
        , point(p)
        , stepNs(nanoseconds(stepSeconds))
    {
    }
    double step = 0;
    double peak = 0;
    SearchPoint point;
    long long stepNs = 0; // nanoseconds(step), the ranking's resolution, rounded once
};
inline long long nanoseconds(double seconds)
{
    // std::llround (half away from zero) without its library call: the search ranks millions of
    // configurations. x - trunc(x) is exact in binary floating point, so the comparison with 0.5
    // decides as llround does; NaN and values beyond long long take the library path.
    const double x = seconds * 1e9;
    if (!(x > -9.0e18 && x < 9.0e18))
        return std::llround(x);
    auto n = static_cast<long long>(x);
    const double frac = x - static_cast<double>(n);
    if (frac >= 0.5)
        ++n;
    else if (frac <= -0.5)
        --n;
    return n;
}
inline bool better(const Ranked& a, const Ranked& b)
{
    if (a.stepNs != b.stepNs)
        return a.stepNs < b.stepNs;
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
struct FirstOnTop {
    bool operator()(const BoundedPoint& a, const BoundedPoint& b) const { return boundedBefore(b, a); }
};

// One worker's part of a window: the first `capacity` configurations of the bound order among those
// it offered. Appended unordered while below capacity (the usual case: no heap work per
// configuration); a heap with the last one on top from then on, which a configuration before it replaces.
class WindowBuffer {
public:
    // false when the buffer was full (a configuration was left out: `b` or the one it replaced).
    bool offer(const BoundedPoint& b, std::size_t capacity)
    {
        if (m_points.size() < capacity) {
            m_points.push_back(b);
            return true;
        }
        if (!m_heap) {
            std::make_heap(m_points.begin(), m_points.end(), LastOnTop {});
            m_heap = true;
        }
        if (!m_points.empty() && boundedBefore(b, m_points.front())) {
            std::pop_heap(m_points.begin(), m_points.end(), LastOnTop {});
            m_points.back() = b;
            std::push_heap(m_points.begin(), m_points.end(), LastOnTop {});
        }
        return false;
    }
    // Its configurations in no particular order; the buffer is empty afterwards.
    std::vector<BoundedPoint> take()
    {
        m_heap = false;
        return std::exchange(m_points, {});
    }

private:
    std::vector<BoundedPoint> m_points;
    bool m_heap = false;
};

// A window handed out in bound order. It is a heap with the first on top: the branch and bound
// usually stops after a few hundred of a window's configurations, so the rest is never sorted.
class BoundOrder {
public:
    BoundOrder() = default;
    // The first `capacity` of `points` in bound order; `more` is set when some were left out.
    BoundOrder(std::vector<BoundedPoint> points, std::size_t capacity, bool& more)
        : m_points(std::move(points))
    {
        if (m_points.size() > capacity) {
            std::nth_element(m_points.begin(), m_points.begin() + static_cast<std::ptrdiff_t>(capacity), m_points.end(),
                boundedBefore);
            m_points.resize(capacity);
            more = true;
        }
        if (!m_points.empty())
            m_last = *std::max_element(m_points.begin(), m_points.end(), boundedBefore);
        std::make_heap(m_points.begin(), m_points.end(), FirstOnTop {});
    }
    bool empty() const { return m_points.empty(); } // every configuration handed out
    std::size_t size() const { return m_points.size(); } // configurations left
    const BoundedPoint& front() const { return m_points.front(); } // the first one left
    void pop()
    {
        std::pop_heap(m_points.begin(), m_points.end(), FirstOnTop {});
        m_points.pop_back();
    }
    // The window's last configuration in bound order (where the next window starts); empty when the
    // window held none.
    const std::optional<BoundedPoint>& last() const { return m_last; }

private:
    std::vector<BoundedPoint> m_points;
    std::optional<BoundedPoint> m_last;
};

// A window of the bound order: the first `capacity` configurations that fit on the closed form
// and come after `after` (all of them when `after` is empty), with a bound of at most `atMostNs`
// when set: a configuration whose lower bound exceeds a step time already simulated cannot be faster.
struct BoundWindow {
    std::size_t capacity = std::size_t { 1 } << 20;
    std::optional<BoundedPoint> after;
    std::optional<long long> atMostNs;
};

// What one thread finds in its share of the layouts.
struct WorkerResult {
    WindowBuffer open; // its part of the window
    bool windowFull = false; // some configuration in the window's range was left out of `open`
    std::map<FamilyKey, FamilySlot> families;
    FamilySlot overall; // every configuration: its leanest
    long long scored = 0, fitting = 0, pruned = 0;
};

// The split that balances the LM head on the last rank (Megatron --decoder-first/last-pipeline-num-layers),
// per pipeline shape, computed once: the only uneven split the search scores and simulates.
class BalancedSplits {
public:
    explicit BalancedSplits(const Scenario& base);
    // Zero layers on both ends where the balanced split is the even one.
    const StageSplit& of(int pp, int vpp, ScheduleKind kind);
    static bool uneven(const StageSplit& s) { return s.firstStageLayers > 0 || s.lastStageLayers > 0; }

private:
    int m_layers = 0;
    double m_headLayers = 0;
    std::map<std::tuple<int, int, int>, StageSplit> m_splits;
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
