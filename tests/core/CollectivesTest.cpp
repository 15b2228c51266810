// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/Collectives.h"
#include "core/Units.h"
#include "core/cluster/CommGroups.h"
#include "core/cluster/RankMap.h"
#include "core/io/PresetLibrary.h"

#include <gtest/gtest.h>

using namespace parallax::core;

// The decision guide's check (DESIGN.md): a 64 MB all-reduce over tp=8 on NVLink 4 is
// 2 * 7/8 * 64 MB / 450 GB/s ~ 0.25 ms, and ~2.2 ms over 50 GB/s IB.
TEST(Collectives, GuideAllReduceNumbers)
{
    const double bytes = 64.0 * 1024 * 1024; // the guide's 4096 x 8192 x 2 bytes
    const double nvlink = ringCollectiveSeconds(CollectiveKind::AllReduce, 8, bytes, { 450e9, 0 });
    EXPECT_NEAR(nvlink * 1e3, 0.26, 0.02);
    const double ib = ringCollectiveSeconds(CollectiveKind::AllReduce, 8, bytes, { 50e9, 0 });
    EXPECT_NEAR(ib * 1e3, 2.35, 0.2);
    EXPECT_GT(ib / nvlink, 8.9);
}

TEST(Collectives, AlphaBetaForms)
{
    const LinkLevel link { 100e9, 5e-6 };
    const double S = 1e9;
    const int n = 16;
    EXPECT_DOUBLE_EQ(
        ringCollectiveSeconds(CollectiveKind::AllReduce, n, S, link), 2.0 * 15 / 16 * S / 100e9 + 2 * 15 * 5e-6);
    EXPECT_DOUBLE_EQ(ringCollectiveSeconds(CollectiveKind::AllGather, n, S, link), 15.0 / 16 * S / 100e9 + 15 * 5e-6);
    EXPECT_DOUBLE_EQ(
        ringCollectiveSeconds(CollectiveKind::ReduceScatter, n, S, link), 15.0 / 16 * S / 100e9 + 15 * 5e-6);
    EXPECT_DOUBLE_EQ(ringCollectiveSeconds(CollectiveKind::AllReduce, 1, S, link), 0.0);
    EXPECT_DOUBLE_EQ(ringCollectiveSeconds(CollectiveKind::P2P, 2, S, link), 5e-6 + S / 100e9);
}

// A group spanning domains: the hierarchical algorithm (NVLink reduce-scatter, IB all-reduce of
// 1/inner, NVLink all-gather) beats a flat ring bounded by IB, and is never slower.
TEST(Collectives, HierarchicalBeatsFlatAcrossDomains)
{
    const LinkLevel nv { 450e9, 2e-6 }, ib { 50e9, 5e-6 };
    const double S = 2e9;
    const double flat = ringCollectiveSeconds(CollectiveKind::AllReduce, 64, S, ib);
    const double hier = hierarchicalCollectiveSeconds(CollectiveKind::AllReduce, 8, 8, S, nv, ib);
    EXPECT_LT(hier, flat);
    const double expected = 2 * ringCollectiveSeconds(CollectiveKind::ReduceScatter, 8, S, nv)
        + ringCollectiveSeconds(CollectiveKind::AllReduce, 8, S / 8, ib);
    EXPECT_DOUBLE_EQ(hier, expected);
    // Inside one domain it is the plain ring on NVLink.
    EXPECT_DOUBLE_EQ(hierarchicalCollectiveSeconds(CollectiveKind::AllReduce, 8, 1, S, nv, ib),
        ringCollectiveSeconds(CollectiveKind::AllReduce, 8, S, nv));
}

TEST(CommGroups, GeometryFromRankMap)
{
    const auto gpu = PresetLibrary::instance().gpu("h100-sxm");
    ASSERT_TRUE(gpu);
    const Topology topo = Topology::regular(*gpu, 4, 8, 400);
    ParallelConfig p;
    p.tp = 8;
    p.dp = 4;
    const RankMap map = RankMap::build(p, &topo);
    const CommGroup tp = commGroupFor(map.groups(Dim::Tp)[0].ranks, topo, map);
    EXPECT_EQ(tp.inner, 8);
    EXPECT_EQ(tp.outer, 1);
    EXPECT_DOUBLE_EQ(tp.intra.bytesPerSecond, 450e9);
    const CommGroup dp = commGroupFor(map.groups(Dim::Dp)[0].ranks, topo, map);
    EXPECT_EQ(dp.inner, 1);
    EXPECT_EQ(dp.outer, 4);
    EXPECT_DOUBLE_EQ(dp.inter.bytesPerSecond, 50e9); // 400 Gb/s NIC per GPU
}
