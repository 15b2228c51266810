// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/inference/InferenceReport.h"

#include <string>

namespace parallax::core {

// "TP 8 · PP 1 · DP 1 · EP 1 · weights fp8 · KV bf16 · isl 4096 + osl 4096 · context 8192"
std::string describeServingConfiguration(const InferenceReport& r);
// "MTP speculative decoding: 2 draft tokens per step at acceptance 0.85, 2.57 tokens per step"; empty without it.
std::string describeSpeculation(const InferenceReport& r);
// What drafts: "MTP module", "EAGLE-3 head" or the draft model's name.
std::string drafterName(const InferenceReport& r);
// The serving part of `export --markdown`: memory per GPU, KV capacity, verdict, times, sweep.
std::string inferenceToMarkdown(const InferenceReport& r);

} // namespace parallax::core
