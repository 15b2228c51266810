// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/io/PresetLibrary.h"

#include <stdexcept>
#include <string>

namespace parallax::test {

// A regular cluster of `nodes` NVLink domains of `gpusPerNode` GPUs with a global batch and a
// sequence length: all the search needs.
inline core::Scenario searchScenario(const std::string& model, int nodes, int gpusPerNode, int globalBatch, int seqLen,
    const std::string& gpu = "h100-sxm")
{
    const auto& lib = core::PresetLibrary::instance();
    const auto m = lib.model(model);
    const auto g = lib.gpu(gpu);
    if (!m || !g)
        throw std::runtime_error("missing preset " + model + " / " + gpu);
    core::Scenario s;
    s.name = model + " on " + std::to_string(nodes * gpusPerNode) + " " + gpu;
    s.modelPreset = model;
    s.model = *m;
    s.gpuPreset = gpu;
    s.nodes = nodes;
    s.gpusPerNode = gpusPerNode;
    s.topology = core::Topology::regular(*g, nodes, gpusPerNode, g->nicGbps);
    s.parallel.dp = nodes * gpusPerNode;
    s.training.globalBatch = globalBatch;
    s.training.seqLen = seqLen;
    return s;
}

// A small MoE (64 experts, top-2) that fits a few HGX nodes, for all-to-all questions.
inline core::ModelSpec smallMoe()
{
    core::ModelSpec m;
    m.id = "test-moe";
    m.name = "test MoE (64 experts)";
    m.layers = 16;
    m.hidden = 4096;
    m.heads = 32;
    m.kvHeads = 8;
    m.ffnHidden = 14336;
    m.vocab = 32000;
    m.seqLen = 4096;
    core::MoeSpec e;
    e.experts = 64;
    e.topK = 2;
    e.expertFfnHidden = 2048;
    e.firstDenseLayers = 1;
    m.moe = e;
    return m;
}

} // namespace parallax::test
