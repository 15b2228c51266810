// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/FabricPath.h"
#include "TestScenarios.h"
#include "core/Engine.h"
#include "core/cluster/CommGroups.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/report/ReportJson.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace parallax::core;

namespace {

EngineCommGroups commOf(const Scenario& s)
{
    const RankMap map = RankMap::build(s.parallel, &s.topology);
    bool calibrated = false;
    return buildCommGroups(s.parallel, s.topology, map, nullptr, calibrated);
}

// 400 Gb/s NDR per GPU = 50 GB/s per direction (DESIGN.md bandwidth hierarchy).
constexpr double kNic = 50e9;
// Activations sent between stages per micro-batch: 2 s b h / tp bytes (bf16, sequence parallel).
double p2pBytes(const Scenario& s)
{
    return 2.0 * s.seqLen() * s.training.microBatch * s.model.hidden / s.parallel.tp;
}
double send(double latency, double bandwidth, double bytes)
{
    return latency + bytes / std::min(bandwidth, EfficiencyDefaults {}.pipelineSendBytesPerSecond);
}

} // namespace

// Two leaves (nodes 0-3, 4-7, 5 us, non-blocking) under a spine (all nodes, 2:1, 7 us). By hand:
// a pair on one leaf gets 50 GB/s and 5 us; a pair across the leaves only shares the spine:
// 50 / 2 = 25 GB/s and 7 us.
TEST(FabricPath, TwoLeavesUnderASpineByHand)
{
    const Scenario s = parallax::test::presetScenario("llama3-70b-leaves-64xh100");
    ASSERT_EQ(s.topology.fabrics.size(), 3u);
    EXPECT_TRUE(s.topology.connected());
    EXPECT_EQ(s.topology.fabricsOfDomain(0), (std::vector<int> { 0, 2 }));
    const FabricRoute leaf = routeBetween(s.topology, 0, 8); // node0 -> node1
    EXPECT_EQ(leaf.fabric, 0);
    EXPECT_DOUBLE_EQ(leaf.link.bytesPerSecond, kNic);
    EXPECT_DOUBLE_EQ(leaf.link.latencySeconds, 5e-6);
    const FabricRoute spine = routeBetween(s.topology, 0, 32); // node0 -> node4
    EXPECT_EQ(spine.fabric, 2);
    EXPECT_DOUBLE_EQ(spine.link.bytesPerSecond, kNic / 2);
    EXPECT_DOUBLE_EQ(spine.link.latencySeconds, 7e-6);

    // Default order tp-cp-ep-dp-pp: DP groups {0, 8, 16, 24} stay on leaf0; PP pairs (r, r + 32) cross.
    const EngineCommGroups comm = commOf(s);
    EXPECT_DOUBLE_EQ(comm.dp.inter.bytesPerSecond, kNic);
    EXPECT_DOUBLE_EQ(comm.dp.inter.latencySeconds, 5e-6);
    const Report r = evaluate(s);
    ASSERT_TRUE(r.valid) << (r.errors.empty() ? "" : r.errors.front().text);
    // pp=2, 1F1B, m = 256 / 4 = 64: each micro-batch sends forward and backward over the spine.
    const double m = 64;
    EXPECT_NEAR(r.comm.ppSeconds, m * 2 * send(7e-6, kNic / 2, p2pBytes(s)), 1e-12);
    EXPECT_EQ(r.groupsCrossingFabrics[static_cast<int>(Dim::Pp)], 32);
    EXPECT_EQ(r.groupsCrossingFabrics[static_cast<int>(Dim::Dp)], 0);

    // Order tp-cp-ep-pp-dp: PP pairs (r, r + 8) stay on a leaf, DP groups {0, 16, 32, 48} cross.
    Scenario swapped = s;
    swapped.parallel.order = "tp-cp-ep-pp-dp";
    const EngineCommGroups comm2 = commOf(swapped);
    EXPECT_DOUBLE_EQ(comm2.dp.inter.bytesPerSecond, kNic / 2);
    EXPECT_DOUBLE_EQ(comm2.dp.inter.latencySeconds, 7e-6);
    const Report r2 = evaluate(swapped);
    ASSERT_TRUE(r2.valid);
    EXPECT_NEAR(r2.comm.ppSeconds, m * 2 * send(5e-6, kNic, p2pBytes(s)), 1e-12);
    EXPECT_EQ(r2.groupsCrossingFabrics[static_cast<int>(Dim::Dp)], 16);
    EXPECT_EQ(r2.groupsCrossingFabrics[static_cast<int>(Dim::Pp)], 0);

    // The DP time over the spine equals the DP time on one flat fabric of the spine path's numbers
    // (200 Gb/s per GPU, 7 us): the path arithmetic, not a fudge factor, moves it.
    Scenario flat = swapped;
    flat.topology = Topology::regular(s.topology.domains.front().gpu, 8, 8, 200);
    flat.topology.fabrics.front().latencySeconds = 7e-6;
    const Report rf = evaluate(flat);
    EXPECT_NEAR(r2.comm.dpTotalSeconds, rf.comm.dpTotalSeconds, 1e-12);
    EXPECT_GT(r2.comm.dpTotalSeconds, r.comm.dpTotalSeconds);
}

