// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"

#include <string>
#include <vector>

namespace parallax::core {

// The training frameworks Parallax writes launch files for: Megatron-LM (core_r0.14.0 flags), NeMo 2.0
// (its recipes over Megatron-Core) and torchtitan (v0.2.0 job config).
enum class LaunchFramework { MegatronLm, Nemo, Torchtitan };
const char* frameworkName(LaunchFramework f); // "Megatron-LM" | "NeMo" | "torchtitan"

// Where in a launch file a gap's NOTE belongs (DataParallel: beside the data-parallel degrees).
enum class GapPlace { DataParallel, Parallel, Pipeline, Moe, Training };

// A feature of a design that a framework cannot run as designed. Its launch file says so in a "# NOTE:"
// line, and the log check predicts what the framework runs instead (the one table of both, so that a
// launch file and the prediction it is checked against cannot disagree).
struct FrameworkGap {
    GapPlace place;
    std::string note; // the NOTE's text, without "# NOTE: "
    std::string change; // how the run differs from the design ("1F1B instead of dualpipe"); empty: the
                        // prediction keeps the design (the framework runs something close the engine does
                        // not model differently)
};
std::vector<FrameworkGap> frameworkGaps(const Scenario& s, LaunchFramework f);

// The "# NOTE: ..." lines of the gaps at one place of the launch file.
std::vector<std::string> gapNotes(const Scenario& s, LaunchFramework f, GapPlace place);
// The same lines, each ending in a newline ("" when none), for writers that stream their file.
std::string gapNoteText(const Scenario& s, LaunchFramework f, GapPlace place);

// Megatron-Core's context-parallel communication type of the design (TransformerConfig cp_comm_type, a string
// or one entry per layer): the design's all_gather, a2a or a2a+p2p; for the p2p ring, empty, or {"all_gather"}
// where every layer has a window past the sequence (Transformer Engine's ring has none, Megatron-LM PR #1160), or
// one entry per layer, "all_gather" on the windowed and "p2p" on the full-attention layers, where they alternate.
std::vector<std::string> megatronCpCommTypes(const Scenario& s);

// The design as the framework runs it from its launch file: every gap with a change applied (Megatron-LM:
// 1F1B for the GPipe, zero-bubble and DualPipe schedules, bf16 DeepEP dispatch for DeepSeek's fp8 one, no
// DeepSeek activation cache, its two rank orders). `changes` gets the gaps' changes, in order; empty when the
// framework runs the design as it is.
Scenario runAs(const Scenario& s, LaunchFramework f, std::vector<std::string>& changes);

} // namespace parallax::core
