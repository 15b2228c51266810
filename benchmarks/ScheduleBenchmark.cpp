// SPDX-License-Identifier: Apache-2.0
#include "core/parallel/PipelineLayout.h"
#include "core/schedule/PipelineSimulator.h"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using parallax::core::RankProgram;
using parallax::core::ScheduleKind;
using parallax::core::ScheduleShape;

int64_t opCount(const std::vector<RankProgram>& programs)
{
    int64_t n = 0;
    for (const RankProgram& program : programs)
        n += static_cast<int64_t>(program.size());
    return n;
}

// Simulation alone over pre-generated programs, the TimedOps of the result included; items/s is
// simulated ops per second. Target (issue 17): >= 100 million ops/s on one core for interleaved
// p=64, m=1024, v=2 (262,144 ops). The machine is shared: compare the minimum over
// --benchmark_repetitions, not one run.
void BM_Simulate(benchmark::State& state)
{
    parallax::core::SimulationInput input;
    input.shape = ScheduleShape { static_cast<ScheduleKind>(state.range(0)), static_cast<int>(state.range(1)),
        static_cast<int>(state.range(2)), static_cast<int>(state.range(3)) };
    const std::vector<RankProgram> programs = parallax::core::generateSchedule(input.shape);
    for (auto _ : state) {
        parallax::core::SimulationResult result = parallax::core::simulate(input, programs);
        benchmark::DoNotOptimize(result.makespan);
    }
    state.SetItemsProcessed(state.iterations() * opCount(programs));
}

void BM_Generate(benchmark::State& state)
{
    const ScheduleShape shape { static_cast<ScheduleKind>(state.range(0)), static_cast<int>(state.range(1)),
        static_cast<int>(state.range(2)), static_cast<int>(state.range(3)) };
    int64_t ops = 0;
    for (auto _ : state) {
        std::vector<RankProgram> programs = parallax::core::generateSchedule(shape);
        ops += opCount(programs);
        benchmark::DoNotOptimize(programs.data());
    }
    state.SetItemsProcessed(ops);
}

// Megatron-Core's layout string, parsed on every evaluation of a scenario that sets one (StageLayout):
// DeepSeek-V3 on PP16 x VPP2.
void BM_ParsePipelineLayout(benchmark::State& state)
{
    const std::string text = "Et*3|(tt|)*29,|mL";
    std::string error;
    for (auto _ : state) {
        auto stages = parallax::core::parsePipelineLayout(text, error);
        benchmark::DoNotOptimize(stages);
    }
}

constexpr int64_t kind(ScheduleKind k)
{
    return static_cast<int64_t>(k);
}

} // namespace

BENCHMARK(BM_Simulate)
    ->ArgNames({ "kind", "p", "m", "v" })
    ->Args({ kind(ScheduleKind::Interleaved1F1B), 64, 1024, 2 })
    ->Args({ kind(ScheduleKind::OneFOneB), 64, 1024, 1 })
    ->Args({ kind(ScheduleKind::ZbV), 64, 1024, 1 })
    ->Args({ kind(ScheduleKind::DualPipe), 64, 1024, 1 })
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Generate)
    ->ArgNames({ "kind", "p", "m", "v" })
    ->Args({ kind(ScheduleKind::Interleaved1F1B), 64, 1024, 2 })
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParsePipelineLayout)->Unit(benchmark::kMicrosecond);
