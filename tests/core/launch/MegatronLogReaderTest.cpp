// SPDX-License-Identifier: Apache-2.0
// Reading a Megatron-LM training log (check-log): the iteration and memory lines, the median after the warm-up,
// and the comparison with the engine's prediction and its range.
#include "core/launch/MegatronLogReader.h"

#include "core/Engine.h"
#include "core/Units.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace parallax::core;

namespace {
std::string fixture()
{
    std::ifstream in(PARALLAX_SOURCE_DIR "/tests/data/megatron/synthetic-training.log");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

Report llama70On64()
{
    LoadError error;
    const auto s = parseScenario(PresetLibrary::instance().scenario("llama3-70b-64xh100")->json, error);
    EXPECT_TRUE(s) << error.text();
    return evaluate(*s);
}
} // namespace

TEST(MegatronLog, ReadsIterationsAndTheLargestMaxAllocated)
{
    const MegatronLog log = readMegatronLog(fixture());
    ASSERT_EQ(log.iterations.size(), 10u);
    EXPECT_EQ(log.iterations.front().iteration, 1);
    EXPECT_DOUBLE_EQ(log.iterations.front().seconds, 95.1234);
    EXPECT_EQ(log.iterations.back().iteration, 10);
    EXPECT_GT(log.iterations.back().tflopsPerGpu, 400);
    EXPECT_EQ(log.memoryReports, 3);
    EXPECT_DOUBLE_EQ(log.maxAllocatedBytes, 52710.25 * 1024 * 1024); // rank 8's, the largest
    EXPECT_TRUE(readMegatronLog("nothing here\n").iterations.empty());
}

// NeMo 2.0 prints its own progress line for the same Megatron-Core run: seconds per step, and with its memory
// monitor the allocator's peak in bytes (a list of timings from its perf summary is not a step).
TEST(MegatronLog, ReadsNemoProgressLines)
{
    const MegatronLog log = readMegatronLog(
        "Training epoch 0, iteration 3/99 | lr: 1.5e-05 | global_batch_size: 128 | global_step: 3 | "
        "peak_memory_usage: 70833405952 | memory_allocated: 44271689728 | reduced_train_loss: 11.96 | "
        "train_step_timing in s: 12.39 | consumed_samples: 512\n"
        "Training epoch 0, iteration 4/99 | lr: 1.6e-05 | global_batch_size: 128 | global_step: 4 | "
        "reduced_train_loss: 11.9 | train_step_timing in s: 12.41 | consumed_samples: 640\n"
        "[NeMo I 2025-03-04 02:58:29 perf_metrics_utils:56] train_step_timing in s: [11.85, 6.98]\n");
    ASSERT_EQ(log.iterations.size(), 2u);
    EXPECT_EQ(log.iterations[0].iteration, 3);
    EXPECT_DOUBLE_EQ(log.iterations[0].seconds, 12.39);
    EXPECT_DOUBLE_EQ(log.iterations[1].seconds, 12.41);
    EXPECT_EQ(log.memoryReports, 1);
    EXPECT_DOUBLE_EQ(log.maxAllocatedBytes, 70833405952.0);
}

TEST(MegatronLog, MedianAfterTheWarmupAgainstTheRange)
{
    const Report r = llama70On64();
    const MegatronLog log = readMegatronLog(fixture());
    std::string error;
    const auto c = compareWithLog(r, log, 2, error);
    ASSERT_TRUE(c) << error;
    EXPECT_EQ(c->iterationsUsed, 8);
    // Iterations 3-10: the median of the eight, halfway between 71.9908 and 72.0119 s.
    EXPECT_NEAR(c->measuredSeconds, 0.5 * (71.9908 + 72.0119), 1e-9);
    EXPECT_DOUBLE_EQ(c->measuredLowSeconds, 71.855);
    EXPECT_DOUBLE_EQ(c->measuredHighSeconds, 72.3002);
    EXPECT_DOUBLE_EQ(c->predictedSeconds, r.stepTimeSeconds);
    EXPECT_NEAR(c->stepError, r.stepTimeSeconds / c->measuredSeconds - 1.0, 1e-12);
    EXPECT_EQ(
        c->stepWithinRange, c->measuredSeconds >= r.stepTimeLowSeconds && c->measuredSeconds <= r.stepTimeHighSeconds);
    EXPECT_DOUBLE_EQ(c->predictedAllocatedBytes, allocatorPeakBytes(r));
    EXPECT_NEAR(c->memoryError, c->predictedAllocatedBytes / (52710.25 * 1024 * 1024) - 1.0, 1e-12);
    // Without the warm-up the first iteration's 95 s is in: the median moves, the slowest is it.
    const auto all = compareWithLog(r, log, 0, error);
    ASSERT_TRUE(all);
    EXPECT_DOUBLE_EQ(all->measuredHighSeconds, 95.1234);
    // A step time outside the range is said so.
    MegatronLog slow = log;
    for (MegatronIteration& it : slow.iterations)
        it.seconds *= 2;
    const auto s = compareWithLog(r, slow, 2, error);
    ASSERT_TRUE(s);
    EXPECT_FALSE(s->stepWithinRange);
    EXPECT_NE(s->summary.find("outside its range"), std::string::npos) << s->summary;
}

TEST(MegatronLog, NoIterationsAfterTheWarmupNamesTheFix)
{
    const Report r = llama70On64();
    std::string error;
    EXPECT_FALSE(compareWithLog(r, readMegatronLog("building GPT model ...\n"), 2, error));
    EXPECT_NE(error.find("Megatron-LM training log"), std::string::npos) << error;
    EXPECT_FALSE(compareWithLog(r, readMegatronLog(fixture()), 10, error));
    EXPECT_NE(error.find("lower --warmup"), std::string::npos) << error;
}
