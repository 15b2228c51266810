// SPDX-License-Identifier: Apache-2.0
// Serving designs as vLLM, SGLang and TensorRT-LLM launch commands: the layout's flags in each engine's
// own terms (DP-attention, expert parallelism), the solved concurrency, KV dtype and context length.
#include "core/launch/ServingLaunchWriter.h"
#include "core/Engine.h"
#include "core/io/ScenarioIo.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

using namespace parallax::core;

namespace {

Scenario preset(const std::string& file)
{
    LoadError error;
    std::string path = PARALLAX_SOURCE_DIR;
    path += "/presets/scenarios/";
    path += file;
    const auto s = loadScenarioFile(path, error);
    EXPECT_TRUE(s) << error.text();
    return *s;
}

bool has(const std::string& text, const std::string& needle)
{
    return text.find(needle) != std::string::npos;
}

} // namespace

TEST(ServingLaunchWriter, DpAttentionInEachEnginesTerms)
{
    const Scenario s = preset("serve-dsv3-dpattn-8xh200.parallax.json"); // tp 1, dp 8, ep 8
    const int requests = evaluate(s).inference->concurrency;
    const int perReplica = static_cast<int>(std::ceil(requests / 8.0));
    const std::string vllm = ServingLaunchWriter::write(s, ServingFramework::Vllm);
    EXPECT_TRUE(has(vllm, "--tensor-parallel-size 1 ")) << vllm;
    EXPECT_TRUE(has(vllm, "--data-parallel-size 8 "));
    EXPECT_TRUE(has(vllm, "--enable-expert-parallel"));
    EXPECT_TRUE(has(vllm, "--max-num-seqs " + std::to_string(perReplica) + "\n"));
    EXPECT_FALSE(has(vllm, "--quantization")) << "DeepSeek-V3's checkpoint is already fp8";
    // SGLang: --tp-size counts every GPU of the stage under DP-attention.
    const std::string sglang = ServingLaunchWriter::write(s, ServingFramework::Sglang);
    EXPECT_TRUE(has(sglang, "--tp-size 8 ")) << sglang;
    EXPECT_TRUE(has(sglang, "--dp-size 8 "));
    EXPECT_TRUE(has(sglang, "--enable-dp-attention"));
    EXPECT_TRUE(has(sglang, "--ep-size 8 "));
    EXPECT_TRUE(has(sglang, "--max-running-requests " + std::to_string(requests) + "\n"));
    const std::string trt = ServingLaunchWriter::write(s, ServingFramework::TrtLlm);
    EXPECT_TRUE(has(trt, "--tp_size 8 ")) << trt;
    EXPECT_TRUE(has(trt, "--ep_size 8 "));
    EXPECT_TRUE(has(trt, "enable_attention_dp: true"));
    EXPECT_TRUE(has(trt, "--max_batch_size " + std::to_string(perReplica) + " "));
}

TEST(ServingLaunchWriter, DenseTensorParallelWithFp8Cache)
{
    Scenario s = preset("serve-70b-bf16-2xh100.parallax.json");
    s.inference.kvDtype = KvDtype::Fp8;
    s.inference.contextLen = 16384;
    const std::string vllm = ServingLaunchWriter::write(s, ServingFramework::Vllm);
    EXPECT_TRUE(has(vllm, "--tensor-parallel-size 2 ")) << vllm;
    EXPECT_FALSE(has(vllm, "--data-parallel-size"));
    EXPECT_FALSE(has(vllm, "--enable-expert-parallel"));
    EXPECT_TRUE(has(vllm, "--kv-cache-dtype fp8 "));
    EXPECT_TRUE(has(vllm, "--max-model-len 16384 "));
    EXPECT_TRUE(has(ServingLaunchWriter::write(s, ServingFramework::Sglang), "--kv-cache-dtype fp8_e4m3 "));
    EXPECT_TRUE(has(ServingLaunchWriter::write(s, ServingFramework::TrtLlm), "  dtype: fp8\n"));
}

TEST(ServingLaunchWriter, RackScaleDomainsLaunchPerHost)
{
    // 72 GPUs in one NVLink domain, 4 per GB200 compute tray: 18 hosts.
    const std::string sglang
        = ServingLaunchWriter::write(preset("serve-405b-bf16-nvl72.parallax.json"), ServingFramework::Sglang);
    EXPECT_TRUE(has(sglang, "--nnodes 18 ")) << sglang;
    EXPECT_TRUE(has(sglang, "--node-rank"));
}

TEST(ServingLaunchWriter, TrainingDesignsAreRefusedWithTheFix)
{
    const Scenario s = preset("gpt3-175b-1536xa100.parallax.json");
    try {
        ServingLaunchWriter::write(s, ServingFramework::Vllm);
        FAIL() << "a training design was written as a serving launch";
    } catch (const std::invalid_argument& e) {
        EXPECT_TRUE(has(e.what(), "megatron, nemo or torchtitan")) << e.what();
    }
    EXPECT_FALSE(parseServingFramework("megatron"));
    EXPECT_EQ(parseServingFramework("trtllm"), ServingFramework::TrtLlm);
}
