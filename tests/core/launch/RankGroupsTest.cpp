// SPDX-License-Identifier: Apache-2.0
#include "core/launch/RankGroups.h"
#include "core/launch/RankGenerator.h"

#include <gtest/gtest.h>

#include <map>

using namespace parallax::core;

namespace {
using Groups = std::vector<std::vector<int>>;

struct LayoutCase {
    const char* name;
    int tp, cp, dp, pp, ep, etp;
    bool moe;
    const char* order;
    // Written out by hand from Megatron-Core's enumeration, not computed.
    std::map<RankGroups::Kind, Groups> expected;
};

Groups singletons(int n)
{
    Groups g;
    for (int r = 0; r < n; ++r)
        g.push_back({ r });
    return g;
}

std::vector<LayoutCase> cases()
{
    using K = RankGroups::Kind;
    return {
        { "dense tp2 dp2 pp2, dp before pp", 2, 1, 2, 2, 1, 1, false, "tp-cp-ep-dp-pp",
            { { K::Tp, { { 0, 1 }, { 2, 3 }, { 4, 5 }, { 6, 7 } } },
                { K::Dp, { { 0, 2 }, { 1, 3 }, { 4, 6 }, { 5, 7 } } },
                { K::Pp, { { 0, 4 }, { 1, 5 }, { 2, 6 }, { 3, 7 } } }, { K::Cp, singletons(8) },
                { K::DpCp, { { 0, 2 }, { 1, 3 }, { 4, 6 }, { 5, 7 } } }, { K::Ep, singletons(8) },
                // A dense model's expert generator uses etp = tp (Megatron's default), so edp = dp.
                { K::Etp, { { 0, 1 }, { 2, 3 }, { 4, 5 }, { 6, 7 } } },
                { K::Edp, { { 0, 2 }, { 1, 3 }, { 4, 6 }, { 5, 7 } } } } },
        { "dense tp2 dp2 pp2, pp before dp", 2, 1, 2, 2, 1, 1, false, "tp-cp-ep-pp-dp",
            { { K::Tp, { { 0, 1 }, { 2, 3 }, { 4, 5 }, { 6, 7 } } },
                { K::Pp, { { 0, 2 }, { 1, 3 }, { 4, 6 }, { 5, 7 } } },
                { K::Dp, { { 0, 4 }, { 1, 5 }, { 2, 6 }, { 3, 7 } } },
                { K::Edp, { { 0, 4 }, { 1, 5 }, { 2, 6 }, { 3, 7 } } } } },
        { "dense tp2 cp2 dp2", 2, 2, 2, 1, 1, 1, false, "tp-cp-ep-dp-pp",
            { { K::Tp, { { 0, 1 }, { 2, 3 }, { 4, 5 }, { 6, 7 } } },
                { K::Cp, { { 0, 2 }, { 1, 3 }, { 4, 6 }, { 5, 7 } } },
                { K::Dp, { { 0, 4 }, { 1, 5 }, { 2, 6 }, { 3, 7 } } }, { K::DpCp, { { 0, 2, 4, 6 }, { 1, 3, 5, 7 } } },
                { K::Pp, singletons(8) },
                // Expert view drops cp: edp = 8 / (etp 2 x ep 1) = 4 spans cp and dp.
                { K::Edp, { { 0, 2, 4, 6 }, { 1, 3, 5, 7 } } } } },
        { "moe tp2 etp1 ep4 dp4 pp2: ep spans two tp groups", 2, 1, 4, 2, 4, 1, true, "tp-cp-ep-dp-pp",
            { { K::Tp, { { 0, 1 }, { 2, 3 }, { 4, 5 }, { 6, 7 }, { 8, 9 }, { 10, 11 }, { 12, 13 }, { 14, 15 } } },
                { K::Dp, { { 0, 2, 4, 6 }, { 1, 3, 5, 7 }, { 8, 10, 12, 14 }, { 9, 11, 13, 15 } } },
                { K::Pp, { { 0, 8 }, { 1, 9 }, { 2, 10 }, { 3, 11 }, { 4, 12 }, { 5, 13 }, { 6, 14 }, { 7, 15 } } },
                { K::Ep, { { 0, 1, 2, 3 }, { 4, 5, 6, 7 }, { 8, 9, 10, 11 }, { 12, 13, 14, 15 } } },
                { K::Etp, singletons(16) },
                { K::Edp,
                    { { 0, 4 }, { 1, 5 }, { 2, 6 }, { 3, 7 }, { 8, 12 }, { 9, 13 }, { 10, 14 }, { 11, 15 } } } } },
        { "moe tp2 etp2 ep2 cp2 dp2", 2, 2, 2, 1, 2, 2, true, "tp-cp-ep-dp-pp",
            { { K::Cp, { { 0, 2 }, { 1, 3 }, { 4, 6 }, { 5, 7 } } }, { K::DpCp, { { 0, 2, 4, 6 }, { 1, 3, 5, 7 } } },
                { K::Etp, { { 0, 1 }, { 2, 3 }, { 4, 5 }, { 6, 7 } } },
                // ep takes the stride the dense view gives cp: experts shard across the cp ranks.
                { K::Ep, { { 0, 2 }, { 1, 3 }, { 4, 6 }, { 5, 7 } } },
                { K::Edp, { { 0, 4 }, { 1, 5 }, { 2, 6 }, { 3, 7 } } } } },
        { "moe tp4 etp1 ep8 cp2: one ep group over both cp ranks", 4, 2, 1, 1, 8, 1, true, "tp-cp-ep-dp-pp",
            { { K::Tp, { { 0, 1, 2, 3 }, { 4, 5, 6, 7 } } }, { K::Cp, { { 0, 4 }, { 1, 5 }, { 2, 6 }, { 3, 7 } } },
                { K::Ep, { { 0, 1, 2, 3, 4, 5, 6, 7 } } }, { K::Edp, singletons(8) } } },
        { "moe tp2 etp1 ep2 dp2 pp2, pp before dp", 2, 1, 2, 2, 2, 1, true, "tp-cp-ep-pp-dp",
            { { K::Tp, { { 0, 1 }, { 2, 3 }, { 4, 5 }, { 6, 7 } } },
                { K::Pp, { { 0, 2 }, { 1, 3 }, { 4, 6 }, { 5, 7 } } },
                { K::Dp, { { 0, 4 }, { 1, 5 }, { 2, 6 }, { 3, 7 } } },
                { K::Ep, { { 0, 1 }, { 2, 3 }, { 4, 5 }, { 6, 7 } } },
                { K::Edp, { { 0, 4 }, { 1, 5 }, { 2, 6 }, { 3, 7 } } }, { K::Etp, singletons(8) } } },
        { "short order tp-pp-dp (cp, ep of size 1 appended)", 2, 1, 2, 2, 1, 1, false, "tp-pp-dp",
            { { K::Pp, { { 0, 2 }, { 1, 3 }, { 4, 6 }, { 5, 7 } } },
                { K::Dp, { { 0, 4 }, { 1, 5 }, { 2, 6 }, { 3, 7 } } } } },
    };
}
} // namespace

