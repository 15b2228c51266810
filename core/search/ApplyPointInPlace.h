// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/search/SearchSpace.h"

namespace parallax::core {

// applyPoint(base, p) on a scenario the caller owns, a copy of `base` that earlier points may have changed:
// only the layout fields change (and the MoE dispatcher fields, from `base` and the point) and the topology is
// not copied (a search over 65,536 explicit domains would otherwise copy them once per candidate).
void applyPointInPlace(Scenario& s, const SearchPoint& p, const Scenario& base);

} // namespace parallax::core
