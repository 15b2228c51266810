// SPDX-License-Identifier: Apache-2.0
#include "RenderTestSupport.h"

#include "ui/render/GanttModel.h"

#include <gtest/gtest.h>

using namespace parallax;
using core::OpKind;
using core::ScheduleKind;
using render::GanttModel;
using render::GanttTrack;

namespace {

struct Case {
    ScheduleKind kind;
    int p, m, v;
};

} // namespace

// The in-flight step function rebuilt from the ops peaks where the simulator says, for every
// schedule family (F&B pairs and split backwards included).
TEST(GanttModel, InflightPeaksMatchTheSimulator)
{
    for (const Case& c : { Case { ScheduleKind::GPipe, 4, 8, 1 }, Case { ScheduleKind::OneFOneB, 4, 8, 1 },
             Case { ScheduleKind::Interleaved1F1B, 4, 8, 2 }, Case { ScheduleKind::ZbH1, 4, 8, 1 },
             Case { ScheduleKind::ZbV, 4, 8, 1 }, Case { ScheduleKind::DualPipe, 4, 8, 1 },
             Case { ScheduleKind::DualPipeV, 4, 8, 1 } }) {
        const auto result = render::test::uniformRun(c.kind, c.p, c.m, c.v);
        const auto model = render::test::uniformModel(c.kind, c.p, c.m, c.v);
        for (int r = 0; r < c.p; ++r) {
            EXPECT_DOUBLE_EQ(model->inflightPeak(0, r), result.peakInflightChunks[static_cast<std::size_t>(r)])
                << core::toString(c.kind) << " rank " << r;
            EXPECT_DOUBLE_EQ(model->inflightAt(0, r, result.makespan + 1), 0) << core::toString(c.kind);
        }
    }
}

TEST(GanttModel, OpsAreGroupedByRankAndSortedByStart)
{
    const auto model = render::test::uniformModel(ScheduleKind::Interleaved1F1B, 4, 8, 2);
    EXPECT_EQ(model->rankCount(0), 4);
    EXPECT_EQ(model->opCount(), 4u * 8 * 2 * 2);
    for (int r = 0; r < 4; ++r) {
        for (int i = model->rankBegin(0, r); i < model->rankBegin(0, r + 1); ++i) {
            const auto& op = model->ops(0)[static_cast<std::size_t>(i)];
            EXPECT_EQ(op.rank, r);
            if (i > model->rankBegin(0, r)) {
                EXPECT_GE(op.start, model->ops(0)[static_cast<std::size_t>(i) - 1].end - 1e-12);
            }
        }
    }
    // Binary search: the first op ending after t.
    const int i = model->firstOpEndingAfter(0, 0, 2.5);
    EXPECT_GT(model->ops(0)[static_cast<std::size_t>(i)].end, 2.5);
    if (i > model->rankBegin(0, 0)) {
        EXPECT_LE(model->ops(0)[static_cast<std::size_t>(i) - 1].end, 2.5);
    }
}

TEST(GanttModel, LabelsShowKindMicrobatchChunkAndDirection)
{
    const auto plain = render::test::uniformModel(ScheduleKind::OneFOneB, 2, 4);
    EXPECT_EQ(plain->opLabel(0, core::TimedOp { 0, OpKind::Forward, 3 }), QStringLiteral("F3"));
    EXPECT_EQ(plain->opLabel(0, core::TimedOp { 0, OpKind::Backward, 3 }), QStringLiteral("B3"));
    const auto interleaved = render::test::uniformModel(ScheduleKind::Interleaved1F1B, 2, 4, 2);
    EXPECT_EQ(interleaved->opLabel(0, core::TimedOp { 0, OpKind::Forward, 3, 1 }), QStringLiteral("F3c1"));
    const auto dual = render::test::uniformModel(ScheduleKind::DualPipe, 2, 4);
    EXPECT_EQ(dual->opLabel(0, core::TimedOp { 0, OpKind::Forward, 3, 1, 1 }), QString::fromUtf8("F3↑"));
    EXPECT_EQ(dual->opLabel(0, core::TimedOp { 0, OpKind::BackwardWeight, 1, 0, 0 }), QString::fromUtf8("W1↓"));
    EXPECT_EQ(
        dual->opLabel(0, core::TimedOp { 0, OpKind::ForwardBackward, 2, 0, 0, 5, 1, 1 }), QString::fromUtf8("F2↓ B5↑"));
}

// With p2p time between ranks, the idle time before an op whose input comes from another rank
// splits into a bubble (the producer still running) and a p2p wait (the transfer).
TEST(GanttModel, FindsWaitsForP2pTransfers)
{
    core::SimulationInput input;
    input.shape = { ScheduleKind::OneFOneB, 4, 8, 1 };
    core::ChunkDurations d;
    d.backwardInput = 2;
    d.backwardWeight = 0;
    input.durations.assign(4, std::vector<core::ChunkDurations>(1, d));
    input.p2pSeconds.assign(4, std::vector<double>(4, 0.25));
    std::vector<GanttTrack> tracks;
    tracks.push_back(render::ganttTrack(core::simulate(input), input.shape));
    const GanttModel withP2p(std::move(tracks));
    ASSERT_FALSE(withP2p.p2pWaits(0, 1).empty());
    const auto w = withP2p.p2pWaits(0, 1).front();
    EXPECT_NEAR(w.end - w.start, 0.25, 1e-12); // rank 1's F0 waits 0.25 after rank 0's F0 ends
    EXPECT_NEAR(w.start, 1.0, 1e-12);
    EXPECT_TRUE(withP2p.hasP2pWaits());
    EXPECT_FALSE(withP2p.p2pWaits(0, 0).empty()); // rank 0 reads its data, but its gradients come from rank 1
    const auto free = render::test::uniformModel(ScheduleKind::OneFOneB, 4, 8);
    EXPECT_FALSE(free->hasP2pWaits());
}

TEST(GanttModel, CompareModeSpansTheLongestTrack)
{
    std::vector<GanttTrack> tracks;
    tracks.push_back(render::ganttTrack(
        render::test::uniformRun(ScheduleKind::OneFOneB, 4, 8), { ScheduleKind::OneFOneB, 4, 8, 1 }));
    tracks.push_back(render::ganttTrack(
        render::test::uniformRun(ScheduleKind::Interleaved1F1B, 4, 8, 2), { ScheduleKind::Interleaved1F1B, 4, 8, 2 }));
    const GanttModel model(std::move(tracks));
    EXPECT_EQ(model.trackCount(), 2);
    EXPECT_EQ(model.totalRows(), 8);
    EXPECT_DOUBLE_EQ(model.endTime(), std::max(model.track(0).result.makespan, model.track(1).result.makespan));
    EXPECT_EQ(model.track(1).label, QStringLiteral("interleaved 1F1B (v=2)"));
}
