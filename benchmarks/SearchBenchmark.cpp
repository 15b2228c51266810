// SPDX-License-Identifier: Apache-2.0
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/search/ClosedFormScorer.h"
#include "core/search/ConfigSearch.h"
#include "core/search/SearchSpace.h"

#include <benchmark/benchmark.h>

#include <vector>

namespace {

using namespace parallax::core;

// The decision matrix's largest cell: the 1T MoE (128 experts) on 128 HGX H100 nodes, 4M tokens
// per step (1024 sequences of 4096).
Scenario moe1tOn1024()
{
    Scenario s;
    s.name = "moe-1t on 1024 H100";
    s.model = *PresetLibrary::instance().model("moe-1t");
    const GpuSpec gpu = *PresetLibrary::instance().gpu("h100-sxm");
    s.topology = Topology::regular(gpu, 128, 8, 400);
    s.nodes = 128;
    s.gpusPerNode = 8;
    s.training.globalBatch = 1024;
    s.training.seqLen = 4096;
    return s;
}

// Every (layout, ep, micro-batch, schedule, recompute) of the space, each scoring all its ZeRO
// stages; items/s is configurations scored per second on one core (goal: >= 1 million).
void BM_ClosedFormScore(benchmark::State& state)
{
    const Scenario base = moe1tOn1024();
    const SearchSpace space(base);
    struct Work {
        Layout layout;
        int ep;
        LayoutComm comm;
        int microBatch;
        ScheduleChoice schedule;
        Recompute recompute;
        std::vector<int> zeros;
    };
    ClosedFormScorer scorer(base, nullptr);
    std::vector<Work> work;
    for (const Layout& l : space.layouts()) {
        for (int ep : space.expertDegrees(l)) {
            const LayoutComm comm = scorer.layoutComm(l, ep);
            for (int mb : space.microBatches(l)) {
                const int m = base.training.globalBatch / (mb * l.dp);
                for (const ScheduleChoice& s : space.schedules(l.pp, m)) {
                    for (Recompute r : SearchSpace::kRecomputeModes)
                        work.push_back({ l, ep, comm, mb, s, r, space.zeroStages(l, ep) });
                }
            }
        }
    }
    std::vector<ClosedFormScore> scores;
    long long configs = 0;
    for (auto _ : state) {
        for (const Work& w : work) {
            scorer.score(w.layout, w.ep, w.comm, w.microBatch, w.schedule, w.recompute, w.zeros, scores);
            configs += static_cast<long long>(w.zeros.size());
            benchmark::DoNotOptimize(scores.data());
        }
    }
    state.SetItemsProcessed(configs);
    state.counters["configs_per_pass"] = static_cast<double>(configs) / state.iterations();
}
BENCHMARK(BM_ClosedFormScore)->Unit(benchmark::kMillisecond);

// Runs the whole search per iteration and reports its counts.
void runSearch(benchmark::State& state, const Scenario& base, const SearchOptions& options)
{
    SearchStats stats;
    for (auto _ : state) {
        const SearchResult r = searchConfigurations(base, options);
        stats = r.stats;
        benchmark::DoNotOptimize(r.candidates.data());
    }
    state.counters["enumerated"] = static_cast<double>(stats.enumerated);
    state.counters["scored"] = static_cast<double>(stats.scored);
    state.counters["fitting"] = static_cast<double>(stats.fitting);
    state.counters["pruned"] = static_cast<double>(stats.prunedByMemoryBound);
    state.counters["bounded_sims"] = static_cast<double>(stats.boundedSimulations);
    state.counters["bounded_examined"] = static_cast<double>(stats.boundedExamined);
    state.counters["passes"] = static_cast<double>(stats.windowPasses);
    state.counters["window"] = static_cast<double>(stats.windowConfigurations);
    state.counters["simulated"] = static_cast<double>(stats.simulated);
    state.counters["closed_form_s"] = stats.closedFormSeconds;
    state.counters["simulation_s"] = stats.simulationSeconds;
}

// The whole recommendation: enumerate, prune, score on the closed form with both cores, simulate
// by branch and bound and every family's representative, explain. Goal: under 1 s on two cores.
void BM_FullSearchMoe1T1024(benchmark::State& state)
{
    SearchOptions options;
    options.threads = static_cast<int>(state.range(0));
    runSearch(state, moe1tOn1024(), options);
}
BENCHMARK(BM_FullSearchMoe1T1024)->Arg(2)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// Issue 17's side-by-side problem: GPT-3 175B on 1024 A100 (128 DGX nodes, 8 x 200 Gb/s HDR per
// node as in arXiv:2104.04473), 1536 sequences of 2048 tokens per step; the whole search with its
// explanations on one core. Goal: <= 30 ms.
void BM_SearchGpt3On1024A100(benchmark::State& state)
{
    Scenario base;
    base.name = "gpt3-175b on 1024 A100";
    base.model = *PresetLibrary::instance().model("gpt3-175b");
    const GpuSpec gpu = *PresetLibrary::instance().gpu("a100-sxm-80gb");
    base.topology = Topology::regular(gpu, 128, 8, 200);
    base.nodes = 128;
    base.gpusPerNode = 8;
    base.parallel.tp = 8;
    base.parallel.pp = 8;
    base.parallel.dp = 16;
    base.training.globalBatch = 1536;
    base.training.seqLen = 2048;
    SearchOptions options;
    options.threads = 1;
    runSearch(state, base, options);
}
BENCHMARK(BM_SearchGpt3On1024A100)->Unit(benchmark::kMillisecond)->UseRealTime();

// The DeepSeek-V3 preset (2048 H800, DualPipeV): 15.4M configurations, most of them DualPipe shapes whose
// uneven split enters the bound window with its own bound. 7.0 s before that (2026-12-07: the window filled
// with bound-0 entries and a second closed-form pass ran), 2.5 s after, on two cores.
void BM_SearchDeepSeekV3On2048H800(benchmark::State& state)
{
    LoadError error;
    const std::optional<Scenario> base = loadScenarioFile(
        std::string(PARALLAX_SOURCE_DIR) + "/presets/scenarios/deepseek-v3-2048xh800.parallax.json", error);
    if (!base) {
        state.SkipWithError(error.text().c_str());
        return;
    }
    SearchOptions options;
    options.threads = 2;
    runSearch(state, *base, options);
}
BENCHMARK(BM_SearchDeepSeekV3On2048H800)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

} // namespace