// Rail-optimised, 2:1 above the rails, TP=4 PP=4 DP=2 in order tp-cp-ep-pp-dp. By hand:
// DP pairs join GPU i of node k and node k+2 (one rail): 50 GB/s, no oversubscription. The pipeline
// goes n0g0 -> n0g4 (NVLink) -> n1g0 (rail 4 to rail 0) -> n1g4: with PXN the rail change costs one
// NVLink hop (+2 us) at full NIC speed; without PXN it climbs the spine (25 GB/s, +1 us); on a
// fat tree (not rail-optimised) every flow gets 25 GB/s.
TEST(FabricPath, RailOptimisedFabricByHand)
{
    const Scenario s = parallax::test::presetScenario("llama3-8b-rails-32xh100");
    ASSERT_TRUE(s.topology.fabrics.front().railOptimized);
    ASSERT_TRUE(s.topology.fabrics.front().pxn);
    EXPECT_EQ(railOf(s.topology, 0, 1, 4), 4);
    const FabricRoute onRail = routeBetween(s.topology, 0, 16);
    EXPECT_FALSE(onRail.crossesRail);
    EXPECT_DOUBLE_EQ(onRail.link.bytesPerSecond, kNic);
    const FabricRoute pxn = routeBetween(s.topology, 4, 8);
    EXPECT_TRUE(pxn.crossesRail);
    EXPECT_DOUBLE_EQ(pxn.link.bytesPerSecond, kNic);
    EXPECT_DOUBLE_EQ(pxn.link.latencySeconds, 7e-6);

    const double b = p2pBytes(s);
    const double m = 32; // 64 / (1 * 2)
    const double nvlinkHop = send(2e-6, 450e9, b);
    struct Case {
        const char* what;
        bool rail, pxn;
        double dpBandwidth, crossHop;
    };
    const Case cases[] = {
        { "rail-optimised, PXN", true, true, kNic, send(7e-6, kNic, b) },
        { "rail-optimised, no PXN", true, false, kNic, send(6e-6, kNic / 2, b) },
        { "fat tree 2:1", false, true, kNic / 2, send(5e-6, kNic / 2, b) },
    };
    for (const Case& c : cases) {
        Scenario v = s;
        v.topology.fabrics.front().railOptimized = c.rail;
        v.topology.fabrics.front().pxn = c.pxn;
        EXPECT_DOUBLE_EQ(commOf(v).dp.inter.bytesPerSecond, c.dpBandwidth) << c.what;
        const Report r = evaluate(v);
        ASSERT_TRUE(r.valid) << c.what;
        // Every rank sends once over NVLink and once across nodes per micro-batch.
        EXPECT_NEAR(r.comm.ppSeconds, m * (nvlinkHop + c.crossHop), 1e-12) << c.what;
        EXPECT_EQ(r.groupsCrossingRails[static_cast<int>(Dim::Pp)], c.rail ? 8 : 0) << c.what;
        EXPECT_EQ(r.groupsCrossingRails[static_cast<int>(Dim::Dp)], 0) << c.what;
    }
    // DP over one rail: the same time as on a flat non-blocking fabric.
    Scenario flat = s;
    flat.topology.fabrics.front().oversubscription = 1;
    flat.topology.fabrics.front().railOptimized = false;
    EXPECT_NEAR(evaluate(s).comm.dpTotalSeconds, evaluate(flat).comm.dpTotalSeconds, 1e-12);
}

TEST(FabricPath, DomainsOnNoCommonFabricAreAnError)
{
    Scenario s = parallax::test::presetScenario("llama3-70b-leaves-64xh100");
    s.topology.fabrics.pop_back(); // no spine: the leaves cannot reach each other
    EXPECT_FALSE(s.topology.connected());
    const Report r = evaluate(s);
    EXPECT_FALSE(r.valid);
    ASSERT_FALSE(r.errors.empty());
    EXPECT_EQ(r.errors.front().field, "cluster.topology.fabrics");
}

TEST(FabricPath, FabricKeysRoundTripAndRankMapJsonNamesCrossings)
{
    const Scenario s = parallax::test::presetScenario("llama3-70b-leaves-64xh100");
    LoadError error;
    const auto back = parseScenario(scenarioToJson(s).dump(), error);
    ASSERT_TRUE(back) << error.message;
    ASSERT_EQ(back->topology.fabrics.size(), 3u);
    EXPECT_FALSE(back->topology.fabrics[2].railOptimized);
    EXPECT_DOUBLE_EQ(back->topology.fabrics[2].oversubscription, 2);
    EXPECT_EQ(back->topology.fabrics[2].domains.size(), 8u);
    const nlohmann::json j = reportToJson(s, evaluate(s));
    EXPECT_EQ(j["rank_map"]["groups_crossing_fabrics"]["pp"], 32);
    EXPECT_EQ(j["rank_map"]["groups_crossing_fabrics"]["dp"], 0);
    Scenario rails = parallax::test::presetScenario("llama3-8b-rails-32xh100");
    rails.topology.fabrics.front().pxn = false;
    const auto railsBack = parseScenario(scenarioToJson(rails).dump(), error);
    ASSERT_TRUE(railsBack) << error.message;
    EXPECT_FALSE(railsBack->topology.fabrics.front().pxn);
}
