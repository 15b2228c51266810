// SPDX-License-Identifier: Apache-2.0
#include "core/launch/TrainingLogReader.h"

#include "core/Units.h"

#include <algorithm>
#include <cctype>
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

// The line without its ANSI colour codes (ESC '[' ... 'm'), as torchtitan prints unless
// metrics.disable_color_printing is set.
std::string withoutColour(const std::string& line)
{
    std::string out;
    out.reserve(line.size());
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
            i += 2;
            while (i < line.size() && line[i] != 'm')
                ++i;
            continue;
        }
        out += line[i];
    }
    return out;
}

// torchtitan's "tps: 12,345": digits with thousands separators.
std::optional<double> groupedNumberAfter(const std::string& line, const std::string& key)
{
    const std::size_t at = line.find(key);
    if (at == std::string::npos)
        return std::nullopt;
    std::string digits;
    for (std::size_t i = at + key.size(); i < line.size(); ++i) {
        const char c = line[i];
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.')
            digits += c;
        else if (c != ',' && !(c == ' ' && digits.empty()))
            break;
    }
    if (digits.empty())
        return std::nullopt;
    return std::strtod(digits.c_str(), nullptr);
}

// A logged iteration number as an int: 0 where it is missing, not a number or beyond an int (a garbled line; the
// cast of such a double is undefined).
int iterationNumber(std::optional<double> n)
{
    return n && *n >= 0 && *n < 2e9 ? static_cast<int>(*n) : 0;
}

// torchtitan's metrics line: "step: N ... memory: X.XXGiB(..%) tps: N,NNN tflops: ... mfu: ..%".
void readTorchtitanStep(const std::string& raw, TrainingLog& log, double globalTokensPerStep, int gpus)
{
    if (raw.find("tps:") == std::string::npos)
        return;
    const std::string line = withoutColour(raw);
    const auto tps = groupedNumberAfter(line, "tps:");
    // Validation lines ("validate step:") measure evaluation, not training.
    if (line.find("step:") == std::string::npos || !tps || *tps <= 0
        || line.find("validate step:") != std::string::npos)
        return;
    LoggedStep step;
    step.iteration = iterationNumber(numberAfter(line, "step:"));
    step.tokensPerSecondPerGpu = *tps;
    step.tflopsPerGpu = groupedNumberAfter(line, "tflops:").value_or(0);
    // tps = the rank's tokens / (seconds x tp x cp x pp) (MetricsProcessor.log), so every GPU's tps together
    // is the global batch's tokens per second.
    if (globalTokensPerStep > 0 && gpus > 0)
        step.seconds = globalTokensPerStep / (*tps * gpus);
    log.iterations.push_back(step);
    log.framework = LaunchFramework::Torchtitan;
    if (const auto gib = numberAfter(line, "memory:")) {
        log.maxReservedBytes = std::max(log.maxReservedBytes, *gib * kGiB);
        ++log.memoryReports;
    }
}

} // namespace

TrainingLog readTrainingLog(const std::string& text, double globalTokensPerStep, int gpus)
{
    TrainingLog log;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (const auto ms = numberAfter(line, "elapsed time per iteration (ms):")) {
            LoggedStep it;
            it.seconds = *ms / 1e3;
            it.iteration = iterationNumber(numberAfter(line, "iteration"));
            it.tflopsPerGpu = numberAfter(line, "throughput per GPU (TFLOP/s/GPU):").value_or(0);
            if (it.seconds > 0)
                log.iterations.push_back(it);
        } else if (const auto s = numberAfter(line, "train_step_timing in s:")) {
            // NeMo 2.0's progress line (its Megatron-Core strategy): seconds, and with its memory monitor the
            // allocator's peak in bytes.
            LoggedStep it;
            it.seconds = *s;
            it.iteration = iterationNumber(numberAfter(line, "iteration"));
            if (it.seconds > 0) {
                log.iterations.push_back(it);
                log.framework = LaunchFramework::Nemo;
            }
            if (const auto peak = numberAfter(line, "peak_memory_usage:")) {
                log.maxAllocatedBytes = std::max(log.maxAllocatedBytes, *peak);
                ++log.memoryReports;
            }
        } else if (line.find("memory (MB)") != std::string::npos) {
            if (const auto mb = numberAfter(line, "max allocated:")) {
                log.maxAllocatedBytes = std::max(log.maxAllocatedBytes, *mb * 1024.0 * 1024.0);
                ++log.memoryReports;
            }
        } else {
            readTorchtitanStep(line, log, globalTokensPerStep, gpus);
        }
    }
    return log;
}

