// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/launch/FrameworkGaps.h"

#include <optional>
#include <string>

namespace parallax::core {

// The training export targets of `export --launch` and File > Export Launch Configuration: "megatron" |
// "nemo" | "torchtitan"; nullopt for any other name (slurm and the serving targets have writers of their own).
std::optional<LaunchFramework> parseLaunchFramework(const std::string& target);

// The framework's launch file for the design: Megatron-LM arguments (MegatronArgsWriter), a NeMo 2.0 recipe
// (NemoRecipeWriter) or a torchtitan job config (TorchtitanTomlWriter).
std::string writeTrainingLaunch(const Scenario& s, LaunchFramework f);

} // namespace parallax::core
