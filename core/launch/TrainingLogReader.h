// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Engine.h"
#include "core/launch/FrameworkGaps.h"
#include "core/report/Report.h"

#include <optional>
#include <string>
#include <vector>

namespace parallax::core {

// What a training log says about speed and memory, in the three frameworks Parallax writes launch files for:
// Megatron-LM's training_log and report_memory lines (megatron/training/training.py, core_r0.14.0):
//   " [...] iteration       10/      20 | consumed samples: ... | elapsed time per iteration (ms): 70812.3 |
//     throughput per GPU (TFLOP/s/GPU): 446.1 | ..."
//   "[Rank 0] (after 1 iterations) memory (MB) | allocated: ... | max allocated: 51234.5 | reserved: ..."
// NeMo 2.0's progress lines of the same Megatron-Core runs (its MegatronStrategy):
//   "Training epoch 0, iteration 49/99 | ... | peak_memory_usage: 70833405952 | ... | train_step_timing in s: 12.39"
// and torchtitan's (torchtitan/components/metrics.py, MetricsProcessor.log; colour codes are skipped):
//   "step: 10  loss:  7.1234  grad_norm:  1.2345  memory: 41.23GiB(52.12%)  tps: 1,234  tflops: 123.45  mfu: 39.61%"
// torchtitan prints tokens per second per GPU ("tps": the rank's tokens / (time x tp x cp x pp)), its memory is
// the caching allocator's max reserved, not max allocated.
struct LoggedStep {
    int iteration = 0;
    double seconds = 0; // per iteration (Megatron averages over its log interval); torchtitan: from tps
    double tflopsPerGpu = 0; // 0 when not logged (--log-throughput)
    double tokensPerSecondPerGpu = 0; // torchtitan's tps; 0 for the others
};
struct TrainingLog {
    LaunchFramework framework = LaunchFramework::MegatronLm; // whose lines the log holds
    std::vector<LoggedStep> iterations; // in log order
    double maxAllocatedBytes = 0; // Megatron-LM, NeMo: the largest allocator peak of any report; 0 when none
    double maxReservedBytes = 0; // torchtitan: the largest max reserved; 0 when none
    int memoryReports = 0;
};
// `globalTokensPerStep` and `gpus` (the design's global batch x sequence and its GPU count) turn torchtitan's
// tokens per second per GPU into seconds per step; without them its steps have no seconds.
TrainingLog readTrainingLog(const std::string& text, double globalTokensPerStep = 0, int gpus = 0);

// A log against the engine's prediction for the design it ran: the median step time after `warmup` logged
// iterations (the first ones include CUDA graph capture, allocator growth and NCCL setup) and the largest
// allocator peak, each against the engine's range.
struct LogComparison {
    int iterationsUsed = 0; // logged iterations after the warm-up
    double measuredSeconds = 0; // their median
    double measuredLowSeconds = 0; // their fastest and slowest
    double measuredHighSeconds = 0;
    double predictedSeconds = 0;
    double predictedLowSeconds = 0;
    double predictedHighSeconds = 0;
    double stepError = 0; // predicted / measured - 1
    bool stepWithinRange = false;
    bool memoryIsReserved = false; // torchtitan's max reserved (allocated + the allocator's fragmentation)
    double measuredAllocatedBytes = 0; // 0 when the log has no memory report
    double predictedAllocatedBytes = 0; // the busiest stage's total less the CUDA context, NCCL and fragmentation
                                        // (with memoryIsReserved: less the context and NCCL only)
    double memoryError = 0; // predicted / measured - 1 (0 without a memory report)
    std::string summary; // the comparison in sentences
};
// Empty with `error` set when the log has no iteration after the warm-up.
std::optional<LogComparison> compareWithLog(
    const Report& predicted, const TrainingLog& log, int warmup, std::string& error);

// A design's log checked as `parallax-cli check-log` and File > Check Training Log do it: the design as the
// log's framework ran it (runAs; `changes` says what differs from the plan) evaluated and compared with the log. Empty
// with `error` set when the engine rejects that design or the log has no iteration after the warm-up.
struct LogCheck {
    std::string name; // the design's
    LaunchFramework framework = LaunchFramework::MegatronLm; // whose log it was
    Scenario run; // the design as that framework ran it, which the prediction is for
    std::vector<std::string> changes;
    LogComparison comparison;
    std::string text() const; // the name, the changes and the comparison's summary
};
std::optional<LogCheck> checkTrainingLog(
    const Scenario& design, const std::string& logText, int warmup, const EvaluateOptions& options, std::string& error);

// The allocator's view of the busiest stage (what torch.cuda.max_memory_allocated counts): its total less the
// CUDA context, NCCL's buffers and fragmentation.
double allocatorPeakBytes(const Report& r, int* stage = nullptr);
// The same with the allocator's fragmentation: what torch.cuda.max_memory_reserved counts.
double reservedPeakBytes(const Report& r, int* stage = nullptr);

} // namespace parallax::core
