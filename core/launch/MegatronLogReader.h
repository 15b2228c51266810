// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Engine.h"
#include "core/report/Report.h"

#include <optional>
#include <string>
#include <vector>

namespace parallax::core {

// What a Megatron-LM training log says about speed and memory (megatron/training/training.py training_log
// and report_memory, core_r0.14.0):
//   " [...] iteration       10/      20 | consumed samples: ... | elapsed time per iteration (ms): 70812.3 |
//     throughput per GPU (TFLOP/s/GPU): 446.1 | ..."
//   "[Rank 0] (after 1 iterations) memory (MB) | allocated: ... | max allocated: 51234.5 | reserved: ..."
// and NeMo 2.0's progress lines of the same runs (Megatron-Core under its MegatronStrategy):
//   "Training epoch 0, iteration 49/99 | ... | peak_memory_usage: 70833405952 | ... | train_step_timing in s: 12.39"
struct MegatronIteration {
    int iteration = 0;
    double seconds = 0; // elapsed time per iteration, averaged by Megatron over its log interval
    double tflopsPerGpu = 0; // 0 when not logged (--log-throughput)
};
struct MegatronLog {
    std::vector<MegatronIteration> iterations; // in log order
    double maxAllocatedBytes = 0; // the largest "max allocated" of any rank's memory report; 0 when none
    int memoryReports = 0;
};
MegatronLog readMegatronLog(const std::string& text);

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
    double measuredAllocatedBytes = 0; // 0 when the log has no memory report
    double predictedAllocatedBytes = 0; // the busiest stage's total less the CUDA context, NCCL and fragmentation
    double memoryError = 0; // predicted / measured - 1 (0 without a memory report)
    std::string summary; // the comparison in sentences
};
// Empty with `error` set when the log has no iteration after the warm-up.
std::optional<LogComparison> compareWithLog(
    const Report& predicted, const MegatronLog& log, int warmup, std::string& error);

// A design's log checked as `parallax-cli check-log` and File > Check Megatron-LM Log do it: the design as
// Megatron-LM ran it (MegatronArgsWriter::asRun; `changes` says what differs from the plan) evaluated and
// compared with the log. Empty with `error` set when the engine rejects that design or the log has no
// iteration after the warm-up.
struct LogCheck {
    std::string name; // the design's
    std::vector<std::string> changes;
    LogComparison comparison;
    std::string text() const; // the name, the changes and the comparison's summary
};
std::optional<LogCheck> checkMegatronLog(
    const Scenario& design, const std::string& logText, int warmup, const EvaluateOptions& options, std::string& error);

// The allocator's view of the busiest stage (what torch.cuda.max_memory_allocated counts): its total less the
// CUDA context, NCCL's buffers and fragmentation.
double allocatorPeakBytes(const Report& r, int* stage = nullptr);

} // namespace parallax::core
