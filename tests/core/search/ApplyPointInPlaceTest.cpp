// SPDX-License-Identifier: Apache-2.0
// The search's per-thread scratch scenario: a point applied in place over whatever point the scratch
// held before gives exactly the scenario applyPoint builds from the base (every field, in the file format).
#include "core/search/ApplyPointInPlace.h"
#include "core/io/ScenarioIo.h"
#include "core/search/SearchSpace.h"

#include "SearchTestSupport.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace parallax::core;
using parallax::test::searchScenario;

TEST(ApplyPointInPlace, AnyPreviousPointLeavesNoTrace)
{
    const Scenario base = searchScenario("megatron-gpt-1.7b", 2, 8, 64, 2048);
    const SearchSpace space(base, SearchLimits {});
    std::vector<SearchPoint> points;
    for (const Layout& l : space.layouts()) {
        for (int mb : space.microBatches(l)) {
            const int m = base.training.globalBatch / (mb * l.dp);
            for (const ScheduleChoice& sc : space.schedules(l.pp, m)) {
                for (int zero : space.zeroStages(l, 1)) {
                    for (Recompute r : SearchSpace::kRecomputeModes)
                        points.push_back(pointAt(l, 1, sc, mb, r, zero));
                }
            }
        }
    }
    if (points.size() > 400)
        points.resize(400);
    points.push_back(pointAt(space.layouts().front(), 1, ScheduleChoice {}, 1));
    points.back().firstStageLayers = 3; // an uneven split, then even ones again
    ASSERT_GE(points.size(), 20U);
    Scenario scratch = base;
    for (std::size_t i = 0; i < points.size(); ++i) {
        // Two points in a row that differ: the scratch carries the first's fields into the second.
        applyPointInPlace(scratch, points[(i * 7) % points.size()], base);
        applyPointInPlace(scratch, points[i], base);
        EXPECT_EQ(scenarioToJson(scratch), scenarioToJson(applyPoint(base, points[i]))) << describe(points[i]);
    }
}

// The MoE dispatcher fields: a point with ep > 1 sets its dispatcher (NCCL's all-to-all drops DeepSeek's fp8
// dispatch, a DeepEP mode), one with ep = 1 keeps the scenario's, whatever the scratch held before.
TEST(ApplyPointInPlace, DispatcherFieldsLeaveNoTrace)
{
    Scenario base = searchScenario("megatron-gpt-1.7b", 2, 8, 64, 2048);
    base.model = parallax::test::smallMoe();
    base.modelPreset.clear();
    base.training.dtype = DType::Fp8;
    base.training.moeTokenDispatcher = MoeDispatcher::DeepEp;
    base.training.deepseekFp8Dispatch = true;
    const SearchSpace space(base, SearchLimits {});
    std::vector<SearchPoint> points;
    for (const Layout& l : space.layouts()) {
        for (int ep : space.expertDegrees(l)) {
            for (const MoeDispatcher d : space.dispatchers(ep)) {
                SearchPoint p = pointAt(l, ep, ScheduleChoice {}, 1);
                p.dispatcher = d;
                points.push_back(p);
            }
        }
    }
    ASSERT_GE(points.size(), 20U);
    Scenario scratch = base;
    int deepEp = 0, nccl = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
        applyPointInPlace(scratch, points[(i * 7) % points.size()], base);
        applyPointInPlace(scratch, points[i], base);
        const Scenario expected = applyPoint(base, points[i]);
        EXPECT_EQ(scenarioToJson(scratch), scenarioToJson(expected)) << describe(points[i]);
        if (points[i].ep == 1) {
            EXPECT_EQ(expected.training.moeTokenDispatcher, MoeDispatcher::DeepEp);
            EXPECT_TRUE(expected.training.deepseekFp8Dispatch);
        } else if (points[i].dispatcher == MoeDispatcher::DeepEp) {
            EXPECT_TRUE(expected.training.deepseekFp8Dispatch);
            ++deepEp;
        } else {
            EXPECT_EQ(expected.training.moeTokenDispatcher, MoeDispatcher::AllToAll);
            EXPECT_FALSE(expected.training.deepseekFp8Dispatch);
            ++nccl;
        }
    }
    EXPECT_GT(deepEp, 0);
    EXPECT_EQ(deepEp, nccl);
}
