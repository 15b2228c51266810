// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"

#include <map>
#include <string>
#include <vector>

namespace parallax::core {

// Comment lines a launch export carries for what the framework has no flag for: the GPU type and
// fabric, the schedule and ZeRO stage as Parallax names them, the model preset. They read
//   # parallax-name: Llama 3 70B on 64 H100
//   # parallax-scenario: gpu=h100-sxm nic_gbps=400 nics_per_node=8 schedule=1f1b zero=1 model=llama3-70b
// A foreign command line has none; the importer then uses its defaults.
class LaunchMarker {
public:
    static std::vector<std::string> lines(const Scenario& s, const std::string& comment = "#");
    // key=value pairs of the marker lines found anywhere in `text` ("name" for parallax-name).
    static std::map<std::string, std::string> parse(const std::string& text);
    // The comment a Megatron-Core export carries for a model with a parallel attention + MLP block, which
    // Megatron-Core's layers do not have: "# NOTE: <framework> has no parallel attention + MLP block ...".
    static std::string serialBlockNote(const std::string& framework);
    // User text (a scenario or model name) for one line of a launch file: control characters become spaces,
    // since a line break would end a shell comment and run what follows as a command.
    static std::string oneLine(const std::string& text);
};

} // namespace parallax::core
