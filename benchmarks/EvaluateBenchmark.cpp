// SPDX-License-Identifier: Apache-2.0
// One evaluate() per iteration on fixed scenarios (issue 17): the GPT-3 175B case the issue times
// against Calculon and llm-analysis, with the schedule simulation and in closed form, and the
// default scenario at 64 GPUs against the same model at 16,384 GPUs (the cost must not grow with
// the cluster).
#include "core/Engine.h"
#include "core/engine/EvaluateWithSummary.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"

#include <benchmark/benchmark.h>

#include <stdexcept>
#include <string>

using namespace parallax::core;

namespace {
Scenario scenarioPreset(const char* id)
{
    LoadError error;
    const auto* info = PresetLibrary::instance().scenario(id);
    auto s = info ? parseScenario(info->json, error) : std::nullopt;
    if (!s)
        throw std::runtime_error(std::string("preset ") + id + ": " + error.text());
    return *s;
}

// Megatron-LM's GPT-3 175B run (arXiv:2104.04473 Table 2) on 128 DGX A100 nodes instead of 192:
// TP8 PP8 DP16, micro-batch 1, global batch 1536, so 96 micro-batches per pipeline.
Scenario gpt3On1024A100()
{
    Scenario s = scenarioPreset("gpt3-175b-1536xa100");
    const GpuSpec gpu = s.topology.domains.front().gpu;
    const double nicGbps = s.topology.fabrics.front().nicGbps;
    const int nics = s.topology.fabrics.front().nicsPerDomain;
    s.nodes = 128;
    s.topology = Topology::regular(gpu, s.nodes, s.gpusPerNode, nicGbps, nics);
    s.parallel.tp = 8;
    s.parallel.pp = 8;
    s.parallel.dp = 16;
    s.training.microBatch = 1;
    s.training.globalBatch = 1536;
    return s;
}

// The default scenario with its data-parallel degree (and batch, so that every pipeline keeps
// the same micro-batches) scaled to `gpus`.
Scenario defaultAt(int gpus)
{
    Scenario s = scenarioPreset(kDefaultScenarioPreset);
    const int scale = gpus / s.topology.gpuCount();
    const GpuSpec gpu = s.topology.domains.front().gpu;
    const double nicGbps = s.topology.fabrics.front().nicGbps;
    const int nics = s.topology.fabrics.front().nicsPerDomain;
    s.nodes *= scale;
    s.topology = Topology::regular(gpu, s.nodes, s.gpusPerNode, nicGbps, nics);
    s.parallel.dp *= scale;
    s.training.globalBatch *= scale;
    return s;
}

// With `summary`, the topology is summarised once outside the loop, as the search does once per thread
// (core/engine/EvaluateWithSummary.h); without, every call summarises it.
void run(benchmark::State& state, const Scenario& s, bool simulate, bool summary = false)
{
    EvaluateOptions options;
    options.simulateSchedule = simulate;
    options.keepTimeline = false;
    const Report check = evaluate(s, options);
    if (!check.valid) {
        state.SkipWithError(("invalid scenario: " + check.errors.front().text).c_str());
        return;
    }
    const TopologySummary topology = TopologySummary::of(s.topology);
    for (auto _ : state) {
        Report r = summary ? evaluate(s, options, topology) : evaluate(s, options);
        benchmark::DoNotOptimize(r.stepTimeSeconds);
    }
    state.counters["gpus"] = check.gpus;
    state.counters["microbatches"] = check.microbatches;
}

void BM_Evaluate(benchmark::State& state)
{
    const Scenario s = gpt3On1024A100();
    run(state, s, state.range(0) != 0);
}
BENCHMARK(BM_Evaluate)->ArgName("simulate")->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond);

void BM_EvaluateScale(benchmark::State& state)
{
    const Scenario s = defaultAt(static_cast<int>(state.range(0)));
    run(state, s, state.range(1) != 0);
}
BENCHMARK(BM_EvaluateScale)
    ->ArgNames({ "gpus", "simulate" })
    ->Args({ 64, 0 })
    ->Args({ 16384, 0 })
    ->Args({ 64, 1 })
    ->Args({ 16384, 1 })
    ->Unit(benchmark::kMicrosecond);

// The same, on the search's path: the topology summarised once.
void BM_EvaluateScaleSummarised(benchmark::State& state)
{
    const Scenario s = defaultAt(static_cast<int>(state.range(0)));
    run(state, s, state.range(1) != 0, true);
}
BENCHMARK(BM_EvaluateScaleSummarised)
    ->ArgNames({ "gpus", "simulate" })
    ->Args({ 64, 0 })
    ->Args({ 16384, 0 })
    ->Unit(benchmark::kMicrosecond);
} // namespace
