// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/cluster/Topology.h"
#include "core/inference/InferenceConfig.h"
#include "core/model/ModelSpec.h"
#include "core/parallel/ParallelConfig.h"

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <string>

namespace parallax::core {

// Everything needed to reproduce one design (SCENARIO.md). `extra` keeps the unknown keys of the
// file it was read from, so that saving writes them back (core/io/ScenarioIo); it is null when there
// were none. Shared and immutable, so copying a scenario never copies them, and held through the
// forward declaration so that the many files that include this one do not parse nlohmann/json.hpp.
struct Scenario {
    std::string name;
    std::string description; // Markdown lesson text
    std::string modelPreset; // non-empty when the model came from a preset by name
    ModelSpec model;
    std::string gpuPreset; // regular cluster form: GPU preset name (empty when inline or explicit topology)
    bool regularCluster = true; // written back in the regular form when true
    int nodes = 0;
    int gpusPerNode = 0;
    Topology topology;
    ParallelConfig parallel;
    TrainingConfig training;
    ScenarioMode mode = ScenarioMode::Training;
    InferenceConfig inference; // read and written only in inference mode
    std::shared_ptr<const nlohmann::json> extra; // unknown keys, by JSON path; null when none

    int seqLen() const { return training.seqLen > 0 ? training.seqLen : model.seqLen; }
};

} // namespace parallax::core
