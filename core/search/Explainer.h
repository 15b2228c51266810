// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/report/Report.h"
#include "core/search/ClosedFormScorer.h"
#include "core/search/Family.h"
#include "core/search/Reason.h"

#include <functional>
#include <optional>
#include <vector>

namespace parallax::core {

struct Calibration;

// Turns engine reports into reasons. Every number in a reason is read from a Report (or from the
// communicator geometry the engine uses); nothing is canned.
class Explainer {
public:
    // Simulated report of a configuration, or nullptr when it is not valid.
    using ReportLookup = std::function<const Report*(const SearchPoint&)>;
    // Representative of a family (best fitting member, else the leanest), when the search met one.
    using FamilyLookup = std::function<std::optional<SearchPoint>(const FamilyKey&)>;

    Explainer(const Scenario& base, const Calibration* calibration, ReportLookup reports, FamilyLookup families);

    // The winner: its binding constraint and margin, then why its TP, CP communication, PP, schedule, recompute,
    // ZeRO and EP values beat their neighbours.
    std::vector<Reason> explainWinner(const SearchPoint& winner, const Report& report);
    // The one reason `loser` ranks below `winner`: out of memory, TP over IB, bubble, all-to-all,
    // or the largest of the step time's parts that differ.
    Reason explainLoss(
        const SearchPoint& winner, const Report& winnerReport, const SearchPoint& loser, const Report& loserReport);
    // "out of memory by N GiB on stage k" for a report that does not fit.
    static Reason outOfMemory(const Report& report);

    // The winner with one dimension moved to the family's value (dp rebalanced so that the GPUs
    // add up; the schedule falls back to 1F1B when the new depth cannot run it): "why not PP=4?"
    // is first answered on the winner's own layout. Nothing when the move cannot be made.
    std::optional<SearchPoint> neighbour(const SearchPoint& winner, const FamilyKey& family) const;

    struct FamilyVerdict {
        SearchPoint point; // the neighbour when it is valid, else the family's representative
        Reason reason;
    };
    // Why the family loses: its neighbour's reason (out of memory, TP over IB, bubble, ...), and
    // when the neighbour does not fit but another member does, how much slower that member is.
    std::optional<FamilyVerdict> explainFamily(
        const SearchPoint& winner, const Report& winnerReport, const FamilyKey& family);

private:
    std::optional<Reason> tpReason(const SearchPoint& w, const Report& r);
    std::optional<Reason> cpReason(const SearchPoint& w, const Report& r);
    std::optional<Reason> ppReason(const SearchPoint& w, const Report& r);
    std::optional<Reason> scheduleReason(const SearchPoint& w, const Report& r);
    std::optional<Reason> recomputeReason(const SearchPoint& w, const Report& r);
    std::optional<Reason> zeroReason(const SearchPoint& w, const Report& r);
    std::optional<Reason> dataAndExpertReason(const SearchPoint& w, const Report& r);
    // TP all-reduce seconds per layer and micro-batch (2 forward + 2 backward, arXiv:2205.05198
    // sec. 4.2.2) over the group's real links and over NVLink alone.
    std::pair<double, double> tpAllReducePerLayer(const SearchPoint& p);

    const Scenario& m_base;
    ReportLookup m_reports;
    FamilyLookup m_families;
    ClosedFormScorer m_geometry;
    int m_domainSize = 0;
};

} // namespace parallax::core
