// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "CliArgs.h"

namespace parallax::cli {

// `recommend` for a scenario in inference mode: layouts ranked by tokens/s per GPU under
// --ttft-ms / --tpot-ms, with one loser per family and why.
int runServingRecommend(const Args& args, const core::Scenario& scenario, const core::Calibration* calibration);

} // namespace parallax::cli
