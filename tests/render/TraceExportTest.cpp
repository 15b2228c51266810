// SPDX-License-Identifier: Apache-2.0
#include "RenderTestSupport.h"

#include "core/io/TraceExport.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>

using namespace parallax;
using core::ScheduleKind;
using nlohmann::json;

// The Chrome trace format (JSON object form): "traceEvents", complete events ph "X" with ts and dur
// in microseconds, pid = pipeline group, tid = rank; one event per op.
TEST(TraceExport, OneCompleteEventPerOp)
{
    for (ScheduleKind kind : { ScheduleKind::OneFOneB, ScheduleKind::ZbH1, ScheduleKind::DualPipe }) {
        const core::SimulationResult r = render::test::uniformRun(kind, 4, 8);
        const json trace = json::parse(core::chromeTrace(r, "pipeline group 0").dump());
        ASSERT_TRUE(trace.contains("traceEvents"));
        ASSERT_TRUE(trace["traceEvents"].is_array());
        std::size_t complete = 0;
        std::map<int, int> perRank;
        for (const json& e : trace["traceEvents"]) {
            ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("tid") && e.contains("name"));
            if (e["ph"] == "X") {
                ++complete;
                EXPECT_GE(e["dur"].get<double>(), 0);
                EXPECT_GE(e["ts"].get<double>(), 0);
                EXPECT_EQ(e["pid"], 0);
                EXPECT_TRUE(
                    e["args"].contains("microbatch") && e["args"].contains("chunk") && e["args"].contains("kind"));
                ++perRank[e["tid"].get<int>()];
            } else {
                EXPECT_EQ(e["ph"], "M");
            }
        }
        EXPECT_EQ(complete, r.ops.size()) << core::toString(kind);
        EXPECT_EQ(perRank.size(), 4u);
    }
}

TEST(TraceExport, TimesAreMicroseconds)
{
    core::SimulationResult r;
    r.ops.push_back({ 2, core::OpKind::Backward, 5, 1, 0, -1, -1, -1, 0.0015, 0.004 });
    const json trace = core::chromeTrace(r, "p");
    const json* op = nullptr;
    for (const json& e : trace["traceEvents"])
        if (e["ph"] == "X")
            op = &e;
    ASSERT_NE(op, nullptr);
    EXPECT_NEAR((*op)["ts"].get<double>(), 1500, 1e-9);
    EXPECT_NEAR((*op)["dur"].get<double>(), 2500, 1e-9);
    EXPECT_EQ((*op)["tid"], 2);
    EXPECT_EQ((*op)["name"], "B5");
    EXPECT_EQ((*op)["args"]["chunk"], 1);
}

TEST(TraceExport, WritesAFileOrSaysWhyNot)
{
    const json trace = core::chromeTrace(render::test::uniformRun(ScheduleKind::OneFOneB, 2, 4), "p");
    const std::string path = (std::filesystem::temp_directory_path() / "parallax-trace-test.json").string();
    std::string error;
    ASSERT_TRUE(core::writeChromeTrace(trace, path, error)) << error;
    std::ifstream in(path);
    EXPECT_EQ(json::parse(in)["traceEvents"].size(), trace["traceEvents"].size());
    std::filesystem::remove(path);
    EXPECT_FALSE(core::writeChromeTrace(trace, "/no/such/folder/t.json", error));
    EXPECT_NE(error.find("cannot write"), std::string::npos);
}
