// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/report/Report.h"

#include <vector>

namespace parallax::core {

struct ValidationResult {
    std::vector<Message> errors; // the configuration cannot run as given
    std::vector<Message> notes; // how the configuration maps onto Megatron-Core terms
};

struct TopologySummary;

// Every divisibility and range rule, each failure naming the field and the fix.
ValidationResult validateScenario(const Scenario& s);
// The same with the topology's summary already computed (TopologySummary::of(s.topology)).
ValidationResult validateScenario(const Scenario& s, const TopologySummary& topology);

// The model's own problems, which training and serving both report: chunked attention without its chunk.
std::vector<Message> modelProblems(const ModelSpec& m);

// Interleaving splits each pipeline stage's layers into vpp chunks (Megatron-LM requires layers per
// stage % vpp == 0, arXiv:2104.04473 sec. 2.2.2). A model whose layers do not divide over pp at all
// (Llama 3 405B's 126 over 16) takes the uneven split of StageLayout instead and is allowed.
bool interleavingDividesStages(int layers, int pp, int vpp);
// Ulysses context parallelism (cp_comm_type a2a) hands each rank heads / cp of the query and of the key/value heads
// of its TP rank (arXiv:2309.14509 sec. 3.1); Transformer Engine asserts that both divide (context_parallel.py).
bool ulyssesSplitsHeads(const ModelSpec& m, int tp, int cp);
// Whether the scenario's cp_comm_type can run at these degrees: a2a splits the heads over cp, a2a+p2p over its
// all-to-all level, which must divide cp (below it); the ring and all_gather always can.
bool cpCommTypeFits(const Scenario& s, int tp, int cp);
// The same for a given type and all-to-all level (ParallelConfig::cpA2aSize).
bool cpCommTypeFits(const ModelSpec& m, CpCommType type, int a2aSize, int tp, int cp);

// Divisors of n (sorted), for "nearest valid value" suggestions.
std::vector<int> divisorsOf(long long n);
// The divisor of n closest to `wanted` (ties: the smaller).
int nearestDivisor(long long n, int wanted);

} // namespace parallax::core
