// SPDX-License-Identifier: Apache-2.0
// evaluate() with a topology summary computed by the caller (what the search does once per thread):
// the same report as evaluate() for the summary of the scenario's own topology, and a summary of any
// other topology (another object, or this one after a domain was added) is never used.
#include "core/engine/EvaluateWithSummary.h"
#include "TestScenarios.h"
#include "core/io/PresetLibrary.h"
#include "core/report/ReportJson.h"

#include <gtest/gtest.h>

#include <string>

using namespace parallax::core;
using parallax::test::batch;
using parallax::test::degrees;
using parallax::test::makeScenario;

namespace {

std::string json(const Scenario& s, const Report& r)
{
    return reportToJson(s, r).dump();
}

EvaluateOptions closedForm()
{
    EvaluateOptions o;
    o.simulateSchedule = false;
    return o;
}

} // namespace

TEST(EvaluateWithSummary, SameReportAsEvaluate)
{
    const Scenario scenarios[] = {
        makeScenario("llama3-8b", "h200", 4, 8, degrees(8, 1, 4), batch(1, 64, 4096)),
        makeScenario("llama3-70b", "h100-sxm", 16, 8, degrees(8, 4, 4), batch(1, 256, 4096)),
    };
    for (const Scenario& s : scenarios) {
        for (const EvaluateOptions& o : { EvaluateOptions {}, closedForm() }) {
            const Report plain = evaluate(s, o);
            ASSERT_TRUE(plain.valid) << plain.errors.front().text;
            EXPECT_EQ(json(s, evaluate(s, o, TopologySummary::of(s.topology))), json(s, plain));
        }
    }
}

TEST(EvaluateWithSummary, SummaryOfAnotherTopologyIsNotUsed)
{
    // 32 H200 against 28 A100: a report from the wrong summary would have the H200's HBM and peak and
    // 32 GPUs (valid), where the scenario's own topology makes it invalid (28 GPUs for a world of 32).
    const Scenario h200 = makeScenario("llama3-8b", "h200", 4, 8, degrees(8, 1, 4), batch(1, 64, 4096));
    Scenario a100 = makeScenario("llama3-8b", "a100-sxm-80gb", 4, 8, degrees(8, 1, 4), batch(1, 64, 4096));
    a100.topology.domains[3].gpuCount = 4;
    const TopologySummary stale = TopologySummary::of(h200.topology);
    EXPECT_TRUE(stale.describes(h200.topology));
    EXPECT_FALSE(stale.describes(a100.topology));

    const Report fresh = evaluate(a100, closedForm());
    const Report handed = evaluate(a100, closedForm(), stale);
    EXPECT_FALSE(handed.valid);
    EXPECT_EQ(handed.gpus, 28);
    EXPECT_EQ(json(a100, handed), json(a100, fresh));

    // A copy of the scenario is another topology object: its own summary is needed.
    const Scenario copy = h200;
    EXPECT_FALSE(stale.describes(copy.topology));
}

TEST(EvaluateWithSummary, SummaryIsStaleOnceDomainsOrFabricsAreAddedOrRemoved)
{
    Scenario s = makeScenario("llama3-8b", "h200", 4, 8, degrees(8, 1, 4), batch(1, 64, 4096));
    s.topology.domains.reserve(8);
    s.topology.fabrics.reserve(4);
    const TopologySummary before = TopologySummary::of(s.topology);
    ASSERT_TRUE(before.describes(s.topology));

    s.topology.domains.push_back(s.topology.domains.back());
    s.topology.fabrics.front().domains.push_back(4);
    EXPECT_FALSE(before.describes(s.topology));
    s.parallel.dp = 5;
    s.training.globalBatch = 80;
    const Report grown = evaluate(s, closedForm(), before);
    ASSERT_TRUE(grown.valid) << grown.errors.front().text;
    EXPECT_EQ(grown.gpus, 40);
    EXPECT_EQ(json(s, grown), json(s, evaluate(s, closedForm())));

    const TopologySummary withFive = TopologySummary::of(s.topology);
    s.topology.fabrics.push_back(s.topology.fabrics.front());
    EXPECT_FALSE(withFive.describes(s.topology));
    s.topology.fabrics.pop_back();
    s.topology.domains.pop_back();
    EXPECT_FALSE(withFive.describes(s.topology));
}
