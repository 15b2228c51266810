// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/report/Report.h"

#include <string>
#include <vector>

namespace parallax::core {

struct Calibration;
struct SearchResult;

// Lesson texts (a scenario's Markdown "description") carry the engine's numbers as placeholders,
// so that the text can never drift from the engine:
//
//   {{name}}                      a number of the scenario's own report, e.g. {{peak_memory_gib}}
//   {{name field=value ...}}      the same number for a variant of the scenario, e.g.
//                                 {{bubble_pct schedule=interleaved-1f1b vpp=2}}; fields: tp, sp (on|off),
//                                 cp, pp, vpp, dp, ep, zero, schedule, micro_batch, global_batch, seq_len,
//                                 recompute, dtype, deepseek_activation_cache, deepseek_fp8_dispatch (true|false),
//                                 moe_token_dispatcher (alltoall|deepep), cp_comm_type (p2p|all_gather|a2a|a2a+p2p),
//                                 cp_a2a_size
//   {{recommended...}}, {{fix}}   what a search over every configuration says (see lessonPlaceholderNames())
//
// Unknown names, bad fields and invalid variants are errors: the text keeps the placeholder and
// `errors` says why, so that a test can fail on them.
struct RenderedLesson {
    std::string markdown;
    std::vector<std::string> errors;
};

// Every placeholder name with a one-line meaning, for docs/search.md and the tests.
const std::vector<std::pair<std::string, std::string>>& lessonPlaceholderNames();
// True when the text uses a placeholder that needs a search result (recommended..., fix).
bool lessonNeedsSearch(const std::string& text);

// `report` is the scenario's own (simulated) report; `search` the search over the scenario's
// model, cluster and batch, or null when the text needs none.
RenderedLesson renderLesson(const Scenario& scenario, const Report& report, const SearchResult* search = nullptr,
    const Calibration* calibration = nullptr);
// Evaluates the scenario itself first.
RenderedLesson renderLesson(const Scenario& scenario, const Calibration* calibration, const SearchResult* search);

} // namespace parallax::core
