// SPDX-License-Identifier: Apache-2.0
// The serving engine: one evaluate() of a serving design per iteration (each layer's GEMMs priced one by
// one, plus the concurrency sweep), and the whole layout search the recommender runs, on the DeepSeek-V3
// DP-attention preset (8 H200) and on the same model over 64 H200.
#include "core/Engine.h"
#include "core/inference/ServingSearch.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"

#include <benchmark/benchmark.h>

#include <stdexcept>
#include <string>

using namespace parallax::core;

namespace {
Scenario servingPreset(const char* id, int nodes)
{
    LoadError error;
    const auto* info = PresetLibrary::instance().scenario(id);
    auto s = info ? parseScenario(info->json, error) : std::nullopt;
    if (!s)
        throw std::runtime_error(std::string("preset ") + id + ": " + error.text());
    if (nodes != s->nodes) {
        const GpuSpec gpu = s->topology.domains.front().gpu;
        s->nodes = nodes;
        s->topology = Topology::regular(gpu, nodes, s->gpusPerNode, 400, s->gpusPerNode);
        s->parallel.dp *= nodes;
    }
    return *s;
}

void BM_EvaluateServing(benchmark::State& state)
{
    const Scenario s = servingPreset("serve-dsv3-dpattn-8xh200", static_cast<int>(state.range(0)));
    const Report check = evaluate(s);
    if (!check.valid) {
        state.SkipWithError(("invalid scenario: " + check.errors.front().text).c_str());
        return;
    }
    // notes=0 is a search candidate's evaluation: no note pricing a variant (the MTP drafter's decode step).
    EvaluateOptions options;
    options.priceAlternatives = state.range(1) != 0;
    for (auto _ : state) {
        Report r = evaluate(s, options);
        benchmark::DoNotOptimize(r.tokensPerSecond);
    }
    state.counters["gpus"] = check.gpus;
    state.counters["sweep_points"] = static_cast<double>(check.inference->sweep.size());
}
BENCHMARK(BM_EvaluateServing)
    ->ArgNames({ "nodes", "notes" })
    ->Args({ 1, 1 })
    ->Args({ 8, 1 })
    ->Args({ 1, 0 })
    ->Unit(benchmark::kMicrosecond);

void BM_SearchServing(benchmark::State& state)
{
    const Scenario s = servingPreset("serve-dsv3-dpattn-8xh200", static_cast<int>(state.range(0)));
    ServingLimits limits;
    limits.ttftSeconds = 0.2;
    limits.tpotSeconds = 0.05;
    std::size_t ranked = 0;
    for (auto _ : state) {
        const ServingSearchResult r = searchServingLayouts(s, limits, 5);
        ranked = r.candidates.size();
        benchmark::DoNotOptimize(ranked);
    }
    state.counters["ranked"] = static_cast<double>(ranked);
}
BENCHMARK(BM_SearchServing)->ArgName("nodes")->Arg(1)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime();
} // namespace
