// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"

#include <string>

namespace parallax::core {

// A NeMo 2.0 recipe override block (Python, nemo.collections.llm recipes run with nemo_run) that
// runs a scenario; names of NeMo 25.07 (nemo.lightning.MegatronStrategy, Megatron-Core's
// TransformerConfig / DistributedDataParallelConfig). Missing features become "# NOTE:" lines.
class NemoRecipeWriter {
public:
    static std::string write(const Scenario& s);
};

} // namespace parallax::core
