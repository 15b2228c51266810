// SPDX-License-Identifier: Apache-2.0
#include "core/schedule/PipelineSimulator.h"
#include "tests/core/schedule/ScheduleTestSupport.h"

#include <gtest/gtest.h>

#include <string>

namespace parallax::core {
namespace {

using test::describe;

constexpr ScheduleKind kAllKinds[] = { ScheduleKind::GPipe, ScheduleKind::OneFOneB, ScheduleKind::Interleaved1F1B,
    ScheduleKind::ZbH1, ScheduleKind::ZbH2, ScheduleKind::ZbV, ScheduleKind::DualPipe, ScheduleKind::DualPipeV };

TEST(ScheduleShape, CheckShapeNamesTheField)
{
    struct Case {
        ScheduleShape shape;
        const char* prefix; // "" = allowed
    };
    const Case cases[] = {
        { { ScheduleKind::OneFOneB, 4, 8, 1 }, "" },
        { { ScheduleKind::OneFOneB, 0, 8, 1 }, "parallel.pp: " },
        { { ScheduleKind::OneFOneB, 4, 0, 1 }, "training.global_batch / micro-batches: " },
        { { ScheduleKind::GPipe, 4, 8, 0 }, "parallel.vpp: " },
        { { ScheduleKind::Interleaved1F1B, 4, 8, 0 }, "parallel.vpp: " },
        { { ScheduleKind::Interleaved1F1B, 4, 6, 2 }, "training.global_batch / micro-batches: " },
        { { ScheduleKind::Interleaved1F1B, 4, 6, 1 }, "" },
        { { ScheduleKind::Interleaved1F1B, 4, 12, 3 }, "" },
        { { ScheduleKind::Interleaved1F1B, 4, 8, kMaxChunksPerRank }, "" },
        { { ScheduleKind::Interleaved1F1B, 4, 8, kMaxChunksPerRank + 1 }, "parallel.vpp: " },
        // Only the interleaved schedule takes vpp; the others place their own chunks.
        { { ScheduleKind::GPipe, 4, 8, 2 }, "parallel.vpp: " },
        { { ScheduleKind::ZbV, 4, 8, 2 }, "parallel.vpp: " },
        { { ScheduleKind::ZbH1, 4, 1, 1 }, "" },
        { { ScheduleKind::ZbH2, 4, 3, 1 }, "" },
        { { ScheduleKind::ZbV, 3, 1, 1 }, "" },
        { { ScheduleKind::DualPipe, 3, 12, 1 }, "parallel.pp: " },
        { { ScheduleKind::DualPipe, 4, 6, 1 }, "training.global_batch / micro-batches: " },
        { { ScheduleKind::DualPipe, 4, 9, 1 }, "training.global_batch / micro-batches: " },
        { { ScheduleKind::DualPipe, 4, 8, 1 }, "" },
        { { ScheduleKind::DualPipeV, 4, 7, 1 }, "training.global_batch / micro-batches: " },
        { { ScheduleKind::DualPipeV, 3, 6, 1 }, "" },
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(describe(c.shape));
        const std::string message = checkShape(c.shape);
        if (std::string(c.prefix).empty()) {
            EXPECT_EQ(message, "");
        } else {
            EXPECT_EQ(message.rfind(c.prefix, 0), 0u) << message;
        }
    }
}

TEST(ScheduleShape, SimulatingABadShapeReportsInsteadOfRunning)
{
    SimulationInput input;
    input.shape = { ScheduleKind::DualPipe, 3, 12, 1 };
    const SimulationResult result = simulate(input);
    EXPECT_TRUE(result.deadlock);
    EXPECT_TRUE(result.ops.empty());
}

// rankOfStage inverts modelStageOf, and the placements are the ones the header fixes.
TEST(ScheduleShape, PlacementRoundTrips)
{
    for (ScheduleKind kind : kAllKinds) {
        for (int p : { 1, 2, 3, 4, 8 }) {
            for (int v : { 1, 2, 3 }) {
                const ScheduleShape shape { kind, p, 4 * p, v };
                SCOPED_TRACE(describe(shape));
                const int chunks = chunksPerRank(shape);
                const int directions = directionCount(shape);
                int placed = 0;
                for (int rank = 0; rank < p; ++rank) {
                    for (int chunk = 0; chunk < chunks; ++chunk) {
                        const int stage = modelStageOf(shape, rank, chunk);
                        ASSERT_GE(stage, 0);
                        ASSERT_LT(stage, modelStageCount(shape));
                        const int direction = directions == 2 ? chunk : 0;
                        EXPECT_EQ(rankOfStage(shape, stage, direction), rank);
                        ++placed;
                    }
                }
                EXPECT_EQ(placed, modelStageCount(shape) * directions);
            }
        }
    }
    const ScheduleShape dualPipe { ScheduleKind::DualPipe, 8, 16, 1 };
    EXPECT_EQ(modelStageOf(dualPipe, 2, 1), 5);
    EXPECT_EQ(rankOfStage(dualPipe, 0, 1), 7);
    const ScheduleShape zbv { ScheduleKind::ZbV, 4, 8, 1 };
    EXPECT_EQ(modelStageOf(zbv, 1, 1), 6);
    const ScheduleShape interleaved { ScheduleKind::Interleaved1F1B, 4, 8, 2 };
    EXPECT_EQ(modelStageOf(interleaved, 1, 1), 5);
}

TEST(ScheduleShape, CountsAndNames)
{
    struct Case {
        ScheduleShape shape;
        int chunks;
        int stages;
        int copies;
    };
    const Case cases[] = {
        { { ScheduleKind::GPipe, 4, 8, 1 }, 1, 4, 1 },
        { { ScheduleKind::OneFOneB, 4, 8, 1 }, 1, 4, 1 },
        { { ScheduleKind::Interleaved1F1B, 4, 8, 3 }, 3, 12, 1 },
        { { ScheduleKind::ZbH1, 4, 8, 1 }, 1, 4, 1 },
        { { ScheduleKind::ZbH2, 4, 8, 1 }, 1, 4, 1 },
        { { ScheduleKind::ZbV, 4, 8, 1 }, 2, 8, 1 },
        { { ScheduleKind::DualPipe, 4, 8, 1 }, 2, 4, 2 },
        { { ScheduleKind::DualPipeV, 4, 8, 1 }, 2, 8, 1 },
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(describe(c.shape));
        EXPECT_EQ(chunksPerRank(c.shape), c.chunks);
        EXPECT_EQ(modelStageCount(c.shape), c.stages);
        EXPECT_EQ(parameterCopies(c.shape), c.copies);
    }
    EXPECT_STREQ(toString(OpKind::BackwardInput), "B");
    EXPECT_STREQ(toString(OpKind::ForwardBackward), "F&B");
    EXPECT_STREQ(longName(OpKind::BackwardWeight), "backward-weight");
}

} // namespace
} // namespace parallax::core
