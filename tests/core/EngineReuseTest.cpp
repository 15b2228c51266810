// SPDX-License-Identifier: Apache-2.0
// evaluate() reuses its per-rank pipeline tables between calls on a thread (core/Engine.cpp): a call
// after a differently shaped one must give exactly what a first call on a fresh thread gives.
#include "TestScenarios.h"
#include "core/Engine.h"

#include <gtest/gtest.h>

#include <thread>

using namespace parallax::core;
using namespace parallax::test;

namespace {
Report onFreshThread(const Scenario& s, const EvaluateOptions& o)
{
    Report r;
    std::thread([&] { r = evaluate(s, o); }).join();
    return r;
}

void expectSame(const Report& a, const Report& b, const char* what)
{
    EXPECT_EQ(a.stepTimeSeconds, b.stepTimeSeconds) << what;
    EXPECT_EQ(a.bubbleFraction, b.bubbleFraction) << what;
    EXPECT_EQ(a.peakMemoryBytes, b.peakMemoryBytes) << what;
    EXPECT_EQ(a.comm.ppSeconds, b.comm.ppSeconds) << what;
    ASSERT_EQ(a.stages.size(), b.stages.size()) << what;
    for (std::size_t i = 0; i < a.stages.size(); ++i)
        EXPECT_EQ(a.stages[i].activationsBytes, b.stages[i].activationsBytes) << what << " stage " << i;
}
} // namespace

TEST(EngineReuse, ACallAfterAnotherShapeEqualsAFirstCall)
{
    const Scenario deep = presetScenario("gpt3-175b-1536xa100"); // pp 12, interleaved
    Scenario flat = makeScenario("llama3-8b", "h100-sxm", 1, 8, degrees(8, 1, 1), batch(1, 8, 4096));
    Scenario blocking = presetScenario("guide-70b-64xh100");
    blocking.parallel.p2pOverlap = false; // p2p folded into the durations, then zeroed
    for (bool simulate : { false, true }) {
        EvaluateOptions o;
        o.simulateSchedule = simulate;
        const Report deepFirst = onFreshThread(deep, o);
        const Report flatFirst = onFreshThread(flat, o);
        const Report blockingFirst = onFreshThread(blocking, o);
        // One thread, shapes alternating: larger tables, then pp = 1 (no p2p table), then blocking sends.
        evaluate(deep, o);
        expectSame(evaluate(flat, o), flatFirst, "pp 1 after pp 12");
        expectSame(evaluate(blocking, o), blockingFirst, "blocking sends after pp 1");
        expectSame(evaluate(deep, o), deepFirst, "pp 12 after blocking sends");
        EXPECT_GT(deepFirst.stepTimeSeconds, 0);
        EXPECT_GT(blockingFirst.comm.ppSeconds, 0);
    }
}
