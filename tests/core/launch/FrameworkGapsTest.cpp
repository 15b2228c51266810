// SPDX-License-Identifier: Apache-2.0
// What Megatron-LM, NeMo and torchtitan cannot run of a design: one table serves the launch files' NOTE lines
// and the prediction a log is checked against (core/launch/FrameworkGaps.h).
#include "core/launch/FrameworkGaps.h"
#include "../TestScenarios.h"

#include "core/Engine.h"
#include "core/io/PresetLibrary.h"
#include "core/launch/TrainingLaunchWriter.h"

#include <gtest/gtest.h>

using namespace parallax::core;

namespace {
constexpr LaunchFramework kFrameworks[]
    = { LaunchFramework::MegatronLm, LaunchFramework::Nemo, LaunchFramework::Torchtitan };

std::vector<std::string> changesOf(const Scenario& s, LaunchFramework f)
{
    std::vector<std::string> changes;
    runAs(s, f, changes);
    return changes;
}
} // namespace

// DeepSeek-V3's own framework features: neither Megatron-Core framework runs DualPipe, the fp8 dispatch or the
// activation cache; torchtitan runs DualPipeV and plain all-to-all, and keeps fp32 optimizer states.
TEST(FrameworkGaps, DeepSeekV3UnderEachFramework)
{
    const Scenario s = parallax::test::presetScenario("deepseek-v3-2048xh800");
    const std::vector<std::string> megatron { "1F1B instead of dualpipe",
        "bf16 DeepEP dispatch instead of DeepSeek's fp8 one", "without DeepSeek-V3's activation cache" };
    EXPECT_EQ(changesOf(s, LaunchFramework::MegatronLm), megatron);
    EXPECT_EQ(changesOf(s, LaunchFramework::Nemo), megatron);
    std::vector<std::string> changes;
    const Scenario titan = runAs(s, LaunchFramework::Torchtitan, changes);
    ASSERT_EQ(changes.size(), 5u);
    EXPECT_EQ(changes[0], "ZeRO-2 instead of ZeRO-1 (FSDP2 keeps each rank's gradient shard only)");
    EXPECT_EQ(changes[1], "DualPipeV instead of DualPipe, its 2 x pp stages split as evenly as the layers allow");
    EXPECT_EQ(titan.parallel.zero, 2);
    EXPECT_TRUE(evaluate(titan).valid) << evaluate(titan).errors.front().text;
    EXPECT_EQ(titan.training.optimizer, OptimizerPrecision {});
    EXPECT_EQ(titan.parallel.schedule, ScheduleKind::DualPipeV);
    EXPECT_EQ(titan.training.moeTokenDispatcher, MoeDispatcher::AllToAll);
    EXPECT_FALSE(titan.training.deepseekFp8Dispatch);
    EXPECT_FALSE(titan.training.deepseekActivationCache);
    // Each note goes to its place of the file: the schedule's to the pipeline settings.
    const auto pipeline = gapNotes(s, LaunchFramework::MegatronLm, GapPlace::Pipeline);
    ASSERT_EQ(pipeline.size(), 1u);
    EXPECT_EQ(pipeline.front().rfind("# NOTE: Megatron-LM has no dualpipe schedule", 0), 0u) << pipeline.front();
    EXPECT_EQ(gapNotes(s, LaunchFramework::Nemo, GapPlace::Moe).size(), 1u);
}

// Rank orders: Megatron-Core's flags give two, torchtitan's mesh one; NeMo always overlaps the p2p.
TEST(FrameworkGaps, RankOrderAndPipelineOverlap)
{
    Scenario s = parallax::test::presetScenario("llama3-70b-64xh100");
    s.parallel.order = "tp-cp-ep-pp-dp";
    EXPECT_TRUE(changesOf(s, LaunchFramework::MegatronLm).empty());
    std::vector<std::string> changes;
    EXPECT_EQ(runAs(s, LaunchFramework::Torchtitan, changes).parallel.order, "tp-cp-ep-dp-pp");
    EXPECT_EQ(changes, std::vector<std::string> { "rank order tp-cp-ep-dp-pp instead of tp-cp-ep-pp-dp" });
    s.parallel.order = "tp-dp-cp-ep-pp";
    EXPECT_EQ(runAs(s, LaunchFramework::Nemo, changes).parallel.order, "tp-cp-ep-dp-pp");
    ASSERT_EQ(changes.size(), 1u);
    s.parallel.order = "tp-cp-ep-dp-pp";
    s.parallel.p2pOverlap = false;
    EXPECT_TRUE(changesOf(s, LaunchFramework::MegatronLm).empty()); // --no-overlap-p2p-communication
    EXPECT_TRUE(runAs(s, LaunchFramework::Nemo, changes).parallel.p2pOverlap);
    EXPECT_EQ(changes, std::vector<std::string> { "overlapped pipeline p2p" });
}

// torchtitan's job config has no key for SP off, precision-aware optimizer states, token dropping or unfused
// attention: each is a change of what it runs.
TEST(FrameworkGaps, TorchtitanRunsWhatItsConfigCanSay)
{
    Scenario s = parallax::test::presetScenario("llama3-70b-64xh100");
    EXPECT_TRUE(changesOf(s, LaunchFramework::Torchtitan).empty());
    s.parallel.sp = false;
    s.training.optimizer.precisionAware = true;
    s.training.optimizer.expAvg = StateDType::Bf16;
    s.training.flashAttention = false;
    std::vector<std::string> changes;
    const Scenario run = runAs(s, LaunchFramework::Torchtitan, changes);
    EXPECT_EQ(changes.size(), 3u);
    EXPECT_TRUE(run.parallel.sp);
    EXPECT_EQ(run.training.optimizer, OptimizerPrecision {});
    EXPECT_TRUE(run.training.flashAttention);
    // Megatron-LM has flags for all three.
    EXPECT_TRUE(changesOf(s, LaunchFramework::MegatronLm).empty());
}

