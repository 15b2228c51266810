// SPDX-License-Identifier: Apache-2.0
// Reading a training log (check-log): Megatron-LM's, NeMo's and torchtitan's step and memory lines, the median
// after the warm-up, and the comparison with the engine's prediction and its range.
#include "core/launch/TrainingLogReader.h"

#include "../TestScenarios.h"
#include "core/Engine.h"
#include "core/Units.h"

#include <gtest/gtest.h>

using namespace parallax::core;

namespace {
std::string fixture(const std::string& framework = "megatron")
{
    return parallax::test::testData(framework + "/synthetic-training.log");
}

Report llama70On64()
{
    return evaluate(parallax::test::presetScenario("llama3-70b-64xh100"));
}
} // namespace

TEST(TrainingLog, ReadsIterationsAndTheLargestMaxAllocated)
{
    const TrainingLog log = readTrainingLog(fixture());
    ASSERT_EQ(log.iterations.size(), 10u);
    EXPECT_EQ(log.iterations.front().iteration, 1);
    EXPECT_DOUBLE_EQ(log.iterations.front().seconds, 95.1234);
    EXPECT_EQ(log.iterations.back().iteration, 10);
    EXPECT_GT(log.iterations.back().tflopsPerGpu, 400);
    EXPECT_EQ(log.memoryReports, 3);
    EXPECT_DOUBLE_EQ(log.maxAllocatedBytes, 52710.25 * 1024 * 1024); // rank 8's, the largest
    EXPECT_TRUE(readTrainingLog("nothing here\n").iterations.empty());
}

// NeMo 2.0 prints its own progress line for the same Megatron-Core run: seconds per step, and with its memory
// monitor the allocator's peak in bytes (a list of timings from its perf summary is not a step).
TEST(TrainingLog, ReadsNemoProgressLines)
{
    const TrainingLog log = readTrainingLog(
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
    EXPECT_EQ(log.framework, LaunchFramework::Nemo);
}

TEST(TrainingLog, MedianAfterTheWarmupAgainstTheRange)
{
    const Report r = llama70On64();
    const TrainingLog log = readTrainingLog(fixture());
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
    TrainingLog slow = log;
    for (LoggedStep& it : slow.iterations)
        it.seconds *= 2;
    const auto s = compareWithLog(r, slow, 2, error);
    ASSERT_TRUE(s);
    EXPECT_FALSE(s->stepWithinRange);
    EXPECT_NE(s->summary.find("outside its range"), std::string::npos) << s->summary;
}

TEST(TrainingLog, NoIterationsAfterTheWarmupNamesTheFix)
{
    const Report r = llama70On64();
    std::string error;
    EXPECT_FALSE(compareWithLog(r, readTrainingLog("building GPT model ...\n"), 2, error));
    EXPECT_NE(error.find("is it a training log?"), std::string::npos) << error;
    EXPECT_FALSE(compareWithLog(r, readTrainingLog(fixture()), 10, error));
    EXPECT_NE(error.find("lower --warmup"), std::string::npos) << error;
}

// torchtitan prints tokens per second per GPU (tps) and the allocator's max reserved, in colour unless told not
// to; its validation lines are no training steps.
TEST(TrainingLog, ReadsTorchtitanMetricsLines)
{
    const double tokens = 512.0 * 8192; // the design's global batch x sequence
    const TrainingLog log = readTrainingLog(fixture("torchtitan"), tokens, 64);
    EXPECT_EQ(log.framework, LaunchFramework::Torchtitan);
    ASSERT_EQ(log.iterations.size(), 6u); // steps 1, 10, ..., 50; not "validate step: 30"
    EXPECT_EQ(log.iterations[0].iteration, 1); // read through the colour codes
    EXPECT_DOUBLE_EQ(log.iterations[0].tokensPerSecondPerGpu, 641);
    EXPECT_DOUBLE_EQ(log.iterations[0].seconds, tokens / (641.0 * 64));
    EXPECT_EQ(log.iterations[5].iteration, 50);
    EXPECT_DOUBLE_EQ(log.iterations[5].seconds, tokens / (908.0 * 64));
    EXPECT_NEAR(log.iterations[5].tflopsPerGpu, 411.26, 1e-9);
    EXPECT_EQ(log.memoryReports, 6);
    EXPECT_DOUBLE_EQ(log.maxReservedBytes, 61.41 * kGiB);
    EXPECT_DOUBLE_EQ(log.maxAllocatedBytes, 0);
    // Without the design's batch the steps have no seconds, so nothing to compare.
    EXPECT_DOUBLE_EQ(readTrainingLog(fixture("torchtitan")).iterations[0].seconds, 0);
    std::string error;
    EXPECT_FALSE(compareWithLog(llama70On64(), readTrainingLog(fixture("torchtitan")), 2, error));
    // Thousands separators.
    EXPECT_DOUBLE_EQ(readTrainingLog("step: 7  loss: 3.2  memory: 1.00GiB(1.00%)  tps: 12,345  tflops: 1.00\n", 1, 1)
                         .iterations.at(0)
                         .tokensPerSecondPerGpu,
        12345);
    // A garbled step number beyond an int (found by the training_log fuzz target: the cast was undefined) reads as
    // step 0; the line's rate still counts.
    const TrainingLog garbled = readTrainingLog("step: 1222220000000000000000000  loss: 3.2  tps: 1,000\n", 1, 1);
    ASSERT_EQ(garbled.iterations.size(), 1u);
    EXPECT_EQ(garbled.iterations[0].iteration, 0);
    EXPECT_DOUBLE_EQ(garbled.iterations[0].tokensPerSecondPerGpu, 1000);
}

// A torchtitan log is checked against what torchtitan runs, and its max reserved against the busiest stage with
// the allocator's fragmentation.
TEST(TrainingLog, ChecksATorchtitanLogAgainstItsReservedPeak)
{
    const Scenario design = parallax::test::presetScenario("llama3-70b-64xh100");
    std::string error;
    const auto check = checkTrainingLog(design, fixture("torchtitan"), 2, {}, error);
    ASSERT_TRUE(check) << error;
    EXPECT_EQ(check->framework, LaunchFramework::Torchtitan);
    const LogComparison& c = check->comparison;
    EXPECT_EQ(c.iterationsUsed, 4);
    // Steps 20-50: tps 911, 909, 912, 908; the median of their step times lies between 909's and 911's.
    EXPECT_NEAR(c.measuredSeconds, 0.5 * (512.0 * 8192 / (909.0 * 64) + 512.0 * 8192 / (911.0 * 64)), 1e-9);
    EXPECT_TRUE(c.memoryIsReserved);
    const Report r = evaluate(design);
    EXPECT_DOUBLE_EQ(c.predictedAllocatedBytes, reservedPeakBytes(r));
    EXPECT_GT(reservedPeakBytes(r), allocatorPeakBytes(r));
    EXPECT_DOUBLE_EQ(c.measuredAllocatedBytes, 61.41 * kGiB);
    EXPECT_NE(c.summary.find("memory: max reserved 61.4 GiB"), std::string::npos) << c.summary;
    // The same design's Megatron-LM log compares max allocated.
    const auto megatron = checkTrainingLog(design, fixture(), 2, {}, error);
    ASSERT_TRUE(megatron) << error;
    EXPECT_EQ(megatron->framework, LaunchFramework::MegatronLm);
    EXPECT_FALSE(megatron->comparison.memoryIsReserved);
    EXPECT_DOUBLE_EQ(megatron->comparison.predictedAllocatedBytes, allocatorPeakBytes(r));
}
