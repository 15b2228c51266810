// SPDX-License-Identifier: Apache-2.0
#include "core/schedule/PipelineSchedule.h"
#include "tests/core/schedule/ScheduleTestSupport.h"

#include <gtest/gtest.h>

#include <vector>

namespace parallax::core {
namespace {

using test::describe;
using test::formatProgram;

// Op orders written out by hand from the sources' rules, one rank at a time.
TEST(ScheduleOrder, HandWrittenOrders)
{
    struct Case {
        ScheduleShape shape;
        int rank;
        const char* expected;
    };
    const Case cases[] = {
        // 1F1B (arXiv:2104.04473 sec 2.2.1): p-1-i warm-up forwards, 1F1B, drain.
        { { ScheduleKind::OneFOneB, 4, 8, 1 }, 0, "F0 F1 F2 F3 B0 F4 B1 F5 B2 F6 B3 F7 B4 B5 B6 B7" },
        { { ScheduleKind::OneFOneB, 4, 8, 1 }, 1, "F0 F1 F2 B0 F3 B1 F4 B2 F5 B3 F6 B4 F7 B5 B6 B7" },
        { { ScheduleKind::OneFOneB, 4, 8, 1 }, 3, "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 F6 B6 F7 B7" },
        // Megatron-LM interleaved order, p=2 m=4 v=2: rank 0 warms up with 2(p-1)+(v-1)p = 4 forwards,
        // rank 1 with 2; micro-batches go through the chunks in groups of p, backwards chunk-reversed.
        { { ScheduleKind::Interleaved1F1B, 2, 4, 2 }, 0,
            "F0c0 F1c0 F0c1 F1c1 F2c0 B0c1 F3c0 B1c1 F2c1 B0c0 F3c1 B1c0 B2c1 B3c1 B2c0 B3c0" },
        { { ScheduleKind::Interleaved1F1B, 2, 4, 2 }, 1,
            "F0c0 F1c0 F0c1 B0c1 F1c1 B1c1 F2c0 B0c0 F3c0 B1c0 F2c1 B2c1 F3c1 B3c1 B2c0 B3c0" },
        // DualPipe p=4 m=8 from the reference's eight steps (deepseek-ai/DualPipe dualpipe.py);
        // direction 0 carries micro-batches 0-3 on chunk 0, direction 1 carries 4-7 on chunk 1.
        // Rank 0 (half_rank 0): 2 F0 | F0 F1 | B1 W F1 (split) | F0&B1 F1&B0 | B1 F1&B0 | B1, B0 split |
        // W B0 split | W.
        { { ScheduleKind::DualPipe, 4, 8, 1 }, 0,
            "F0c0 F1c0 F2c0 F4c1 Bi4c1 W4c1 F5c1 F3c0&B5c1 F6c1&B0c0 B6c1 F7c1&B1c0 B7c1 Bi2c0 W2c0 Bi3c0 W3c0" },
        // Rank 1 (half_rank 1, a middle rank): F0 F1 F0 F1 | main step starts with F0 and B1 apart, then
        // F1&B0, F0&B1, F1&B0 | B1 B0 unsplit, then B1 B0 split | W W.
        { { ScheduleKind::DualPipe, 4, 8, 1 }, 1,
            "F0c0 F4c1 F1c0 F5c1 F2c0 B4c1 F6c1&B0c0 F3c0&B5c1 F7c1&B1c0 B6c1 B2c0 Bi7c1 Bi3c0 W7c1 W3c0" },
        // ZB-H1 p=2 m=4 (arXiv:2401.10241 sec 2.1): rank 1 delays its W's by one B.
        { { ScheduleKind::ZbH1, 2, 4, 1 }, 0, "F0 F1 Bi0 W0 F2 Bi1 W1 F3 Bi2 W2 Bi3 W3" },
        { { ScheduleKind::ZbH1, 2, 4, 1 }, 1, "F0 Bi0 F1 Bi1 W0 F2 Bi2 W1 F3 Bi3 W2 W3" },
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(describe(c.shape) + " rank " + std::to_string(c.rank));
        const std::vector<RankProgram> programs = generateSchedule(c.shape);
        ASSERT_EQ(static_cast<int>(programs.size()), c.shape.ranks);
        EXPECT_EQ(formatProgram(programs[c.rank], chunksPerRank(c.shape) > 1), c.expected);
    }
}

// DualPipe is symmetric: rank p-1-i runs rank i's program with the two directions swapped.
TEST(ScheduleOrder, DualPipeMirrorsAcrossTheMiddle)
{
    for (int p : { 2, 4, 8, 16 }) {
        for (int m : { 2 * p, 2 * p + 2, 4 * p }) {
            const ScheduleShape shape { ScheduleKind::DualPipe, p, m, 1 };
            SCOPED_TRACE(describe(shape));
            const std::vector<RankProgram> programs = generateSchedule(shape);
            const auto mirror = [m](int mb) { return (mb + m / 2) % m; };
            for (int rank = 0; rank < p / 2; ++rank) {
                const RankProgram& a = programs[rank];
                const RankProgram& b = programs[p - 1 - rank];
                ASSERT_EQ(a.size(), b.size());
                for (std::size_t i = 0; i < a.size(); ++i) {
                    EXPECT_EQ(a[i].kind, b[i].kind);
                    EXPECT_EQ(mirror(a[i].microbatch), b[i].microbatch);
                    EXPECT_EQ(1 - a[i].chunk, b[i].chunk);
                    EXPECT_EQ(1 - a[i].direction, b[i].direction);
                    if (a[i].kind == OpKind::ForwardBackward) {
                        EXPECT_EQ(mirror(a[i].microbatch2), b[i].microbatch2);
                        EXPECT_EQ(1 - a[i].chunk2, b[i].chunk2);
                    }
                }
            }
        }
    }
}

} // namespace
} // namespace parallax::core
