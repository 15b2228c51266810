// SPDX-License-Identifier: Apache-2.0
#include "core/Engine.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"

#include <benchmark/benchmark.h>

using namespace parallax::core;

namespace {
Scenario preset(const char* id)
{
    LoadError error;
    const auto* info = PresetLibrary::instance().scenario(id);
    auto s = info ? parseScenario(info->json, error) : std::nullopt;
    if (!s)
        throw std::runtime_error(std::string("preset ") + id + ": " + error.text());
    return *s;
}

// One full evaluation (validate, rank map, costs, schedule simulation, memory, estimate), no I/O.
void BM_EvaluateDefaultScenario(benchmark::State& state)
{
    const Scenario s = preset(kDefaultScenarioPreset);
    for (auto _ : state) {
        Report r = evaluate(s);
        benchmark::DoNotOptimize(r.stepTimeSeconds);
    }
    state.counters["ops"] = static_cast<double>(evaluate(s).schedule.ops.size());
}
BENCHMARK(BM_EvaluateDefaultScenario)->Unit(benchmark::kMillisecond);

void BM_EvaluateGuide70b1024(benchmark::State& state)
{
    const Scenario s = preset("guide-70b-1024xh100");
    for (auto _ : state) {
        Report r = evaluate(s);
        benchmark::DoNotOptimize(r.stepTimeSeconds);
    }
}
BENCHMARK(BM_EvaluateGuide70b1024)->Unit(benchmark::kMillisecond);

// The search's cheap path: closed-form pipeline, no timeline, for the same scenario.
void BM_EvaluateClosedForm(benchmark::State& state)
{
    const Scenario s = preset(kDefaultScenarioPreset);
    EvaluateOptions options;
    options.simulateSchedule = false;
    options.keepTimeline = false;
    for (auto _ : state) {
        Report r = evaluate(s, options);
        benchmark::DoNotOptimize(r.stepTimeSeconds);
    }
}
BENCHMARK(BM_EvaluateClosedForm)->Unit(benchmark::kMicrosecond);
} // namespace
