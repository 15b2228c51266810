// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace parallax::core {

// What a published run measured that the engine can predict.
enum class PublishedMetric {
    StepTime, // seconds per iteration (printed, or derived by the source from printed throughput)
    TflopsPerGpu, // TFLOP/s per GPU under the source's own FLOP convention
};

// One record of data/published_runs_train.json turned into a scenario plus what to compare.
struct PublishedRun {
    std::string id;
    std::string source; // short label of the publication, e.g. "arXiv:2104.04473"
    std::string gpu; // GPU preset id
    std::string system; // framework as the record names it
    Scenario scenario;
    PublishedMetric metric = PublishedMetric::StepTime;
    double published = 0; // seconds (StepTime) or TFLOP/s per GPU
    double sourceFlopsPerStep = 0; // TflopsPerGpu rows: FLOPs per iteration in the source's convention
    std::optional<double> peakMemoryBytes; // allocator peak (PyTorch max_memory_allocated), when printed
    std::vector<std::string> assumptions; // every field not printed in the record and the default used
};

// Either a run, or the reason the record cannot be modelled (never dropped silently).
struct PublishedRunConversion {
    std::optional<PublishedRun> run;
    std::string id;
    std::string reason;
};

PublishedRunConversion convertPublishedRun(const nlohmann::json& record);

} // namespace parallax::core
