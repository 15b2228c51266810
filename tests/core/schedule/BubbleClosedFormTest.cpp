// SPDX-License-Identifier: Apache-2.0
#include "core/schedule/PipelineSimulator.h"
#include "tests/core/schedule/ScheduleTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace parallax::core {
namespace {

using test::describe;
using test::uniformInput;

// How a row reads the simulated bubble.
enum class Measure {
    // Idle fraction of every rank, (makespan - busy) / makespan, each compared with the formula.
    IdleFractionEveryRank,
    // Idle seconds of every rank, makespan - busy.
    IdleSecondsEveryRank,
    // Longest per-rank span (first op start to last op end) minus the rank's busy time: the
    // "cost - m(T_F+T_B+T_W)" of arXiv:2401.10241 sec 5, which counts a parallelogram as bubble-free.
    SpanIdleSecondsMax,
    // The largest makespan - busy over the ranks. DualPipe's ranks are busy for different times
    // (an F&B pair takes less than F+B), and DeepSeek's figure counts the bubble of the middle ranks,
    // the most idle ones.
    IdleSecondsMax,
};

struct Row {
    const char* source;
    ScheduleKind kind;
    ChunkDurations d;
    Measure measure;
    int minMicrobatchesPerRank; // m in {p, 2p, 4p, 8p} from this multiple of p on
    std::function<double(int p, int m, int v, const ChunkDurations&)> formula;
};

double simulated(const SimulationResult& r, Measure measure, int rank)
{
    const double idle = r.makespan - r.busySecondsPerRank[rank];
    switch (measure) {
    case Measure::IdleFractionEveryRank:
        return idle / r.makespan;
    case Measure::IdleSecondsEveryRank:
        return idle;
    case Measure::SpanIdleSecondsMax: {
        double worst = 0;
        for (std::size_t i = 0; i < r.spanSecondsPerRank.size(); ++i)
            worst = std::max(worst, r.spanSecondsPerRank[i] - r.busySecondsPerRank[i]);
        return worst;
    }
    case Measure::IdleSecondsMax: {
        double worst = 0;
        for (double busy : r.busySecondsPerRank)
            worst = std::max(worst, r.makespan - busy);
        return worst;
    }
    }
    return 0;
}

ChunkDurations times(double f, double b, double w, double fb = -1)
{
    return { f, b, w, fb, 0 };
}

// F, B, W below are ChunkDurations' forward, backwardInput, backwardWeight; each row states the
// notation of its formula.
std::vector<Row> rows()
{
    // Narayanan t_f, t_b: one stage's forward and full backward; any split of t_b gives the same.
    const auto gpipeLike = [](int p, int m, int, const ChunkDurations&) { return (p - 1.0) / (m + p - 1.0); };
    const auto interleaved = [](int p, int m, int v, const ChunkDurations&) { return (p - 1.0) / (v * m + p - 1.0); };
    // Qi Table 2 notation: T_B is the input-gradient pass alone. The ZB-H1 form holds while W <= min(F, B),
    // the ZB-H2 form while F + B >= 2W and m >= 2p-1 (enough micro-batches for its warm-up).
    const auto zbH1 = [](int p, int, int, const ChunkDurations& d) {
        return (p - 1) * (d.forward + d.backwardInput - d.backwardWeight);
    };
    const auto zbH2 = [](int p, int, int, const ChunkDurations& d) {
        return (p - 1) * (d.forward + d.backwardInput - 2 * d.backwardWeight);
    };
    // DeepSeek notation (arXiv:2412.19437 Table 2): B is the full backward chunk, W its weight part,
    // F&B the overlapped pair. The table's form is exact when F equals the input-gradient part, as in
    // the reference's figure where every cell is one unit; other ratios move it both ways.
    const auto dualPipeTerm = [](const ChunkDurations& d) {
        const double fullB = d.backwardInput + d.backwardWeight;
        const double pair = d.forwardBackward >= 0 ? d.forwardBackward : std::max(d.forward, fullB);
        return pair + fullB - 3 * d.backwardWeight;
    };
    const auto dualPipe
        = [dualPipeTerm](int p, int, int, const ChunkDurations& d) { return (p / 2 - 1) * dualPipeTerm(d); };
    // DualPipeV on p ranks is DualPipe on 2p stages folded in half (deepseek-ai/DualPipe README).
    const auto dualPipeV
        = [dualPipeTerm](int p, int, int, const ChunkDurations& d) { return (p - 1) * dualPipeTerm(d); };
    const auto zero = [](int, int, int, const ChunkDurations&) { return 0.0; };
    return {
        { "arXiv:2104.04473 sec 2.2.1", ScheduleKind::GPipe, times(1, 1, 1), Measure::IdleFractionEveryRank, 1,
            gpipeLike },
        { "arXiv:2104.04473 sec 2.2.1", ScheduleKind::GPipe, times(1, 1.4, 0.6), Measure::IdleFractionEveryRank, 1,
            gpipeLike },
        { "arXiv:2104.04473 sec 2.2.1", ScheduleKind::OneFOneB, times(1, 1, 1), Measure::IdleFractionEveryRank, 1,
            gpipeLike },
        { "arXiv:2104.04473 sec 2.2.1", ScheduleKind::OneFOneB, times(1, 1.4, 0.6), Measure::IdleFractionEveryRank, 1,
            gpipeLike },
        { "arXiv:2104.04473 sec 2.2.2", ScheduleKind::Interleaved1F1B, times(1, 1, 1), Measure::IdleFractionEveryRank,
            1, interleaved },
        { "arXiv:2104.04473 sec 2.2.2", ScheduleKind::Interleaved1F1B, times(0.5, 0.7, 0.3),
            Measure::IdleFractionEveryRank, 1, interleaved },
        { "arXiv:2401.10241 Table 2", ScheduleKind::ZbH1, times(1, 1, 1), Measure::IdleSecondsEveryRank, 1, zbH1 },
        { "arXiv:2401.10241 Table 2", ScheduleKind::ZbH1, times(1, 1.5, 0.5), Measure::IdleSecondsEveryRank, 1, zbH1 },
        { "arXiv:2401.10241 Table 2", ScheduleKind::ZbH1, times(1, 2, 1), Measure::IdleSecondsEveryRank, 1, zbH1 },
        { "arXiv:2401.10241 Table 2", ScheduleKind::ZbH1, times(1, 1.5, 0.5), Measure::SpanIdleSecondsMax, 1, zbH1 },
        { "arXiv:2401.10241 Table 2", ScheduleKind::ZbH2, times(1, 1, 1), Measure::SpanIdleSecondsMax, 2, zbH2 },
        { "arXiv:2401.10241 Table 2", ScheduleKind::ZbH2, times(1, 1.5, 0.5), Measure::SpanIdleSecondsMax, 2, zbH2 },
        { "arXiv:2401.10241 Table 2", ScheduleKind::ZbH2, times(1, 1, 0.5), Measure::SpanIdleSecondsMax, 2, zbH2 },
        { "arXiv:2401.10241 sec 6", ScheduleKind::ZbV, times(1, 1, 1), Measure::SpanIdleSecondsMax, 2, zero },
        { "arXiv:2412.19437 Table 2", ScheduleKind::DualPipe, times(1, 1, 1), Measure::IdleSecondsMax, 2, dualPipe },
        { "arXiv:2412.19437 Table 2", ScheduleKind::DualPipe, times(1, 1, 0.5), Measure::IdleSecondsMax, 2, dualPipe },
        { "arXiv:2412.19437 Table 2", ScheduleKind::DualPipe, times(1, 1, 1, 2.5), Measure::IdleSecondsMax, 2,
            dualPipe },
        { "deepseek-ai/DualPipe README", ScheduleKind::DualPipeV, times(1, 1, 1), Measure::IdleSecondsMax, 2,
            dualPipeV },
        { "deepseek-ai/DualPipe README", ScheduleKind::DualPipeV, times(1, 1, 0.5), Measure::IdleSecondsMax, 2,
            dualPipeV },
    };
}

// Uniform op times on every rank, free p2p.
TEST(BubbleClosedForm, SimulatorReproducesThePublishedFormulas)
{
    int checked = 0;
    for (const Row& row : rows()) {
        for (int p : { 2, 4, 8, 16 }) {
            for (int factor : { 1, 2, 4, 8 }) {
                if (factor < row.minMicrobatchesPerRank)
                    continue;
                for (int v : { 1, 2, 4 }) {
                    if (v > 1 && row.kind != ScheduleKind::Interleaved1F1B)
                        continue;
                    const ScheduleShape shape { row.kind, p, factor * p, v };
                    ASSERT_EQ(checkShape(shape), "") << describe(shape);
                    SCOPED_TRACE(std::string(row.source) + ": " + describe(shape));
                    const SimulationResult result = simulate(uniformInput(shape, row.d));
                    ASSERT_FALSE(result.deadlock);
                    const double expected = row.formula(p, shape.microbatches, v, row.d);
                    const bool everyRank
                        = row.measure == Measure::IdleFractionEveryRank || row.measure == Measure::IdleSecondsEveryRank;
                    for (int rank = 0; rank < (everyRank ? p : 1); ++rank) {
                        const double got = simulated(result, row.measure, rank);
                        EXPECT_NEAR(got, expected, 1e-9 * std::abs(expected) + 1e-12) << "rank " << rank;
                    }
                    ++checked;
                }
            }
        }
    }
    EXPECT_GT(checked, 250);
}

} // namespace
} // namespace parallax::core
