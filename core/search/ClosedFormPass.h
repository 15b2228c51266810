// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/search/Family.h"
#include "core/search/SearchSpace.h"

#include <atomic>
#include <cmath>
#include <map>
#include <queue>
#include <vector>

namespace parallax::core {

struct SearchOptions;

// Internal to core/search: the search's first phase.
namespace searchdetail {

// The closed forms ignore the weight-gradient state that split-backward schedules hold between
// B and W (core/schedule/PipelineClosedForm.cpp; the simulator counts it), so some closed-form fits do
// not fit once simulated: up to this many rounds of `rerank` configurations are simulated until
// at least half of a round fits.
inline constexpr int kShortlistRounds = 4;

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

// What one thread finds in its share of the layouts.
struct WorkerResult {
    std::priority_queue<Ranked, std::vector<Ranked>, WorstOnTop> best; // worst of the kept on top
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

    // Scores layouts taken from `nextLayout` until none is left (or the search is cancelled).
    void run(
        WorkerResult& out, std::atomic<int>& nextLayout, std::atomic<int>& layoutsDone, std::atomic<long long>& scored);

private:
    bool cancelled() const;

    const Scenario& m_base;
    const SearchSpace& m_space;
    const SearchOptions& m_options;
};

} // namespace searchdetail
} // namespace parallax::core
