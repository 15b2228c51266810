// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/report/Report.h"

#include <string>
#include <vector>

namespace parallax::core {

// One-line descriptions of a scenario, shared by the Markdown report and the title block that
// every exported picture carries (so the words are the same in both).
std::string describeModel(
    const Scenario& scenario, const Report& report); // "Llama 3 70B, 70.55 B parameters, sequence 8192"
std::string describeCluster(const Scenario& scenario); // "64 x H100 SXM: 8 NVLink domains of 8, IB 400 Gb/s per NIC"
// "HBM per GPU: 80 GiB." or, where the stages sit on GPUs of different HBM (a mixed cluster), each
// stage's: "HBM per GPU, by stage (the smallest of its GPUs): 0: 141 GiB, 1: 80 GiB."
std::string stageHbmText(const Report& report);
bool stagesShareOneHbm(const Report& report); // every stage's GPUs have one HBM size
std::string describeConfiguration(const Scenario& scenario); // "TP 8 (SP) · PP 8 · VPP 2 · DP 1 · ZeRO-1 · ..."

// Report times: "4.56 s" / "812 ms" / "45.6 µs" (GiB and percentages: core/search/NumberText.h).
std::string formatSeconds(double seconds);

struct MarkdownOptions {
    std::string title; // defaults to the scenario's name
    // Reasons to show (the recommender's "why" for this configuration, or why others lose).
    std::vector<std::string> reasons;
    std::string reasonsHeading = "Why";
    // Links relative to the Markdown file; empty ones are left out. Pictures are embedded, the
    // trace is linked.
    std::string ganttPicture;
    std::string rankMapPicture;
    std::string memoryPicture;
    std::string tracePath;
};

// A self-contained Markdown report: the headline numbers, the memory table per pipeline stage,
// errors, warnings, the reasons, and the pictures. Deterministic (no dates), so it diffs well.
std::string reportToMarkdown(const Scenario& scenario, const Report& report, const MarkdownOptions& options = {});

} // namespace parallax::core
