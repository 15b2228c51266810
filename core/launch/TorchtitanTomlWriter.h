// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"

#include <string>

namespace parallax::core {

// A torchtitan job config (TOML; keys of torchtitan v0.2.0, torchtitan/config/job_config.py) that
// runs a scenario with FSDP2 + TP + PP + CP + EP. Missing features become "# NOTE:" lines.
class TorchtitanTomlWriter {
public:
    static std::string write(const Scenario& s);
};

} // namespace parallax::core
