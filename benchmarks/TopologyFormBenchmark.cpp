// SPDX-License-Identifier: Apache-2.0
// The explicit topology form (cluster.topology: a list of domains and fabrics) against the regular
// form (cluster.nodes x gpus_per_node) of the same cluster: loading the file and the whole
// recommendation. Issue 16: an explicit 8,192-node topology took 23 s to load where the regular form
// took none, and `recommend` on 65,536 explicit single-GPU domains stalled; both forms should cost
// the same. Arguments: domains, GPUs per domain, 1 for the explicit form.
#include "core/io/ScenarioIo.h"
#include "core/search/ConfigSearch.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

namespace {

using namespace parallax::core;
using nlohmann::json;

// Llama 3 70B on H100 SXM with 400 Gb/s per GPU, one fabric; 4 sequences of 4096 per DP rank.
std::string scenarioText(int domains, int gpusPerDomain, bool explicitForm)
{
    const int tp = gpusPerDomain < 8 ? gpusPerDomain : 8;
    const int dp = domains * gpusPerDomain / (tp * 8);
    json s = { { "format", "parallax-scenario" }, { "version", 1 }, { "model", "llama3-70b" },
        { "parallel", { { "tp", tp }, { "pp", 8 }, { "dp", dp } } },
        { "training", { { "global_batch", 4 * dp }, { "seq_len", 4096 } } } };
    if (explicitForm) {
        json list = json::array();
        json names = json::array();
        for (int d = 0; d < domains; ++d) {
            list.push_back({ { "name", "d" + std::to_string(d) }, { "gpu", "h100-sxm" }, { "count", gpusPerDomain } });
            names.push_back("d" + std::to_string(d));
        }
        s["cluster"]["topology"] = { { "domains", list },
            { "fabrics", json::array({ { { "name", "ib" }, { "nic_gbps", 400 }, { "domains", names } } }) } };
    } else {
        s["cluster"] = { { "gpu", "h100-sxm" }, { "nodes", domains }, { "gpus_per_node", gpusPerDomain },
            { "ib", { { "nic_gbps", 400 } } } };
    }
    return s.dump();
}

Scenario parsed(const std::string& text)
{
    LoadError error;
    auto s = parseScenario(text, error);
    if (!s)
        throw std::runtime_error(error.text());
    return *s;
}

void BM_LoadTopologyForm(benchmark::State& state)
{
    const std::string text
        = scenarioText(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), state.range(2) != 0);
    for (auto _ : state) {
        Scenario s = parsed(text);
        benchmark::DoNotOptimize(s.topology.domains.data());
    }
    state.counters["file_bytes"] = static_cast<double>(text.size());
}
BENCHMARK(BM_LoadTopologyForm)
    ->Args({ 65536, 1, 0 })
    ->Args({ 65536, 1, 1 })
    ->Args({ 8192, 8, 0 })
    ->Args({ 8192, 8, 1 })
    ->Unit(benchmark::kMillisecond);

// The recommendation with one search thread (real time: the search runs on its own thread); the two
// forms enumerate and simulate the same candidates.
void BM_RecommendTopologyForm(benchmark::State& state)
{
    const Scenario base
        = parsed(scenarioText(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), state.range(2) != 0));
    SearchOptions options;
    options.threads = 1;
    SearchStats stats;
    for (auto _ : state) {
        const SearchResult r = searchConfigurations(base, options);
        stats = r.stats;
        benchmark::DoNotOptimize(r.candidates.data());
    }
    state.counters["enumerated"] = static_cast<double>(stats.enumerated);
    state.counters["simulated"] = static_cast<double>(stats.simulated);
}
BENCHMARK(BM_RecommendTopologyForm)
    ->Args({ 256, 1, 0 })
    ->Args({ 256, 1, 1 })
    ->Args({ 2048, 1, 0 })
    ->Args({ 2048, 1, 1 })
    ->Args({ 65536, 1, 0 })
    ->Args({ 65536, 1, 1 })
    ->Args({ 256, 8, 0 })
    ->Args({ 256, 8, 1 })
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

} // namespace
