// SPDX-License-Identifier: Apache-2.0
#include "core/schedule/PipelineSimulator.h"
#include "tests/core/schedule/ScheduleTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace parallax::core {
namespace {

using test::describe;

struct PeakRow {
    const char* source;
    ScheduleKind kind;
    int v;
    double activationWeight; // per chunk
    double wPendingWeight;
    int minMicrobatchesPerRank;
    bool peakRankOnly; // compare the largest peak over the ranks rather than each rank
    std::function<double(int p, int m, int v, int rank)> expected;
};

std::vector<PeakRow> peakRows()
{
    return {
        { "GPipe keeps all m", ScheduleKind::GPipe, 1, 1, 0, 1, false, [](int, int m, int, int) { return m; } },
        { "arXiv:2104.04473 sec 2.2.1: p - i on rank i", ScheduleKind::OneFOneB, 1, 1, 0, 1, false,
            [](int p, int, int, int i) { return p - i; } },
        // Korthikanti arXiv:2205.05198 sec 4.2.3: a factor 1 + (p-1)/(p v) over 1F1B on the first
        // stage, i.e. p + (p-1)/v micro-batch-stages when each chunk weighs 1/v of a stage.
        { "arXiv:2205.05198 sec 4.2.3, v=2", ScheduleKind::Interleaved1F1B, 2, 0.5, 0, 2, false,
            [](int p, int, int v, int i) { return i == 0 ? p + (p - 1.0) / v : -1; } },
        { "arXiv:2205.05198 sec 4.2.3, v=4", ScheduleKind::Interleaved1F1B, 4, 0.25, 0, 2, false,
            [](int p, int, int v, int i) { return i == 0 ? p + (p - 1.0) / v : -1; } },
        // Qi sec 2.1 with 0-based i: (p-i) M_B + i M_W.
        { "arXiv:2401.10241 sec 2.1 ZB-H1", ScheduleKind::ZbH1, 1, 1, 0.25, 1, false,
            [](int p, int, int, int i) { return (p - i) + 0.25 * i; } },
        // Qi sec 2.2 with 0-based i: (2p-2i-1) M_B + 2i M_W.
        { "arXiv:2401.10241 sec 2.2 ZB-H2", ScheduleKind::ZbH2, 1, 1, 0.25, 2, false,
            [](int p, int, int, int i) { return (2 * p - 2 * i - 1) + 0.5 * i; } },
        // Qi sec 6: p M_B on every rank, each chunk half a stage.
        { "arXiv:2401.10241 sec 6 ZB-V", ScheduleKind::ZbV, 1, 0.5, 0, 2, false,
            [](int p, int, int, int) { return p; } },
        // DeepSeek Table 2: PP+1 chunks of activations at the peak (the middle ranks).
        { "arXiv:2412.19437 Table 2 DualPipe", ScheduleKind::DualPipe, 1, 1, 0, 2, true,
            [](int p, int, int, int) { return p + 1; } },
        // DualPipeV on p ranks holds 2p+1 chunks (PP+1 with PP = 2p, deepseek-ai/DualPipe README).
        { "deepseek-ai/DualPipe README DualPipeV", ScheduleKind::DualPipeV, 1, 1, 0, 2, true,
            [](int p, int, int, int) { return 2 * p + 1; } },
    };
}

TEST(InflightPeak, MatchesThePublishedCounts)
{
    for (const PeakRow& row : peakRows()) {
        for (int p : { 2, 4, 8, 16 }) {
            for (int factor : { 1, 2, 4, 8 }) {
                if (factor < row.minMicrobatchesPerRank)
                    continue;
                const ScheduleShape shape { row.kind, p, factor * p, row.v };
                SCOPED_TRACE(std::string(row.source) + ": " + describe(shape));
                SimulationInput input;
                input.shape = shape;
                const int chunks = chunksPerRank(shape);
                input.activationWeight.assign(p, std::vector<double>(chunks, row.activationWeight));
                input.wPendingWeight.assign(p, std::vector<double>(chunks, row.wPendingWeight));
                const SimulationResult result = simulate(input);
                ASSERT_FALSE(result.deadlock);
                if (row.peakRankOnly) {
                    const double peak
                        = *std::max_element(result.peakInflightWeight.begin(), result.peakInflightWeight.end());
                    EXPECT_NEAR(peak, row.expected(p, shape.microbatches, row.v, 0), 1e-9);
                    continue;
                }
                for (int rank = 0; rank < p; ++rank) {
                    const double expected = row.expected(p, shape.microbatches, row.v, rank);
                    if (expected >= 0) {
                        EXPECT_NEAR(result.peakInflightWeight[rank], expected, 1e-9) << "rank " << rank;
                    }
                }
            }
        }
    }
}

TEST(InflightPeak, ChunkCountsAndParameterCopies)
{
    SimulationInput input;
    input.shape = { ScheduleKind::DualPipe, 8, 16, 1 };
    const SimulationResult dualPipe = simulate(input);
    EXPECT_EQ(dualPipe.peakInflightChunks[3], 9);
    EXPECT_EQ(dualPipe.peakInflightChunks[4], 9);
    EXPECT_EQ(dualPipe.parameterCopies, std::vector<int>(8, 2));

    input.shape = { ScheduleKind::ZbH1, 4, 16, 1 };
    input.wPendingWeight.assign(4, std::vector<double>(1, 0.5));
    const SimulationResult zbH1 = simulate(input);
    EXPECT_EQ(zbH1.peakInflightChunks, (std::vector<int> { 4, 3, 2, 1 }));
    EXPECT_EQ(zbH1.parameterCopies, std::vector<int>(4, 1));
}

} // namespace
} // namespace parallax::core
