// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace parallax::test {

// A scenario preset by id, parsed; throws with the preset's load error so a test names the cause.
inline core::Scenario presetScenario(const std::string& id)
{
    const core::ScenarioPresetInfo* info = core::PresetLibrary::instance().scenario(id);
    if (!info)
        throw std::runtime_error("missing scenario preset " + id);
    core::LoadError error;
    auto s = core::parseScenario(info->json, error);
    if (!s)
        throw std::runtime_error(id + ": " + error.text());
    return *s;
}

// A regular cluster scenario from presets, for tests.
inline core::Scenario makeScenario(const std::string& model, const std::string& gpu, int nodes, int gpusPerNode,
    core::ParallelConfig parallel, core::TrainingConfig training)
{
    core::Scenario s;
    s.name = "test";
    auto m = core::PresetLibrary::instance().model(model);
    auto g = core::PresetLibrary::instance().gpu(gpu);
    if (!m || !g)
        throw std::runtime_error("missing preset " + model + " / " + gpu);
    s.modelPreset = model;
    s.model = *m;
    s.gpuPreset = gpu;
    s.nodes = nodes;
    s.gpusPerNode = gpusPerNode;
    s.topology = core::Topology::regular(*g, nodes, gpusPerNode, g->nicGbps);
    s.parallel = parallel;
    s.training = training;
    return s;
}

// A GPU preset by id; throws when the library lacks it.
inline core::GpuSpec gpuPreset(const std::string& id)
{
    auto g = core::PresetLibrary::instance().gpu(id);
    if (!g)
        throw std::runtime_error("missing GPU preset " + id);
    return *g;
}

// Degrees and a rank order (Megatron-Core's default "tp-cp-ep-dp-pp"), for the rank-map tests.
inline core::ParallelConfig rankConfig(int tp, int cp, int dp, int pp, int ep = 1, const char* order = "tp-cp-ep-dp-pp")
{
    core::ParallelConfig p;
    p.tp = tp;
    p.cp = cp;
    p.dp = dp;
    p.pp = pp;
    p.ep = ep;
    p.order = order;
    return p;
}

inline core::ParallelConfig degrees(int tp, int pp, int dp, int cp = 1, int ep = 1)
{
    core::ParallelConfig p;
    p.tp = tp;
    p.sp = tp > 1;
    p.pp = pp;
    p.dp = dp;
    p.cp = cp;
    p.ep = ep;
    return p;
}

inline core::TrainingConfig batch(int micro, int global, int seq = 0, core::Recompute r = core::Recompute::Selective)
{
    core::TrainingConfig t;
    t.microBatch = micro;
    t.globalBatch = global;
    t.seqLen = seq;
    t.recompute = r;
    return t;
}

// A small Megatron-LM command line (4 layers, hidden 1024, one node of 8 GPUs) with `extra` flags appended.
inline std::string smallMegatronCommand(const std::string& extra)
{
    return "torchrun --nnodes 1 --nproc-per-node 8 pretrain_gpt.py --num-layers 4 --hidden-size 1024 "
           "--num-attention-heads 8 --ffn-hidden-size 4096 --seq-length 2048 --max-position-embeddings 2048 "
           "--micro-batch-size 1 --global-batch-size 8 --vocab-size 32000 "
        + extra;
}

// A file of tests/data ("megatron/synthetic-training.log"), whole; empty when it is missing.
inline std::string testData(const std::string& relative)
{
    std::ifstream in(std::string(PARALLAX_SOURCE_DIR "/tests/data/") + relative);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace parallax::test
