// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/report/Report.h"
#include "core/search/Reason.h"
#include "core/search/SearchSpace.h"

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace parallax::core {

struct Calibration;

struct SearchProgress {
    double fraction = 0; // 0..1 over both phases
    long long scored = 0; // configurations scored on the closed-form path so far
    const char* phase = ""; // "closed form", "simulation", "explanations"
};

struct SearchOptions {
    int topK = 10; // candidates returned
    // Candidates whose rank is exact: the search simulates until this many fitting ones are no
    // slower than every remaining lower bound. Those after them are ranked among what was simulated.
    int exactRanks = 1;
    int threads = 0; // 0: one per hardware thread
    const Calibration* calibration = nullptr;
    SearchLimits limits;
    bool explain = true; // reasons for the winner and one representative per family of losers
    // Fit with the optimizer states in CPU memory (ZeRO-Offload, arXiv:2101.06840): a configuration
    // fits when its peak without the optimizer bytes does. For "what would make it fit" answers only:
    // the engine does not model the offload's PCIe traffic.
    bool optimizerOffload = false;
    // Called from the thread that runs searchConfigurations(), a few dozen times per search.
    std::function<void(const SearchProgress&)> progress;
    // Set to true from any thread to stop early; the result then has `cancelled` set and holds
    // what was found so far (possibly nothing).
    const std::atomic<bool>* cancel = nullptr;
};

struct SearchStats {
    long long layouts = 0; // (tp, cp, pp, dp) factorisations of the GPUs
    long long enumerated = 0; // valid configurations
    long long prunedByMemoryBound = 0; // weights + grads + optimizer alone exceed HBM
    long long scored = 0; // scored on the closed-form path
    long long fitting = 0; // of those, fit in HBM (closed form)
    long long simulated = 0; // evaluated with the schedule simulation, explanations' included
    long long boundedSimulations = 0; // of those, simulated by the branch and bound
    long long boundedExamined = 0; // configurations the branch and bound took from its windows
    int windowPasses = 1; // closed-form passes: the first, and one per later window of the bound order
    long long windowConfigurations = 0; // configurations in the first window (at most the simulated baseline's step)
    double closedFormSeconds = 0;
    double simulationSeconds = 0;
    double totalSeconds = 0;
    int threads = 1;
};

// A configuration that fits, with the engine's simulated report (timeline and rank-map groups
// dropped) and the reasons it ranks where it does.
struct Candidate {
    SearchPoint point;
    Report report;
    std::vector<Reason> reasons;
};

// One representative of a family of losers ("pp=4": every configuration with four pipeline
// stages): its best member when one fits, else its leanest, and the one reason it loses.
struct RejectedFamily {
    std::string family; // "pp=4", "schedule=1f1b", "tp=16 / cp=2" when one configuration represents several
    SearchPoint point;
    bool fits = false;
    double stepTimeSeconds = 0;
    double mfu = 0;
    double peakMemoryBytes = 0;
    Reason reason;
};

struct SearchResult {
    std::vector<Candidate> candidates; // best first; every one fits (simulated)
    std::vector<RejectedFamily> rejected;
    // The configuration with the least peak memory found (closed form; for pruned configurations
    // the weights+grads+optimizer bound): what "nothing fits" answers start from.
    std::optional<SearchPoint> leanest;
    double leanestPeakBytes = 0;
    std::optional<Report> leanestReport; // its simulated report
    double hbmBytes = 0;
    std::optional<Report> baseline; // the base scenario's own configuration, simulated
    std::optional<Reason> baselineReason; // why it ranks below the winner (absent when it is the winner)
    SearchStats stats;
    bool cancelled = false;
    std::string error; // the scenario cannot be searched (no GPUs, unknown model)
};

// Enumerates every valid configuration of the scenario's model, topology, global batch, sequence
// length and dtype (SearchSpace), prunes by the weights+grads+optimizer bound, scores the rest on
// the closed-form path (ClosedFormScorer), then simulates configurations in the order of a proven
// lower bound of their simulated step time until no remaining one can beat the best found (branch
// and bound): the winner is the simulated optimum of the space (with each pipeline also tried with
// the split that balances its LM head). Ranks what fits by simulated step time (ties: less memory).
// Never throws for bad input; never returns a candidate that does not fit.
SearchResult searchConfigurations(const Scenario& base, const SearchOptions& options = {});

// Whether every stage fits in HBM, optionally with the optimizer states off the GPU.
bool fitsInMemory(const Report& report, bool optimizerOffload);

} // namespace parallax::core
