// SPDX-License-Identifier: Apache-2.0
// The Slurm benchmark job (export --launch slurm): the design's Megatron-LM flags under srun and torchrun with
// its node and GPU counts, mock data, the engine's prediction as comments, read back by import-args.
#include "core/launch/SlurmBenchmarkWriter.h"
#include "../TestScenarios.h"

#include "core/Engine.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/launch/FrameworkGaps.h"
#include "core/launch/LaunchArgsImporter.h"
#include "core/launch/MegatronArgsWriter.h"
#include "core/memory/RangeText.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <stdexcept>

using namespace parallax::core;

namespace {
bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}
} // namespace

// Llama 3 70B on 64 H100: eight nodes of eight GPUs, the design's flags, mock data, the prediction.
TEST(SlurmBenchmark, JobCarriesTheDesignAndItsPrediction)
{
    const Scenario s = parallax::test::presetScenario("llama3-70b-64xh100");
    const std::string script = SlurmBenchmarkWriter::write(s);
    EXPECT_EQ(script.rfind("#!/bin/bash\n", 0), 0u);
    EXPECT_TRUE(contains(script, "#SBATCH --nodes=8\n")) << script;
    EXPECT_TRUE(contains(script, "#SBATCH --gpus-per-node=8\n"));
    EXPECT_TRUE(contains(script, "#SBATCH --job-name=parallax-llama-3-70b-on-64-h100\n"));
    EXPECT_TRUE(contains(script, "--nnodes 8 --nproc-per-node 8"));
    EXPECT_TRUE(contains(script, "--rdzv-endpoint \"$MASTER_ADDR:$MASTER_PORT\""));
    EXPECT_TRUE(contains(script,
        "\"$MEGATRON_LM/pretrain_gpt.py\" \"${MODEL_ARGS[@]}\" \"${PARALLEL_ARGS[@]}\" "
        "\"${TRAINING_ARGS[@]}\" \"${BENCHMARK_ARGS[@]}\""));
    for (const char* flag : { "--tensor-model-parallel-size 8", "--pipeline-model-parallel-size 8", "--mock-data",
             "--tokenizer-type NullTokenizer", "--vocab-size 128256", "export CUDA_DEVICE_MAX_CONNECTIONS=1" })
        EXPECT_TRUE(contains(script, flag)) << flag;
    // The prediction is the engine's, with its range.
    const Report r = evaluate(s);
    EXPECT_TRUE(contains(script, "#   step time    " + stepTimeRangeText(r) + " per iteration")) << script;
    EXPECT_TRUE(contains(script, peakMemoryRangeText(r)));
    EXPECT_TRUE(contains(script, "published runs of " + r.stepTimeFamily));
    // Every variable the script expands is set in it or by Slurm.
    EXPECT_TRUE(contains(script, "MEGATRON_LM=${MEGATRON_LM:?"));
    EXPECT_TRUE(contains(script, "MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)"));
}

// import-args reads the job back into the design it came from, for every training preset of the regular form.
TEST(SlurmBenchmark, ImportsBackToEveryTrainingPreset)
{
    int checked = 0;
    for (const auto& info : PresetLibrary::instance().scenarios()) {
        SCOPED_TRACE(info.id);
        const Scenario s = parallax::test::presetScenario(info.id);
        if (s.mode != ScenarioMode::Training || !s.regularCluster || !evaluate(s).valid)
            continue;
        const auto back = LaunchArgsImporter::import(SlurmBenchmarkWriter::write(s), {});
        ASSERT_TRUE(back.scenario) << back.error;
        EXPECT_EQ(back.scenario->topology.gpuCount(), s.topology.gpuCount());
        const nlohmann::json a = scenarioToJson(*back.scenario), b = scenarioToJson(s);
        EXPECT_EQ(a["parallel"].dump(), b["parallel"].dump());
        EXPECT_EQ(a["model"].dump(), b["model"].dump());
        ++checked;
    }
    EXPECT_GE(checked, 10);
}

TEST(SlurmBenchmark, ServingAndInvalidDesignsAreRefusedWithTheReason)
{
    EXPECT_THROW(
        SlurmBenchmarkWriter::write(parallax::test::presetScenario("serve-70b-bf16-2xh100")), std::invalid_argument);
    Scenario bad = parallax::test::presetScenario("llama3-70b-64xh100");
    bad.parallel.tp = 3;
    try {
        SlurmBenchmarkWriter::write(bad);
        FAIL() << "an invalid design was written";
    } catch (const std::invalid_argument& e) {
        EXPECT_TRUE(contains(e.what(), "parallel.")) << e.what();
    }
}

// A design Megatron-LM cannot run as planned (DeepSeek-V3's DualPipe, fp8 dispatch, activation cache) is
// predicted as it runs there; the design's own step time is in the NOTE.
TEST(SlurmBenchmark, PredictsWhatMegatronRuns)
{
    const Scenario s = parallax::test::presetScenario("deepseek-v3-2048xh800");
    std::vector<std::string> changes;
    const Scenario run = runAs(s, LaunchFramework::MegatronLm, changes);
    ASSERT_EQ(changes.size(), 3u);
    EXPECT_EQ(changes.front(), "1F1B instead of dualpipe");
    EXPECT_EQ(run.parallel.schedule, ScheduleKind::OneFOneB);
    EXPECT_FALSE(run.training.deepseekFp8Dispatch);
    EXPECT_FALSE(run.training.deepseekActivationCache);
    const std::string script = SlurmBenchmarkWriter::write(s);
    EXPECT_TRUE(contains(script, "#   step time    " + stepTimeRangeText(evaluate(run)) + " per iteration")) << script;
    EXPECT_TRUE(contains(script, "the design itself would take " + stepTimeRangeText(evaluate(s))));
    EXPECT_TRUE(contains(script, "#   - 1F1B instead of dualpipe\n"));
    // A design Megatron runs as planned has no such NOTE.
    runAs(parallax::test::presetScenario("llama3-70b-64xh100"), LaunchFramework::MegatronLm, changes);
    EXPECT_TRUE(changes.empty());
}
