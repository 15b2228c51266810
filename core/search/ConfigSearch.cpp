// SPDX-License-Identifier: Apache-2.0
#include "core/search/ConfigSearch.h"

#include "core/Engine.h"
#include "core/engine/EvaluateWithSummary.h"
#include "core/memory/PredictionBands.h"
#include "core/parallel/PipelineSplit.h"
#include "core/search/ApplyPointInPlace.h"
#include "core/search/ClosedFormPass.h"
#include "core/search/ClosedFormScorer.h"
#include "core/search/Explainer.h"
#include "core/search/Family.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <thread>
#include <tuple>

namespace parallax::core {

using namespace searchdetail;

namespace {
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t)
{
    return std::chrono::duration<double>(Clock::now() - t).count();
}

// Runs `work(i, t)` for i in [0, n) on `threads` threads (t: the thread's index, below `threads`), the
// calling thread one of them (the last index; it reports progress between its items); one thread runs
// everything inline.
template <typename Work, typename Progress> void parallelFor(int n, int threads, Work work, Progress report)
{
    std::atomic<int> next { 0 };
    std::atomic<int> done { 0 };
    std::vector<std::thread> pool;
    const int helpers = std::max(0, std::min(threads, n) - 1);
    pool.reserve(helpers);
    for (int t = 0; t < helpers; ++t) {
        pool.emplace_back([&, t] {
            for (int i = next++; i < n; i = next++) {
                work(i, t);
                ++done;
            }
        });
    }
    for (int i = next++; i < n; i = next++) {
        work(i, helpers);
        report(++done);
    }
    for (auto& t : pool)
        t.join();
}
} // namespace

bool fitsInMemory(const Report& report, bool optimizerOffload)
{
    // The search proposes only layouts whose predicted peak is under HBM: a "tight" layout (the error range
    // straddles HBM) is a candidate when its point estimate fits, flagged in its reasons; one predicted over
    // HBM is never recommended, although evaluate calls it "tight" rather than "does not fit".
    if (!report.valid)
        return false;
    for (const StageMemory& st : report.stages) {
        const double need = st.totalBytes() - (optimizerOffload ? st.optimizerBytes : 0.0);
        if (need > st.hbmBytes)
            return false;
    }
    return true;
}

