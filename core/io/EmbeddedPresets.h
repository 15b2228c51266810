// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vector>

namespace parallax::core {

// One preset JSON file compiled into the binary (see cmake/GenerateEmbeddedPresets.cmake).
struct EmbeddedFile {
    const char* relativePath; // e.g. "gpus/h100-sxm.json"
    const char* content;
};

const std::vector<EmbeddedFile>& embeddedPresetFiles();

} // namespace parallax::core