TEST(RankGroups, MatchHandWrittenMegatronGroups)
{
    for (const auto& c : cases()) {
        SCOPED_TRACE(c.name);
        ParallelConfig p;
        p.tp = c.tp;
        p.cp = c.cp;
        p.dp = c.dp;
        p.pp = c.pp;
        p.ep = c.ep;
        p.etp = c.etp;
        p.order = c.order;
        std::string error;
        const auto g = RankGroups::build(p, c.moe, error);
        ASSERT_TRUE(g) << error;
        for (const auto& [kind, groups] : c.expected)
            EXPECT_EQ(g->groups(kind), groups) << RankGroups::name(kind);
    }
}

TEST(RankGroups, CoordinatesArePositionsInGroups)
{
    ParallelConfig p;
    p.tp = 2;
    p.dp = 4;
    p.pp = 2;
    p.ep = 4;
    p.etp = 1;
    std::string error;
    const auto g = RankGroups::build(p, true, error);
    ASSERT_TRUE(g) << error;
    // Rank 13 = tp 1 + 2 x dp 2 + 8 x pp 1; expert view: ep 1 (13 = 12 + 1), edp 1 (9 + 4 = 13).
    EXPECT_EQ(g->coordinate(RankGroups::Tp, 13), 1);
    EXPECT_EQ(g->coordinate(RankGroups::Dp, 13), 2);
    EXPECT_EQ(g->coordinate(RankGroups::Pp, 13), 1);
    EXPECT_EQ(g->coordinate(RankGroups::Ep, 13), 1);
    EXPECT_EQ(g->coordinate(RankGroups::Edp, 13), 1);
    EXPECT_EQ(g->groupIndex(RankGroups::Tp, 13), 6);
}

TEST(RankGroups, RejectsWhatMegatronRejects)
{
    std::string error;
    ParallelConfig missingAxis;
    missingAxis.tp = 2;
    missingAxis.pp = 2;
    missingAxis.order = "tp-dp";
    EXPECT_FALSE(RankGroups::build(missingAxis, false, error));
    EXPECT_NE(error.find("lacks pp"), std::string::npos) << error;

    ParallelConfig unknown;
    unknown.order = "tp-cp-xp-dp-pp";
    EXPECT_FALSE(RankGroups::build(unknown, false, error));
    EXPECT_NE(error.find("unknown axis \"xp\""), std::string::npos) << error;

    // pp-before-dp with an expert data-parallel size unlike dp (etp 1 < tp 2): Megatron asserts.
    ParallelConfig ppDp;
    ppDp.tp = 2;
    ppDp.dp = 2;
    ppDp.pp = 2;
    ppDp.etp = 1;
    ppDp.order = "tp-cp-ep-pp-dp";
    EXPECT_FALSE(RankGroups::build(ppDp, true, error));
    EXPECT_NE(error.find("expert data-parallel size (4) to equal dp (2)"), std::string::npos) << error;

    ParallelConfig epTooBig;
    epTooBig.dp = 2;
    epTooBig.ep = 4;
    EXPECT_FALSE(RankGroups::build(epTooBig, true, error));
    EXPECT_NE(error.find("parallel.ep"), std::string::npos) << error;
}

TEST(RankGenerator, MultiAxisTokensFollowTheOrder)
{
    std::string error;
    const auto g = RankGenerator::make(2, 1, 2, 2, 1, "tp-cp-ep-dp-pp", error);
    ASSERT_TRUE(g) << error;
    // Model-parallel group "tp-pp": tp fastest, then pp.
    const Groups expected { { 0, 1, 4, 5 }, { 2, 3, 6, 7 } };
    EXPECT_EQ(g->ranks("tp-pp"), expected);
    EXPECT_EQ(g->ranks("pp-tp"), expected); // the token's own order does not matter
    EXPECT_TRUE(g->ranks("xx").empty());
}