// torchtitan's data parallelism is FSDP2 (fully_shard), which keeps only each rank's gradient shard: a ZeRO-1
// design runs as ZeRO-2 (its gradients sharded, so less memory), ZeRO-2 as itself, and ZeRO-3 reshards after the
// forward under PP too ("always"; torchtitan's "default" would keep the parameters gathered under PP).
TEST(FrameworkGaps, TorchtitanShardsGradientsWithFsdp2)
{
    Scenario s = parallax::test::presetScenario("llama3-70b-64xh100");
    s.parallel.pp = 4;
    s.parallel.dp = 2;
    s.parallel.zero = 1;
    ASSERT_TRUE(evaluate(s).valid);
    std::vector<std::string> changes;
    const Scenario run = runAs(s, LaunchFramework::Torchtitan, changes);
    EXPECT_EQ(
        changes, std::vector<std::string> { "ZeRO-2 instead of ZeRO-1 (FSDP2 keeps each rank's gradient shard only)" });
    EXPECT_EQ(run.parallel.zero, 2);
    const Report design = evaluate(s), asRun = evaluate(run);
    ASSERT_TRUE(asRun.valid);
    // The 32-bit gradient buffer, halved over the two data-parallel ranks.
    EXPECT_NEAR(asRun.stages[0].gradsBytes, 0.5 * design.stages[0].gradsBytes, 1e-9 * design.stages[0].gradsBytes);
    EXPECT_LT(asRun.peakMemoryBytes, design.peakMemoryBytes);
    EXPECT_TRUE(changesOf(s, LaunchFramework::MegatronLm).empty()); // Megatron-LM's distributed optimizer is ZeRO-1
    const std::string toml = writeTrainingLaunch(s, LaunchFramework::Torchtitan);
    EXPECT_NE(toml.find("data_parallel_shard_degree = 2\n# NOTE: torchtitan shards with FSDP2, which keeps only each "
                        "rank's gradient shard"),
        std::string::npos)
        << toml;
    EXPECT_NE(toml.find("fsdp_reshard_after_forward = \"never\""), std::string::npos);
    s.parallel.zero = 2;
    EXPECT_TRUE(changesOf(s, LaunchFramework::Torchtitan).empty());
    s.parallel.zero = 3;
    EXPECT_TRUE(changesOf(s, LaunchFramework::Torchtitan).empty());
    EXPECT_NE(writeTrainingLaunch(s, LaunchFramework::Torchtitan).find("fsdp_reshard_after_forward = \"always\""),
        std::string::npos);
    // One data-parallel rank shards nothing: no gap.
    s.parallel.dp = 1;
    s.parallel.pp = 8;
    s.parallel.zero = 1;
    EXPECT_TRUE(changesOf(s, LaunchFramework::Torchtitan).empty());
}

// torchtitan's selective "op" policy is not the scenario's selective recompute: the NOTE names what the scenario
// recomputes (DeepSeek-V3: its modules; Megatron's default: the attention core).
TEST(FrameworkGaps, TorchtitanSelectiveRecomputeNoteNamesTheModules)
{
    const auto training = [](const std::string& preset) {
        return gapNoteText(parallax::test::presetScenario(preset), LaunchFramework::Torchtitan, GapPlace::Training);
    };
    EXPECT_NE(
        training("deepseek-v3-2048xh800").find("the scenario's selective recompute of moe_act, layernorm, mla_up_proj"),
        std::string::npos);
    EXPECT_NE(training("llama3-405b-16kxh100").find("Megatron's selective recompute of the attention core"),
        std::string::npos);
    Scenario none = parallax::test::presetScenario("llama3-70b-64xh100");
    none.training.recompute = Recompute::None;
    EXPECT_EQ(gapNoteText(none, LaunchFramework::Torchtitan, GapPlace::Training).find("selective"), std::string::npos);
}

// For every training preset and framework: the launch file carries every gap's NOTE, and what the framework runs
// has no gap left to change (the table is a fixed point) and is a design the engine accepts.
TEST(FrameworkGaps, EveryPresetsLaunchFileCarriesItsGaps)
{
    int checked = 0;
    for (const auto& info : PresetLibrary::instance().scenarios()) {
        const Scenario s = parallax::test::presetScenario(info.id);
        if (s.mode != ScenarioMode::Training || !s.regularCluster)
            continue;
        for (const LaunchFramework f : kFrameworks) {
            SCOPED_TRACE(info.id + " under " + frameworkName(f));
            const std::string file = writeTrainingLaunch(s, f);
            for (const FrameworkGap& gap : frameworkGaps(s, f))
                EXPECT_NE(file.find("# NOTE: " + gap.note), std::string::npos) << gap.note;
            std::vector<std::string> changes;
            const Scenario run = runAs(s, f, changes);
            EXPECT_TRUE(changesOf(run, f).empty());
            if (!changes.empty() && evaluate(s).valid) {
                const Report r = evaluate(run);
                EXPECT_TRUE(r.valid) << (r.errors.empty() ? std::string() : r.errors.front().text);
            }
            ++checked;
        }
    }
    EXPECT_GE(checked, 30);
}
