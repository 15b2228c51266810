// SPDX-License-Identifier: Apache-2.0
// The context-parallel communication (Megatron-Core --cp-comm-type) as a dimension of the search: the ring, Ulysses'
// all-to-all where the heads split, a2a+p2p where the cp group leaves the NVLink domain (USP, arXiv:2405.07719), and
// the scenario's own type; each layout with cp > 1 is scored under each, and the winner says what the others cost.
#include "core/Engine.h"
#include "core/search/ConfigSearch.h"
#include "core/search/Explainer.h"
#include "core/search/Family.h"
#include "core/search/SearchSpace.h"

#include "SearchTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace parallax::core;
using parallax::test::searchScenario;

namespace {

std::vector<std::string> names(const std::vector<CpCommChoice>& choices)
{
    std::vector<std::string> out;
    for (const CpCommChoice& c : choices)
        out.push_back(std::string(toString(c.type)) + (c.a2aSize > 0 ? "/" + std::to_string(c.a2aSize) : ""));
    return out;
}

using Names = std::vector<std::string>;

} // namespace

// Llama 3 8B has 32 query and 8 key/value heads: the ring and all_gather run on every layout, Ulysses needs both
// divided by tp x cp (Transformer Engine asserts it), a2a+p2p appears once tp x cp outgrows the 8-GPU NVLink domain, at
// the largest level that stays inside it.
TEST(CpCommSearch, ChoicesFollowTheHeadsAndTheDomain)
{
    const Scenario s = searchScenario("llama3-8b", 4, 8, 64, 32768);
    const SearchSpace space(s);
    EXPECT_EQ(names(space.cpCommChoices({ 2, 1, 1, 16 })), Names { "p2p" });
    EXPECT_EQ(names(space.cpCommChoices({ 2, 4, 1, 4 })), (Names { "p2p", "all_gather", "a2a" }));
    // kv 8/2 does not split over 8:
    EXPECT_EQ(names(space.cpCommChoices({ 2, 8, 1, 2 })), (Names { "p2p", "all_gather", "a2a+p2p/4" }));
    EXPECT_EQ(names(space.cpCommChoices({ 1, 16, 1, 2 })), (Names { "p2p", "all_gather", "a2a+p2p/8" }));
    EXPECT_EQ(names(space.cpCommChoices({ 1, 32, 1, 1 })), (Names { "p2p", "all_gather", "a2a+p2p/8" }));
    EXPECT_EQ(names(space.cpCommChoices({ 4, 8, 1, 1 })), (Names { "p2p", "all_gather", "a2a+p2p/2" }));

    // Without the dimension the scenario's own type is the only one.
    Scenario gather = s;
    gather.parallel.cpCommType = CpCommType::AllGather;
    SearchLimits own;
    own.includeCpCommTypes = false;
    EXPECT_EQ(names(SearchSpace(gather, own).cpCommChoices({ 2, 4, 1, 4 })), Names { "all_gather" });
    EXPECT_EQ(names(SearchSpace(s, own).cpCommChoices({ 2, 4, 1, 4 })), Names { "p2p" });

    // Without the dimension, a scenario of Ulysses' keeps to the cp degrees whose heads split; with it, the ring
    // runs everywhere.
    Scenario ulysses = s;
    ulysses.parallel.cpCommType = CpCommType::A2a;
    const auto hasCp8Tp2 = [](const SearchSpace& sp) {
        const auto& ls = sp.layouts();
        return std::any_of(ls.begin(), ls.end(), [](const Layout& l) { return l.tp == 2 && l.cp == 8; });
    };
    EXPECT_FALSE(hasCp8Tp2(SearchSpace(ulysses, own)));
    EXPECT_TRUE(hasCp8Tp2(SearchSpace(ulysses)));
}