SearchResult searchConfigurations(const Scenario& base, const SearchOptions& options)
{
    const auto start = Clock::now();
    SearchResult result;
    if (base.topology.gpuCount() <= 0) {
        result.error = "the cluster has no GPUs";
        return result;
    }
    if (base.model.layers <= 0 || base.model.heads <= 0) {
        result.error = "the model has no layers or heads";
        return result;
    }
    if (base.mode == ScenarioMode::Inference) {
        result.error = "this is a serving scenario: the training search does not apply (core/inference/ServingSearch.h "
                       "ranks serving layouts)";
        return result;
    }
    auto cancelled = [&] { return options.cancel && options.cancel->load(); };
    auto stopCancelled = [&] {
        result.cancelled = true;
        result.stats.totalSeconds = secondsSince(start);
        return result;
    };
    auto progress = [&](double fraction, const char* phase) {
        if (options.progress)
            options.progress({ fraction, result.stats.scored, phase });
    };
    const SearchSpace space(base, options.limits);
    const int threads
        = std::max(1, options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency()));
    result.stats.threads = threads;
    result.stats.layouts = static_cast<long long>(space.layouts().size());

    EvaluateOptions simulate;
    simulate.calibration = options.calibration;
    simulate.simulateSchedule = true;
    simulate.keepTimeline = false;
    // One scratch scenario per thread: a candidate changes only its layout fields, never the topology,
    // which is copied once per thread rather than once per candidate (65,536 explicit domains).
    std::vector<Scenario> scratch(static_cast<std::size_t>(threads), base);
    // ... and summarised once per thread, not once per candidate (core/engine/EvaluateWithSummary.h).
    std::vector<TopologySummary> summaries;
    summaries.reserve(scratch.size());
    for (const Scenario& s : scratch)
        summaries.push_back(TopologySummary::of(s.topology));
    auto evaluatePoint = [&](const SearchPoint& p, int thread) {
        Scenario& s = scratch[static_cast<std::size_t>(thread)];
        applyPointInPlace(s, p, base);
        Report r = evaluate(s, simulate, summaries[static_cast<std::size_t>(thread)]);
        r.rankMap = RankMap {};
        return r;
    };
    // The scenario's own configuration, simulated first: where it is valid and fits, no configuration whose
    // lower bound exceeds its step time can be the fastest, so the branch and bound's window keeps none of them
    // (only with one exact leading rank: more ranks need more than one simulated step to compare with).
    const SearchPoint basePoint = pointOf(base);
    std::optional<Report> baseReport;
    BoundWindow firstWindow;
    if (options.exactRanks <= 1) {
        Report r = evaluatePoint(basePoint, 0);
        if (r.valid && fitsInMemory(r, options.optimizerOffload))
            firstWindow.atMostNs = nanoseconds(r.stepTimeSeconds);
        if (r.valid)
            baseReport = std::move(r);
    }
    if (cancelled())
        return stopCancelled();

    // Phase 1: every configuration on the closed-form path; the first window of the bound order kept.

    std::vector<WorkerResult> workers(std::min<std::size_t>(threads, std::max<std::size_t>(1, space.layouts().size())));
    ClosedFormPass pass(base, space, options);
    // Scores every layout on the pool's threads; progress spans [from, to).
    auto runPass = [&](const BoundWindow& window, bool windowOnly, double from, double to) {
        for (auto& w : workers)
            w = WorkerResult {};
        std::atomic<int> nextLayout { 0 };
        std::atomic<int> layoutsDone { 0 };
        std::atomic<long long> scored { 0 };
        if (workers.size() == 1) { // no thread to start, no progress to poll
            pass.run(workers.front(), nextLayout, layoutsDone, scored, window, windowOnly);
            if (!windowOnly)
                result.stats.scored = scored.load();
            progress(to, "closed form");
            return;
        }
        std::vector<std::thread> pool;
        pool.reserve(workers.size());
        for (auto& w : workers)
            pool.emplace_back([&, &w = w] { pass.run(w, nextLayout, layoutsDone, scored, window, windowOnly); });
        const int total = static_cast<int>(space.layouts().size());
        while (layoutsDone.load() < total && !cancelled()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            if (!windowOnly)
                result.stats.scored = scored.load();
            progress(total > 0 ? from + (to - from) * layoutsDone.load() / total : to, "closed form");
        }
        for (auto& t : pool)
            t.join();
    };
    // The window's configurations in bound order, merged in a fixed order (the result does not depend
    // on which thread scored what); `more` when configurations beyond the window fit too.
    auto takeWindow = [&](const BoundWindow& window, bool& more) {
        std::vector<BoundedPoint> open;
        more = false;
        for (auto& w : workers) {
            more = more || w.windowFull;
            std::vector<BoundedPoint> part = w.open.take();
            open.insert(open.end(), part.begin(), part.end());
        }
        return BoundOrder(std::move(open), window.capacity, more);
    };
    runPass(firstWindow, false, 0.0, 0.6);
    std::map<FamilyKey, FamilySlot> families;
    WorkerResult merged;
    for (auto& w : workers) {
        merged.scored += w.scored;
        merged.fitting += w.fitting;
        merged.pruned += w.pruned;
        for (const auto& [key, slot] : w.families)
            families[key].merge(slot);
        merged.overall.merge(w.overall);
    }
    bool moreBeyondWindow = false;
    BoundOrder window = takeWindow(firstWindow, moreBeyondWindow);
    result.stats.windowConfigurations = static_cast<long long>(window.size());
    result.stats.scored = merged.scored;
    result.stats.fitting = merged.fitting;
    result.stats.prunedByMemoryBound = merged.pruned;
    result.stats.enumerated = merged.scored + merged.pruned;
    result.stats.closedFormSeconds = secondsSince(start);
    {
        ClosedFormScorer hbm(base, options.calibration);
        result.hbmBytes = hbm.hbmBytes();
    }
    if (merged.overall.any()) {
        result.leanest = merged.overall.leanest();
        result.leanestPeakBytes = merged.overall.hasScored ? merged.overall.lean.peak : merged.overall.pruned.peak;
    }
    if (cancelled())
        return stopCancelled();

    // Phase 2, branch and bound: configurations are simulated in the order of their lower bound
    // (ClosedFormScore::stepLowerBoundSeconds: no simulation of them can be faster) until the best
    // simulated one that fits is no slower than the next bound. Memory rules out only what the
    // weights + grads + optimizer bound prunes: the closed-form peak can exceed the simulated one
    // (interleaved schedules, SearchBoundTest), so a closed-form misfit is still a candidate.
    const auto simulationStart = Clock::now();
    std::vector<SearchPoint> todo;
    std::map<decltype(SearchPoint {}.key()), std::size_t> indexOf;
    auto want = [&](const SearchPoint& p) {
        if (indexOf.emplace(p.key(), todo.size()).second)
            todo.push_back(p);
    };
    std::vector<std::optional<Report>> reports;
    // After each simulation phase: every index below todo.size() is valid (unsimulated ones stay
    // empty) and the stats are current; true when the search was cancelled meanwhile.
    auto closeSimulationPass = [&] {
        reports.resize(todo.size());
        result.stats.simulated = static_cast<long long>(todo.size());
        result.stats.simulationSeconds = secondsSince(simulationStart);
        return cancelled();
    };
    auto fitsSimulated = [&](std::size_t i) {
        return reports[i] && reports[i]->valid && fitsInMemory(*reports[i], options.optimizerOffload);
    };
    auto rankedOf = [&](std::size_t i) {
        return Ranked { reports[i]->stepTimeSeconds, reports[i]->peakMemoryBytes, todo[i] };
    };
    // A cancelled search still returns what it has simulated that fits, best first (no reasons).
    auto stopCancelledWithFound = [&] {
        std::vector<std::size_t> found;
        for (std::size_t i = 0; i < reports.size(); ++i) {
            if (fitsSimulated(i))
                found.push_back(i);
        }
        std::sort(
            found.begin(), found.end(), [&](std::size_t a, std::size_t b) { return better(rankedOf(a), rankedOf(b)); });
        for (std::size_t k = 0; k < found.size() && static_cast<int>(k) < options.topK; ++k)
            result.candidates.push_back({ todo[found[k]], *reports[found[k]], {} });
        return stopCancelled();
    };
    // Simulates todo[from ..] on the pool.
    auto simulateFrom = [&](std::size_t from) {
        reports.resize(todo.size());
        parallelFor(
            static_cast<int>(todo.size() - from), threads,
            [&](int i, int thread) {
                if (cancelled())
                    return;
                const SearchPoint& p = todo[from + i];
                reports[from + i] = baseReport && p == basePoint ? *baseReport : evaluatePoint(p, thread);
            },
            [&](int) {});
    };
    // The balanced split of an uneven window entry's pipeline shape; the closed form scores even splits.
    BalancedSplits splits(base);
    auto unevenVariant = [&](SearchPoint p) -> std::optional<SearchPoint> {
        const StageSplit& split = splits.of(p.pp, p.vpp, p.schedule);
        if (!BalancedSplits::uneven(split))
            return std::nullopt;
        p.firstStageLayers = split.firstStageLayers;
        p.lastStageLayers = split.lastStageLayers;
        return p;
    };
    // The tighter memory screen, on the calling thread just before a configuration would be
    // simulated: the forwards its schedule runs before each rank's first backward are all held at
    // once (ClosedFormScorer::setInflightFromPrograms), so above HBM no simulation of it fits.
    ClosedFormScorer screen(base, options.calibration);
    screen.setOptimizerOffload(options.optimizerOffload);
    screen.setInflightFromPrograms(true);
    std::vector<ClosedFormScore> screened;
    // An uneven split's window bound holds for every split; here its own split is scored, with the
    // fill and drain chains, the DP sync and the optimizer step (the same bound as an even split's).
    auto mayFit = [&](const SearchPoint& p, const std::optional<long long>& bestNs) {
        const Layout l { p.tp, p.cp, p.pp, p.dp };
        screen.setStageSplit(p.firstStageLayers, p.lastStageLayers);
        screen.setDispatcher(p.dispatcher);
        screen.setCpComm({ p.cpComm, p.cpA2aSize });
        screen.score(l, p.ep, screen.layoutComm(l, p.ep), p.microBatch, { p.schedule, p.vpp }, p.recompute, { p.zero },
            screened);
        const ClosedFormScore& sc = screened.front();
        return sc.peakLowerBoundBytes <= screen.hbmBytes()
            && (!bestNs || nanoseconds(sc.stepLowerBoundSeconds) <= *bestNs);
    };
    // Nanoseconds of the best `exactRanks` simulated steps that fit, ascending; bestNs the last of
    // them once there are that many.
    const std::size_t exactRanks = static_cast<std::size_t>(std::max(1, options.exactRanks));
    std::vector<long long> bestSteps;
    std::optional<long long> bestNs;
    std::size_t windowCapacity = firstWindow.capacity;
    while (!cancelled()) {
        if (window.empty()) {
            if (!moreBeyondWindow || !window.last())
                break;
            // Each later window rescores the whole space: eight times the last one keeps the passes few
            // where the screens below rule most of a window out without simulating it.
            windowCapacity *= 8;
            const BoundWindow later { windowCapacity, window.last(), firstWindow.atMostNs };
            runPass(later, true, 0.6, 0.7);
            ++result.stats.windowPasses;
            window = takeWindow(later, moreBeyondWindow);
            continue;
        }
        if (bestNs && window.front().boundNs > *bestNs)
            break; // every configuration left is slower than the best simulated one
        const std::size_t from = todo.size();
        // A few items per thread and batch: threads start once per batch, the bound is checked between.
        const std::size_t batch = threads == 1 ? 1 : 4 * static_cast<std::size_t>(threads);
        for (; !window.empty() && todo.size() - from < batch; window.pop()) {
            const BoundedPoint& b = window.front();
            ++result.stats.boundedExamined;
            if (bestNs && b.boundNs > *bestNs)
                break;
            if (!b.uneven) {
                if (mayFit(b.point, bestNs))
                    want(b.point);
            } else if (const auto variant = unevenVariant(b.point); variant && mayFit(*variant, bestNs))
                want(*variant);
        }
        simulateFrom(from);
        for (std::size_t i = from; i < todo.size(); ++i) {
            if (!fitsSimulated(i))
                continue;
            const long long ns = nanoseconds(reports[i]->stepTimeSeconds);
            bestSteps.insert(std::upper_bound(bestSteps.begin(), bestSteps.end(), ns), ns);
            if (bestSteps.size() > exactRanks)
                bestSteps.pop_back();
            if (bestSteps.size() == exactRanks)
                bestNs = bestSteps.back();
        }
        progress(0.7 + 0.25 * (1.0 - 1.0 / (1.0 + static_cast<double>(todo.size()) / 64.0)), "simulation");
    }
    result.stats.boundedSimulations = static_cast<long long>(todo.size());
    if (closeSimulationPass())
        return stopCancelledWithFound();
    // Every family's first contender (its best fitting member, else its leanest), the base configuration and
    // the leanest, for the explanations; then the runner-up of each family whose best does not fit under the
    // simulation (the only case its report is read).
    std::size_t from = todo.size();
    for (const auto& [key, slot] : families) {
        if (slot.any())
            want(slot.contenders().front());
    }
    want(basePoint);
    if (result.leanest)
        want(*result.leanest);
    simulateFrom(from);
    if (closeSimulationPass())
        return stopCancelledWithFound();
    from = todo.size();
    for (const auto& [key, slot] : families) {
        const std::vector<SearchPoint> contenders = slot.any() ? slot.contenders() : std::vector<SearchPoint> {};
        if (contenders.size() > 1 && !fitsSimulated(indexOf[contenders.front().key()]))
            want(contenders[1]);
    }
    simulateFrom(from);
    if (closeSimulationPass())
        return stopCancelledWithFound();
    // Each family's representative: its best member that fits under the simulation, else its best
    // closed-form member, else its leanest.
    std::map<FamilyKey, SearchPoint> representatives;
    for (const auto& [key, slot] : families) {
        if (!slot.any())
            continue;
        const std::vector<SearchPoint> contenders = slot.contenders();
        SearchPoint rep = contenders.front();
        for (const SearchPoint& p : contenders) {
            const auto at = indexOf.find(p.key());
            if (at != indexOf.end() && fitsSimulated(at->second)) {
                rep = p;
                break;
            }
        }
        representatives.emplace(key, rep);
    }
    if (reports[indexOf[basePoint.key()]] && reports[indexOf[basePoint.key()]]->valid)
        result.baseline = reports[indexOf[basePoint.key()]];
    // The leanest under the simulation among everything simulated (each family's leanest member
    // included): the pruning bound orders configurations by their states only.
    for (std::size_t i = 0; i < todo.size(); ++i) {
        if (!reports[i] || !reports[i]->valid)
            continue;
        if (!result.leanestReport
            || leaner(reports[i]->peakMemoryBytes, todo[i], result.leanestPeakBytes, *result.leanest)) {
            result.leanest = todo[i];
            result.leanestPeakBytes = reports[i]->peakMemoryBytes;
            result.leanestReport = reports[i];
        }
    }

    // Reports of further configurations (explanations' variants) are simulated on demand.
    std::map<decltype(SearchPoint {}.key()), std::optional<Report>> extra;
    auto lookup = [&](const SearchPoint& p) -> const Report* {
        auto it = indexOf.find(p.key());
        if (it != indexOf.end())
            return reports[it->second] && reports[it->second]->valid ? &*reports[it->second] : nullptr;
        auto e = extra.find(p.key());
        if (e == extra.end()) {
            Report r = evaluatePoint(p, 0); // on the calling thread, no pool running
            e = extra.emplace(p.key(), r.valid ? std::optional<Report>(std::move(r)) : std::nullopt).first;
        }
        return e->second ? &*e->second : nullptr;
    };
    auto familyRep = [&](const FamilyKey& key) -> std::optional<SearchPoint> {
        auto it = representatives.find(key);
        if (it == representatives.end())
            return std::nullopt;
        return it->second;
    };
    Explainer explainer(base, options.calibration, lookup, familyRep);

    // The space's optimum is known; the explanations' neighbours of it (one dimension moved, dp
    // rebalanced, the split kept) can lie outside the space (a split kept for another pipeline
    // shape, a schedule the space leaves out): those that are valid are simulated too and a better
    // one takes over, a few times at most.
    auto bestFitting = [&]() {
        std::optional<std::size_t> best;
        for (std::size_t i = 0; i < todo.size(); ++i) {
            if (fitsSimulated(i) && (!best || better(rankedOf(i), rankedOf(*best))))
                best = i;
        }
        return best;
    };
    std::optional<std::size_t> best = bestFitting();
    for (int climb = 0; climb < 4 && best && !cancelled(); ++climb) {
        const std::size_t climbFrom = todo.size();
        const SearchPoint current = todo[*best];
        for (const auto& entry : representatives) {
            const auto n = explainer.neighbour(current, entry.first);
            if (!n)
                continue;
            // A ZeRO stage the space leaves out for this layout (nothing to shard) repeats ZeRO-0.
            const std::vector<int> zeros = space.zeroStages({ n->tp, n->cp, n->pp, n->dp }, n->ep);
            if (std::find(zeros.begin(), zeros.end(), n->zero) != zeros.end())
                want(*n);
        }
        simulateFrom(climbFrom);
        const auto next = bestFitting();
        if (next == best)
            break;
        best = next;
    }
    if (closeSimulationPass())
        return stopCancelledWithFound();

    // Rank what fits under the simulation.
    std::vector<std::size_t> fitting;
    for (std::size_t i = 0; i < todo.size(); ++i) {
        if (fitsSimulated(i))
            fitting.push_back(i);
    }
    std::sort(
        fitting.begin(), fitting.end(), [&](std::size_t a, std::size_t b) { return better(rankedOf(a), rankedOf(b)); });
    for (std::size_t k = 0; k < fitting.size() && static_cast<int>(k) < options.topK; ++k)
        result.candidates.push_back({ todo[fitting[k]], *reports[fitting[k]], {} });

    if (!options.explain) {
        result.stats.totalSeconds = secondsSince(start);
        return result;
    }

    // Phase 3: reasons.
    std::map<decltype(SearchPoint {}.key()), std::size_t> rejectedIndex;
    if (!result.candidates.empty()) {
        Candidate& winner = result.candidates.front();
        winner.reasons = explainer.explainWinner(winner.point, winner.report);
        for (std::size_t k = 1; k < result.candidates.size(); ++k) {
            Candidate& c = result.candidates[k];
            c.reasons.push_back(explainer.explainLoss(winner.point, winner.report, c.point, c.report));
        }
        rejectedIndex.emplace(winner.point.key(), static_cast<std::size_t>(-1));
        if (result.baseline && !(basePoint == winner.point))
            result.baselineReason = explainer.explainLoss(winner.point, winner.report, basePoint, *result.baseline);
    }
    for (const auto& [key, rep] : representatives) {
        RejectedFamily f;
        f.family = familyLabel(key);
        if (!result.candidates.empty()) {
            const Candidate& winner = result.candidates.front();
            if (familyValue(winner.point, key.dim) == key.value)
                continue;
            const auto verdict = explainer.explainFamily(winner.point, winner.report, key);
            if (!verdict)
                continue;
            f.point = verdict->point;
            f.reason = verdict->reason;
        } else {
            f.point = rep;
        }
        const Report* rr = lookup(f.point);
        if (!rr)
            continue;
        if (result.candidates.empty())
            f.reason = rr->fits ? Reason { ReasonKind::Choice, "fits only with the optimizer states off the GPU",
                "fits without optimizer states" }
                                : Explainer::outOfMemory(*rr);
        auto [it, inserted] = rejectedIndex.emplace(f.point.key(), result.rejected.size());
        if (!inserted) {
            if (it->second != static_cast<std::size_t>(-1))
                result.rejected[it->second].family += " / " + f.family;
            continue;
        }
        f.fits = rr->fits;
        f.stepTimeSeconds = rr->stepTimeSeconds;
        f.mfu = rr->mfu;
        f.peakMemoryBytes = rr->peakMemoryBytes;
        result.rejected.push_back(std::move(f));
    }
    progress(1.0, "explanations");
    result.stats.totalSeconds = secondsSince(start);
    return result;
}

} // namespace parallax::core
