// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/search/SearchSpace.h"

namespace parallax::core {

// applyPoint on a scenario the caller owns: only the layout fields change and the topology is not
// copied (a search over 65,536 explicit domains would otherwise copy them once per candidate).
void applyPointInPlace(Scenario& s, const SearchPoint& p);

} // namespace parallax::core
