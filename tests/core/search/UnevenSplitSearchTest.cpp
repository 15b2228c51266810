// SPDX-License-Identifier: Apache-2.0
#include "../TestScenarios.h"
#include "core/Engine.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/search/ConfigSearch.h"

#include <gtest/gtest.h>

using namespace parallax::core;

namespace {
Scenario unevenPreset()
{
    return parallax::test::presetScenario("llama3-70b-uneven-72xh100");
}

double stepTime(const Scenario& base, const SearchPoint& p)
{
    EvaluateOptions o;
    o.keepTimeline = false;
    return evaluate(applyPoint(base, p), o).stepTimeSeconds;
}
} // namespace

// The recommender tries, for its best pipelines, the split that balances the LM head on the last
// rank, and returns it when it is faster than the same configuration split evenly.
TEST(UnevenSplitSearch, RecommenderReturnsTheHeadBalancingSplit)
{
    const Scenario base = unevenPreset();
    for (bool zeroBubble : { true, false }) {
        SearchOptions options;
        options.topK = 10;
        options.explain = false;
        options.limits.includeZeroBubble = zeroBubble;
        const SearchResult r = searchConfigurations(base, options);
        ASSERT_FALSE(r.candidates.empty());
        const Candidate* split = nullptr;
        for (const Candidate& c : r.candidates) {
            if (c.point.firstStageLayers > 0 || c.point.lastStageLayers > 0) {
                split = &c;
                break;
            }
        }
        // With zero-bubble schedules (whose V-shaped placement admits no split) a ZB-V layout may take every
        // place of the top ten; without them the head-balancing split must be there.
        if (zeroBubble && !split)
            continue;
        ASSERT_NE(split, nullptr) << "no uneven split among the candidates";
        SearchPoint even = split->point;
        even.firstStageLayers = even.lastStageLayers = 0;
        EXPECT_LT(split->report.stepTimeSeconds, stepTime(base, even)) << describe(split->point);
        EXPECT_NE(describe(split->point).find("stage-layers="), std::string::npos);
        if (!zeroBubble) {
            // Among 1F1B / interleaved / GPipe pipelines nothing hides the head: the winner takes a split.
            const SearchPoint& w = r.candidates.front().point;
            EXPECT_GT(w.firstStageLayers + w.lastStageLayers, 0) << describe(w);
        }
    }
}
