// SPDX-License-Identifier: Apache-2.0
#include "TestScenarios.h"

#include "core/Engine.h"
#include "core/Units.h"
#include "core/model/ModelMath.h"
#include "core/parallel/ParameterShard.h"

#include <gtest/gtest.h>

using namespace parallax::core;
using namespace parallax::test;

// Mixed-precision Adam with fp32 gradients (arXiv:1910.02054 sec. 3.1 plus Megatron's fp32 main
// gradients): 18 B/param, 1.27 TB for 70B.
TEST(Memory, EighteenBytesPerParameter)
{
    EXPECT_DOUBLE_EQ(kWeightBytesPerParam + kGradBytesPerParam + kOptimizerBytesPerParam, 18.0);
    const auto m = PresetLibrary::instance().model("llama3-70b");
    ASSERT_TRUE(m);
    const double total = 18.0 * totalParameters(*m);
    EXPECT_NEAR(total / 1e12, 1.27, 0.015); // 70.55e9 x 18 B = 1.270 TB
    // The same from the engine: pp=1, tp=1, dp=1 puts every parameter's 18 B on one (hypothetical) GPU.
    Scenario s = makeScenario("llama3-70b", "h100-sxm", 1, 1, degrees(1, 1, 1), batch(1, 1, 1024));
    const Report r = evaluate(s);
    ASSERT_TRUE(r.valid);
    const StageMemory& st = r.stages[0];
    EXPECT_NEAR((st.weightsBytes + st.gradsBytes + st.optimizerBytes) / 1e12, 1.270, 0.002);
    EXPECT_FALSE(r.fits);
}

// ZeRO stage k divides the optimizer (k >= 1), gradients (k >= 2) and weights (k = 3) by the
// data-parallel group, and leaves the rest whole.
TEST(Memory, ZeroStagesShardTheRightTerms)
{
    const int dp = 8;
    StageMemory base;
    for (int zero = 0; zero <= 3; ++zero) {
        ParallelConfig p = degrees(8, 1, dp);
        p.zero = zero;
        Scenario s = makeScenario("llama3-70b", "h100-sxm", dp, 8, p, batch(1, 64, 4096));
        const Report r = evaluate(s);
        ASSERT_TRUE(r.valid) << zero;
        const StageMemory& st = r.stages[0];
        if (zero == 0) {
            base = st;
            continue;
        }
        EXPECT_NEAR(st.optimizerBytes, base.optimizerBytes / dp, 1) << zero;
        EXPECT_NEAR(st.gradsBytes, zero >= 2 ? base.gradsBytes / dp : base.gradsBytes, 1) << zero;
        EXPECT_NEAR(st.weightsBytes, zero >= 3 ? base.weightsBytes / dp : base.weightsBytes, 1) << zero;
        EXPECT_DOUBLE_EQ(st.activationsBytes, base.activationsBytes) << zero;
    }
}

// Expert parameters shard over the expert-data-parallel group (dp*cp*tp / (ep*etp)), dense ones over dp*cp.
TEST(Memory, ExpertParametersShardOverExpertDataParallel)
{
    ParallelConfig p = degrees(1, 1, 16, 1, 8);
    p.zero = 1;
    Scenario s = makeScenario("mixtral-8x7b", "h100-sxm", 2, 8, p, batch(1, 16, 4096));
    const Report r = evaluate(s);
    ASSERT_TRUE(r.valid) << (r.errors.empty() ? "" : r.errors[0].text);
    const auto m = *PresetLibrary::instance().model("mixtral-8x7b");
    double routed = 0;
    for (int l = 0; l < m.layers; ++l)
        routed += layerParameters(m, l).routedExperts;
    const double dense = totalParameters(m) - routed;
    // ep=8 holds 1/8 of the experts; edp = 16/8 = 2 shards their optimizer; dense shards over dp=16.
    const double expected = kOptimizerBytesPerParam * (dense / 16 + routed / 8 / 2);
    EXPECT_NEAR(r.stages[0].optimizerBytes / expected, 1.0, 1e-9);
    EXPECT_NEAR(r.stages[0].weightsBytes / (2.0 * (dense + routed / 8)), 1.0, 1e-9);
}

// TP and PP divide the parameters; the embedding lives on the first stage and the head on the last.
TEST(Memory, PipelineStagesCarryEmbeddingAndHead)
{
    Scenario s = makeScenario("llama3-70b", "h100-sxm", 8, 8, degrees(8, 8, 1), batch(1, 64, 4096));
    const Report r = evaluate(s);
    ASSERT_TRUE(r.valid);
    const auto m = *PresetLibrary::instance().model("llama3-70b");
    const double vocabTable = static_cast<double>(m.vocab) * m.hidden / 8 * 2; // bf16 bytes per GPU
    EXPECT_NEAR(r.stages[0].weightsBytes - r.stages[3].weightsBytes, vocabTable, vocabTable * 1e-3);
    EXPECT_NEAR(r.stages[7].weightsBytes - r.stages[3].weightsBytes, vocabTable, vocabTable * 1e-3);
    double sum = 0;
    for (const auto& st : r.stages)
        sum += st.weightsBytes;
    EXPECT_NEAR(sum * 8 / 2, totalParameters(m), totalParameters(m) * 2e-3); // norms are replicated over tp
}

// A tied output layer reuses the input table: 1F1B keeps a copy on the last stage (Megatron-Core); the V
// schedules put the first and last stages on one rank (arXiv:2412.19437 sec. 3.2.3), so no rank holds a
// second table (DualPipe holds two copies of its stages, each with one table).
TEST(Memory, TiedEmbeddingCopyOnlyWhereTheRankLacksTheFirstStage)
{
    Scenario s = makeScenario("megatron-gpt-3.6b", "h100-sxm", 1, 2, degrees(1, 2, 1), batch(1, 8, 2048));
    ASSERT_TRUE(s.model.tiedEmbeddings);
    const double table = static_cast<double>(s.model.vocab) * s.model.hidden;
    const Report oneF = evaluate(s);
    ASSERT_TRUE(oneF.valid);
    const double total = totalParameters(s.model);
    EXPECT_NEAR(oneF.stages[0].denseParameters + oneF.stages[1].denseParameters, total + table, 1.0);
    for (const auto& [kind, copies] : { std::pair(ScheduleKind::ZbV, 1.0), std::pair(ScheduleKind::DualPipeV, 1.0),
             std::pair(ScheduleKind::DualPipe, 2.0) }) {
        s.parallel.schedule = kind;
        const Report v = evaluate(s);
        ASSERT_TRUE(v.valid) << (v.errors.empty() ? "" : v.errors.front().text);
        EXPECT_NEAR(v.stages[0].denseParameters + v.stages[1].denseParameters, copies * total, 1.0)
            << static_cast<int>(kind);
    }
}

// In-flight micro-batches come from the schedule: 1F1B holds p - i on rank i.
TEST(Memory, OneFOneBInflightPerStage)
{
    ParallelConfig p = degrees(8, 4, 1);
    p.schedule = ScheduleKind::OneFOneB;
    Scenario s = makeScenario("llama3-70b", "h100-sxm", 4, 8, p, batch(1, 32, 4096));
    const Report r = evaluate(s);
    ASSERT_TRUE(r.valid);
    for (int i = 0; i < 4; ++i)
        EXPECT_NEAR(r.stages[i].inflightMicrobatches, 4 - i, 1e-9) << i;
}