namespace {
double busiestStage(const Report& r, int* stage, bool withFragmentation)
{
    double peak = 0;
    for (const StageMemory& st : r.stages) {
        const double bytes = st.totalBytes() - st.runtimeBytes + (withFragmentation ? st.fragmentationBytes : 0.0);
        if (bytes > peak) {
            peak = bytes;
            if (stage)
                *stage = st.stage;
        }
    }
    return peak;
}
} // namespace

double allocatorPeakBytes(const Report& r, int* stage)
{
    return busiestStage(r, stage, false);
}

double reservedPeakBytes(const Report& r, int* stage)
{
    return busiestStage(r, stage, true);
}

std::optional<LogComparison> compareWithLog(
    const Report& predicted, const TrainingLog& log, int warmup, std::string& error)
{
    std::vector<double> times;
    for (std::size_t i = static_cast<std::size_t>(std::max(0, warmup)); i < log.iterations.size(); ++i) {
        if (log.iterations[i].seconds > 0)
            times.push_back(log.iterations[i].seconds);
    }
    if (times.empty()) {
        error = log.iterations.empty()
            ? "the log has no training step line (Megatron-LM's \"elapsed time per iteration (ms)\", NeMo's "
              "\"train_step_timing in s\" or torchtitan's \"tps\"): is it a training log?"
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
    c.memoryIsReserved = log.framework == LaunchFramework::Torchtitan;
    c.predictedAllocatedBytes
        = c.memoryIsReserved ? reservedPeakBytes(predicted, &stage) : allocatorPeakBytes(predicted, &stage);
    c.measuredAllocatedBytes = c.memoryIsReserved ? log.maxReservedBytes : log.maxAllocatedBytes;
    if (c.measuredAllocatedBytes > 0)
        c.memoryError = c.predictedAllocatedBytes / c.measuredAllocatedBytes - 1.0;

    std::ostringstream o;
    o << "step time: measured " << fixed(c.measuredSeconds, 3) << " s (median of " << c.iterationsUsed
      << " logged iterations after " << warmup << " of warm-up; " << fixed(c.measuredLowSeconds, 3) << "-"
      << fixed(c.measuredHighSeconds, 3) << " s), predicted " << fixed(c.predictedSeconds, 3) << " s ("
      << fixed(c.predictedLowSeconds, 3) << "-" << fixed(c.predictedHighSeconds, 3) << " s): the engine is "
      << percent(std::abs(c.stepError)) << (c.stepError < 0 ? " fast" : " slow") << ", "
      << (c.stepWithinRange ? "within" : "outside") << " its range\n";
    const char* counted = c.memoryIsReserved ? "max reserved " : "max allocated ";
    if (c.measuredAllocatedBytes > 0)
        o << "memory: " << counted << fixed(c.measuredAllocatedBytes / kGiB, 1) << " GiB (the largest of "
          << log.memoryReports << " memory reports), predicted " << fixed(c.predictedAllocatedBytes / kGiB, 1)
          << " GiB on pipeline stage " << stage << ": " << percent(std::abs(c.memoryError))
          << (c.memoryError < 0 ? " under" : " over") << "\n";
    else
        o << "memory: the log has no memory report (Megatron-LM prints one after the first logged iteration); "
             "predicted "
          << counted << fixed(c.predictedAllocatedBytes / kGiB, 1) << " GiB on pipeline stage " << stage << "\n";
    c.summary = o.str();
    return c;
}

std::string LogCheck::text() const
{
    std::string out = name + "\n";
    for (const std::string& change : changes)
        out += std::string("as ") + frameworkName(framework) + " runs it: " + change + "\n";
    return out + comparison.summary;
}

std::optional<LogCheck> checkTrainingLog(
    const Scenario& design, const std::string& logText, int warmup, const EvaluateOptions& options, std::string& error)
{
    LogCheck check;
    check.name = design.name;
    const TrainingLog log = readTrainingLog(
        logText, static_cast<double>(design.training.globalBatch) * design.seqLen(), design.topology.gpuCount());
    check.framework = log.framework;
    check.run = runAs(design, log.framework, check.changes);
    const Report report = evaluate(check.run, options);
    if (!report.valid) {
        error = "the engine rejects the design: "
            + (report.errors.empty() ? std::string("?")
                                     : report.errors.front().field + ": " + report.errors.front().text);
        return std::nullopt;
    }
    const auto c = compareWithLog(report, log, warmup, error);
    if (!c)
        return std::nullopt;
    check.comparison = *c;
    return check;
}

} // namespace parallax::core
