// SPDX-License-Identifier: Apache-2.0
#include "InferenceTable.h"

#include "TextFormat.h"

#include "core/inference/InferenceMarkdown.h"
#include "core/memory/RangeText.h"

#include <cstdio>

namespace parallax::cli {

namespace {
std::string number(double v, int digits)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
    return buffer;
}

std::string layoutText(const core::InferenceReport& r)
{
    std::string s = "tp=" + std::to_string(r.tp) + " pp=" + std::to_string(r.pp) + " dp=" + std::to_string(r.dp)
        + " ep=" + std::to_string(r.ep);
    return r.dpAttention ? s + " (DP-attention)" : s;
}
} // namespace

void printInferenceReport(std::ostream& out, const core::Scenario& s, const core::Report& report)
{
    // The serving presets' names already say "Serving: ..."; a name that does not gets the prefix.
    out << (s.name.rfind("Serving", 0) == 0 ? "" : "Serving: ") << s.name << "\n";
    out << "  model    " << s.model.name << ": " << billions(report.paramsTotal) << " parameters ("
        << billions(report.paramsActive) << " active)\n";
    out << "  cluster  " << report.gpus << " x "
        << (s.topology.domains.empty() ? "" : s.topology.domains.front().gpu.name) << "\n";
    for (const auto& e : report.errors)
        out << "  error    " << e.field << ": " << e.text << "\n";
    if (!report.valid || !report.inference)
        return;
    const core::InferenceReport& r = *report.inference;
    out << "  layout   " << layoutText(r) << ", weights " << r.weightDtype << ", KV cache " << r.kvDtype << "\n";
    out << "  requests isl " << r.isl << " + osl " << r.osl << ", context " << r.contextLen << " tokens, "
        << (r.concurrencySolved ? "concurrency solved: " : "concurrency ") << r.concurrency << "\n";
    if (r.speculativeTokens > 0)
        out << "  decoding " << core::describeSpeculation(r) << "\n";
    out << "\n";
    const core::ServingMemory& m = r.memory;
    out << "Memory per GPU (" << gib(m.hbmBytes, 0) << " HBM, gpu_memory_utilization "
        << number(r.gpuMemoryUtilization, 2) << ")\n";
    out << "  weights          " << padLeft(gib(m.weightsBytes), 11) << "   (the model: " << gib(r.modelWeightsBytes);
    if (r.draftWeightsBytesPerGpu > 0)
        out << "; the "
            << (r.speculativeMethod == "mtp" ? std::string("MTP drafter") : "drafter (" + core::drafterName(r) + ")")
            << " " << gib(r.draftWeightsBytesPerGpu) << " per GPU" << (r.pp > 1 ? " of the last stage" : "");
    out << ")\n";
    out << "  workspace        " << padLeft(gib(m.workspaceBytes), 11) << "\n";
    out << "  CUDA graphs      " << padLeft(gib(m.cudaGraphBytes), 11) << "\n";
    out << "  context + NCCL   " << padLeft(gib(m.runtimeBytes), 11) << "\n";
    out << "  KV cache         " << padLeft(gib(m.kvCacheBytes), 11) << "\n";
    out << "  reserve          " << padLeft(gib(m.reserveBytes), 11) << "\n\n";
    out << "KV cache\n";
    out << "  per token        " << number(r.kvBytesPerToken, 0) << " B (model), " << number(r.kvBytesPerTokenPerGpu, 0)
        << " B per GPU\n";
    const double fullRequest = r.kvBytesPerTokenPerGpu * r.contextLen;
    out << "  per request      " << gib(r.kvBytesPerRequestPerGpu) << " per GPU at " << r.contextLen << " tokens";
    if (fullRequest > 0 && r.kvBytesPerRequestPerGpu < 0.999 * fullRequest)
        out << " (" << number(100.0 * r.kvBytesPerRequestPerGpu / fullRequest, 0)
            << "% of per token x context: windowed layers keep only their window)";
    out << "\n";
    out << "  capacity         " << number(r.kvCapacityTokens, 0) << " tokens, " << r.maxConcurrency << " requests of "
        << r.contextLen << "\n";
    out << "  verdict          " << core::toString(r.verdict) << ": " << r.verdictReason << "\n\n";
    out << "Time\n";
    out << "  TTFT             "
        << padLeft(core::secondsRangeText(r.ttftSeconds, r.ttftLowSeconds, r.ttftHighSeconds), 21) << "   (prefill of "
        << r.isl << " tokens, unloaded)\n";
    out << "  TPOT             "
        << padLeft(core::secondsRangeText(r.tpotSeconds, r.tpotLowSeconds, r.tpotHighSeconds), 21) << "   (weights "
        << duration(r.decode.weightsSeconds) << ", KV " << duration(r.decode.kvSeconds) << ", compute "
        << duration(r.decode.computeSeconds) << ", TP " << duration(r.decode.tpSeconds) << ", EP "
        << duration(r.decode.epSeconds) << ", PP " << duration(r.decode.ppSeconds);
    if (r.speculativeTokens > 0)
        out << ", drafts " << duration(r.decode.draftSeconds) << ": step " << duration(r.decode.stepSeconds) << " / "
            << number(r.decode.tokensPerStep, 2) << " tokens";
    out << ")\n";
    out << "  tokens/s per GPU "
        << padLeft(
               core::rateRangeText(r.tokensPerSecondPerGpu, r.tokensPerSecondPerGpuLow, r.tokensPerSecondPerGpuHigh),
               21)
        << "   (decode only " << number(r.decodeTokensPerSecondPerGpu, 1) << ")\n";
    out << "  ranges           measured error on published serving runs (parallax-cli validate --serving)\n\n";
    out << "  concurrency       TPOT   tokens/s/GPU\n";
    for (const auto& p : r.sweep)
        out << padLeft(std::to_string(p.concurrency), 13) << padLeft(duration(p.tpotSeconds), 11)
            << padLeft(number(p.tokensPerSecondPerGpu, 1), 15) << "\n";
    for (const auto& w : report.warnings)
        out << "\nwarning: " << w.field << ": " << w.text;
    for (const auto& n : report.notes)
        out << "\nnote: " << n.field << ": " << n.text;
    if (!report.warnings.empty() || !report.notes.empty())
        out << "\n";
}

} // namespace parallax::cli
