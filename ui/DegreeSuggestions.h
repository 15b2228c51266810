// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"

#include <QString>
#include <string>
#include <utility>
#include <vector>

namespace parallax::ui {

// Nearest values of a parallel degree or batch field that divide what they must divide, computed
// from the scenario (arithmetic, not physics; the engine re-validates whatever is applied). A
// degree that changes GPUs per replica comes with the dp that keeps the world size.
struct Suggestion {
    QString label; // "tp = 4 (dp = 2)"
    std::vector<std::pair<std::string, int>> assignments; // field path -> value

    void apply(core::Scenario& s) const;
};

std::vector<Suggestion> suggestValues(const core::Scenario& s, const std::string& field, int maxCount = 3);
bool setIntField(core::Scenario& s, const std::string& field, int value); // false for an unknown path
int intField(const core::Scenario& s, const std::string& field); // -1 for an unknown path

} // namespace parallax::ui
