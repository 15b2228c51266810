// SPDX-License-Identifier: Apache-2.0
// The schedule simulator against the bubble rates arXiv:2401.10241 Table 5 computes from profiled
// pass times (Table 6; the "pipeline_bubble_reference" records of data/published_runs_train.json).
#include "core/schedule/PipelineSimulator.h"
#include "core/schedule/ScheduleGenerators.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>

using namespace parallax::core;
using nlohmann::json;

namespace {

// Bubble rate as the paper defines it: (cost - m (T_F + T_B + T_W)) / cost, where cost is the
// longest stage time, each stage timed from its own first op to its last (data/README.md).
double bubbleRate(ScheduleKind kind, int p, int m, const json& t)
{
    SimulationInput in;
    in.shape = { kind, p, m, 1 };
    ChunkDurations d;
    d.forward = t["T_F"].get<double>();
    d.backwardInput = t["T_B"].get<double>();
    d.backwardWeight = t["T_W"].get<double>();
    in.durations.assign(p, std::vector<ChunkDurations>(chunksPerRank(in.shape), d));
    in.p2pSeconds.assign(p, std::vector<double>(p, t["T_comm"].get<double>()));
    const SimulationResult r = simulate(in);
    std::vector<double> first(p, r.makespan), last(p, 0);
    for (const TimedOp& op : r.ops) {
        first[op.rank] = std::min(first[op.rank], op.start);
        last[op.rank] = std::max(last[op.rank], op.end);
    }
    double cost = 0;
    for (int rank = 0; rank < p; ++rank)
        cost = std::max(cost, last[rank] - first[rank]);
    const double work = m * (d.forward + d.backwardInput + d.backwardWeight);
    return (cost - work) / cost;
}

} // namespace

TEST(BubbleReference, SimulatorReproducesTable5)
{
    std::ifstream in(std::string(PARALLAX_SOURCE_DIR) + "/data/published_runs_train.json");
    ASSERT_TRUE(in);
    const json runs = json::parse(in);
    int compared = 0;
    for (const json& r : runs) {
        if (r.value("run_kind", "") != "pipeline_bubble_reference")
            continue;
        const json& measured = r["measured"];
        if (!measured.contains("profiled_ms") || !measured["profiled_ms"].is_object()
            || !measured.contains("bubble_rate") || !measured["bubble_rate"].is_object())
            continue; // a reference without per-pass times
        const int p = r["parallel"]["pp"].get<int>();
        const int m = r["parallel"]["num_microbatches"].get<int>();
        const json& times = r["measured"]["profiled_ms"];
        const json& published = r["measured"]["bubble_rate"];
        const std::pair<const char*, ScheduleKind> schedules[]
            = { { "1F1B", ScheduleKind::OneFOneB }, { "ZB-H1", ScheduleKind::ZbH1 }, { "ZB-H2", ScheduleKind::ZbH2 } };
        for (const auto& [name, kind] : schedules) {
            const double ours = bubbleRate(kind, p, m, times);
            if (!published.contains(name) || !published[name].is_number())
                continue;
            const double theirs = published[name].get<double>();
            std::printf(
                "%-36s %-6s simulated %.4f published %.4f\n", r["id"].get<std::string>().c_str(), name, ours, theirs);
            EXPECT_NEAR(ours, theirs, 0.002) << r["id"] << " " << name;
            ++compared;
        }
    }
    EXPECT_GE(compared, 30);
}
