// SPDX-License-Identifier: Apache-2.0
#include "core/launch/MegatronLogReader.h"

#include "core/Units.h"
#include "core/launch/MegatronArgsWriter.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace parallax::core {

namespace {

// The number after `key` on `line` (past spaces), or nullopt.
std::optional<double> numberAfter(const std::string& line, const std::string& key)
{
    const std::size_t at = line.find(key);
    if (at == std::string::npos)
        return std::nullopt;
    const char* start = line.c_str() + at + key.size();
    char* end = nullptr;
    const double v = std::strtod(start, &end);
    if (end == start)
        return std::nullopt;
    return v;
}

std::string fixed(double v, int decimals)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string percent(double fraction)
{
    return fixed(100.0 * fraction, 1) + "%";
}

} // namespace

MegatronLog readMegatronLog(const std::string& text)
{
    MegatronLog log;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (const auto ms = numberAfter(line, "elapsed time per iteration (ms):")) {
            MegatronIteration it;
            it.seconds = *ms / 1e3;
            it.iteration = static_cast<int>(numberAfter(line, "iteration").value_or(0));
            it.tflopsPerGpu = numberAfter(line, "throughput per GPU (TFLOP/s/GPU):").value_or(0);
            if (it.seconds > 0)
                log.iterations.push_back(it);
        } else if (const auto s = numberAfter(line, "train_step_timing in s:")) {
            // NeMo 2.0's progress line (its Megatron-Core strategy): seconds, and with its memory monitor the
            // allocator's peak in bytes.
            MegatronIteration it;
            it.seconds = *s;
            it.iteration = static_cast<int>(numberAfter(line, "iteration").value_or(0));
            if (it.seconds > 0)
                log.iterations.push_back(it);
            if (const auto peak = numberAfter(line, "peak_memory_usage:")) {
                log.maxAllocatedBytes = std::max(log.maxAllocatedBytes, *peak);
                ++log.memoryReports;
            }
        } else if (line.find("memory (MB)") != std::string::npos) {
            if (const auto mb = numberAfter(line, "max allocated:")) {
                log.maxAllocatedBytes = std::max(log.maxAllocatedBytes, *mb * 1024.0 * 1024.0);
                ++log.memoryReports;
            }
        }
    }
    return log;
}

double allocatorPeakBytes(const Report& r, int* stage)
{
    double peak = 0;
    for (const StageMemory& st : r.stages) {
        if (st.totalBytes() - st.runtimeBytes > peak) {
            peak = st.totalBytes() - st.runtimeBytes;
            if (stage)
                *stage = st.stage;
        }
    }
    return peak;
}

std::optional<LogComparison> compareWithLog(
    const Report& predicted, const MegatronLog& log, int warmup, std::string& error)
{
    std::vector<double> times;
    for (std::size_t i = static_cast<std::size_t>(std::max(0, warmup)); i < log.iterations.size(); ++i)
        times.push_back(log.iterations[i].seconds);
    if (times.empty()) {
        error = log.iterations.empty()
            ? "the log has no \"elapsed time per iteration (ms)\" (or NeMo \"train_step_timing in s\") line: is it a "
              "Megatron-LM training log?"
            : "the log has " + std::to_string(log.iterations.size()) + " logged iterations, all within the warm-up of "
                + std::to_string(warmup) + ": run more iterations or lower --warmup";
        return std::nullopt;
    }
    LogComparison c;
    c.iterationsUsed = static_cast<int>(times.size());
    std::sort(times.begin(), times.end());
    const std::size_t n = times.size();
    c.measuredSeconds = n % 2 == 1 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
    c.measuredLowSeconds = times.front();
    c.measuredHighSeconds = times.back();
    c.predictedSeconds = predicted.stepTimeSeconds;
    c.predictedLowSeconds = predicted.stepTimeLowSeconds;
    c.predictedHighSeconds = predicted.stepTimeHighSeconds;
    c.stepError = c.predictedSeconds / c.measuredSeconds - 1.0;
    c.stepWithinRange = c.measuredSeconds >= c.predictedLowSeconds && c.measuredSeconds <= c.predictedHighSeconds;
    int stage = 0;
    c.predictedAllocatedBytes = allocatorPeakBytes(predicted, &stage);
    c.measuredAllocatedBytes = log.maxAllocatedBytes;
    if (c.measuredAllocatedBytes > 0)
        c.memoryError = c.predictedAllocatedBytes / c.measuredAllocatedBytes - 1.0;

    std::ostringstream o;
    o << "step time: measured " << fixed(c.measuredSeconds, 3) << " s (median of " << c.iterationsUsed
      << " logged iterations after " << warmup << " of warm-up; " << fixed(c.measuredLowSeconds, 3) << "-"
      << fixed(c.measuredHighSeconds, 3) << " s), predicted " << fixed(c.predictedSeconds, 3) << " s ("
      << fixed(c.predictedLowSeconds, 3) << "-" << fixed(c.predictedHighSeconds, 3) << " s): the engine is "
      << percent(std::abs(c.stepError)) << (c.stepError < 0 ? " fast" : " slow") << ", "
      << (c.stepWithinRange ? "within" : "outside") << " its range\n";
    if (c.measuredAllocatedBytes > 0)
        o << "memory: max allocated " << fixed(c.measuredAllocatedBytes / kGiB, 1) << " GiB (the largest of "
          << log.memoryReports << " memory reports), predicted " << fixed(c.predictedAllocatedBytes / kGiB, 1)
          << " GiB on pipeline stage " << stage << ": " << percent(std::abs(c.memoryError))
          << (c.memoryError < 0 ? " under" : " over") << "\n";
    else
        o << "memory: the log has no memory report (Megatron-LM prints one after the first logged iteration); "
             "predicted max allocated "
          << fixed(c.predictedAllocatedBytes / kGiB, 1) << " GiB on pipeline stage " << stage << "\n";
    c.summary = o.str();
    return c;
}

std::string LogCheck::text() const
{
    std::string out = name + "\n";
    for (const std::string& change : changes)
        out += "as Megatron-LM runs it: " + change + "\n";
    return out + comparison.summary;
}

std::optional<LogCheck> checkMegatronLog(
    const Scenario& design, const std::string& logText, int warmup, const EvaluateOptions& options, std::string& error)
{
    LogCheck check;
    check.name = design.name;
    const Scenario run = MegatronArgsWriter::asRun(design, check.changes);
    const Report report = evaluate(run, options);
    if (!report.valid) {
        error = "the engine rejects the design: "
            + (report.errors.empty() ? std::string("?")
                                     : report.errors.front().field + ": " + report.errors.front().text);
        return std::nullopt;
    }
    const auto c = compareWithLog(report, readMegatronLog(logText), warmup, error);
    if (!c)
        return std::nullopt;
    check.comparison = *c;
    return check;
}

} // namespace parallax::core