// The search's point carries its type into the scenario with cp > 1 and leaves the scenario's own at cp = 1; the
// description names it.
TEST(CpCommSearch, PointsCarryTheirTypeIntoTheScenario)
{
    Scenario base = searchScenario("llama3-8b", 1, 8, 16, 32768);
    base.parallel.cpCommType = CpCommType::AllGather;
    SearchPoint p;
    p.tp = 1;
    p.cp = 8;
    p.dp = 1;
    p.cpComm = CpCommType::A2aP2p;
    p.cpA2aSize = 2;
    const Scenario applied = applyPoint(base, p);
    EXPECT_EQ(applied.parallel.cpCommType, CpCommType::A2aP2p);
    EXPECT_EQ(applied.parallel.cpA2aSize, 2);
    EXPECT_EQ(pointOf(applied), p);
    EXPECT_NE(describe(p).find("CP=8 a2a+p2p (2 x 4)"), std::string::npos) << describe(p);

    SearchPoint none;
    none.dp = 8;
    EXPECT_EQ(applyPoint(base, none).parallel.cpCommType, CpCommType::AllGather);
    EXPECT_EQ(describe(none).find("a2a"), std::string::npos);
}

// At 32K tokens on one node Ulysses' all-to-all beats the ring on the same layout (the kernel sees the whole
// sequence instead of s/cp-key chunks, UlyssesContextParallel): a search with the dimension is never slower than one
// without, its winner's reasons say what the ring would cost, and the explainer can answer for the family.
TEST(CpCommSearch, TheSearchTakesTheFasterTypeAndSaysWhatTheOtherCosts)
{
    Scenario s = searchScenario("llama3-8b", 1, 8, 16, 32768);
    SearchOptions options;
    options.threads = 1;
    options.topK = 3;
    const SearchResult with = searchConfigurations(s, options);
    options.limits.includeCpCommTypes = false;
    const SearchResult ring = searchConfigurations(s, options);
    ASSERT_FALSE(with.candidates.empty());
    ASSERT_FALSE(ring.candidates.empty());
    EXPECT_GT(with.stats.enumerated, ring.stats.enumerated);
    for (const Candidate& c : ring.candidates)
        EXPECT_EQ(c.point.cpComm, CpCommType::P2p) << describe(c.point);

    const Candidate& w = with.candidates.front();
    ASSERT_GT(w.point.cp, 1) << describe(w.point);
    EXPECT_NE(w.point.cpComm, CpCommType::P2p) << describe(w.point);
    EXPECT_LT(w.report.stepTimeSeconds, ring.candidates.front().report.stepTimeSeconds) << describe(w.point);
    EXPECT_EQ(applyPoint(s, w.point).parallel.cpCommType, w.point.cpComm);
    bool said = false;
    for (const Reason& r : w.reasons)
        said = said || r.text.find("ring attention (p2p) exposes") != std::string::npos;
    EXPECT_TRUE(said);

    // The family neighbour moves only the type, and only on a layout with cp > 1.
    const Explainer explainer(
        s, nullptr, [](const SearchPoint&) -> const Report* { return nullptr; },
        [](const FamilyKey&) { return std::optional<SearchPoint>(); });
    const auto ringNeighbour = explainer.neighbour(w.point, { FamilyDim::CpComm, cpCommValue(CpCommType::P2p, 0) });
    ASSERT_TRUE(ringNeighbour);
    EXPECT_EQ(ringNeighbour->cpComm, CpCommType::P2p);
    EXPECT_EQ(ringNeighbour->cp, w.point.cp);
    SearchPoint noCp = w.point;
    noCp.cp = 1;
    noCp.cpComm = CpCommType::P2p;
    EXPECT_FALSE(explainer.neighbour(noCp, { FamilyDim::CpComm, cpCommValue(CpCommType::A2a, 0) }));
    EXPECT_EQ(
        familyLabel({ FamilyDim::CpComm, cpCommValue(CpCommType::A2aP2p, 2) }), "cp_comm_type=a2a+p2p a2a_size=2");
}
