// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the Hugging Face config.json reader (File > Open of a model's config), then the parameter
// counts and the engine on a small cluster for what it accepts. The reader reports bad input as `error`; a crash,
// a sanitizer report, an exception or a hang is a finding.
#include "core/Engine.h"
#include "core/io/HfConfigReader.h"
#include "core/io/PresetLibrary.h"
#include "core/model/ModelMath.h"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace parallax::core;
    const auto config = nlohmann::json::parse(data, data + size, nullptr, false);
    if (config.is_discarded())
        return 0;
    std::string error;
    const auto model = HfConfigReader::read(config, "fuzzed", error);
    if (!model)
        return 0;
    (void)totalParameters(*model);
    // One node of 8 H100, data parallel: the engine must price (or refuse, naming the field) what the reader gives.
    const GpuSpec gpu = *PresetLibrary::instance().gpu("h100-sxm");
    Scenario s;
    s.model = *model;
    s.nodes = 1;
    s.gpusPerNode = 8;
    s.topology = Topology::regular(gpu, 1, 8, gpu.nicGbps);
    s.parallel.dp = 8;
    s.training.microBatch = 1;
    s.training.globalBatch = 8;
    s.training.seqLen = 2048;
    EvaluateOptions options;
    options.keepTimeline = false;
    (void)evaluate(s, options);
    return 0;
}
