// SPDX-License-Identifier: Apache-2.0
#include "core/inference/InferenceMarkdown.h"

#include "core/memory/RangeText.h"
#include "core/report/ReportMarkdown.h"
#include "core/search/NumberText.h"

#include <sstream>

namespace parallax::core {

std::string describeServingConfiguration(const InferenceReport& r)
{
    const std::string dot = " · ";
    std::string text = "TP " + std::to_string(r.tp) + dot + "PP " + std::to_string(r.pp) + dot + "DP "
        + std::to_string(r.dp) + (r.dpAttention ? " (DP-attention)" : "") + dot + "EP " + std::to_string(r.ep);
    text += dot + "weights " + r.weightDtype + dot + "KV " + r.kvDtype + dot + "isl " + std::to_string(r.isl)
        + " + osl " + std::to_string(r.osl) + dot + "context " + std::to_string(r.contextLen);
    if (r.speculativeTokens > 0)
        text += dot + (r.speculativeMethod == "mtp" ? std::string("MTP") : drafterName(r)) + " drafts "
            + std::to_string(r.speculativeTokens);
    return text;
}

std::string drafterName(const InferenceReport& r)
{
    if (r.speculativeMethod == "draft_model")
        return r.draftModel;
    return r.speculativeMethod == "eagle3" ? "EAGLE-3 head" : "MTP module";
}

std::string describeSpeculation(const InferenceReport& r)
{
    if (r.speculativeTokens <= 0)
        return {};
    const std::string method = r.speculativeMethod == "draft_model" ? "draft-model (" + r.draftModel + ")"
        : r.speculativeMethod == "eagle3"                           ? std::string("EAGLE-3")
                                                                    : std::string("MTP");
    return method + " speculative decoding: " + std::to_string(r.speculativeTokens) + " draft token"
        + (r.speculativeTokens == 1 ? "" : "s") + " per step at acceptance " + fixedText(r.draftAcceptance, 2) + ", "
        + fixedText(r.decode.tokensPerStep, 2) + " tokens per step";
}

std::string inferenceToMarkdown(const InferenceReport& r)
{
    std::ostringstream out;
    out << "| Verdict | KV capacity | Max concurrency | TTFT | TPOT | Tokens/s per GPU |\n";
    out << "|:---:|---:|---:|---:|---:|---:|\n";
    out << "| " << toString(r.verdict) << " | " << fixedText(r.kvCapacityTokens, 0) << " tokens | " << r.maxConcurrency
        << " | " << secondsRangeText(r.ttftSeconds, r.ttftLowSeconds, r.ttftHighSeconds) << " | "
        << secondsRangeText(r.tpotSeconds, r.tpotLowSeconds, r.tpotHighSeconds) << " at " << r.concurrency << " | "
        << rateRangeText(r.tokensPerSecondPerGpu, r.tokensPerSecondPerGpuLow, r.tokensPerSecondPerGpuHigh) << " |\n\n";
    out << r.verdictReason << ".\n\n";
    out << "Ranges: the measured error of the engine on published serving runs (`parallax-cli validate "
           "--serving`).\n\n";
    const ServingMemory& m = r.memory;
    out << "## Memory per GPU\n\n";
    out << "| Weights | KV cache | Workspace | CUDA graphs | Context + NCCL | Reserve | HBM |\n";
    out << "|---:|---:|---:|---:|---:|---:|---:|\n";
    out << "| " << gibText(m.weightsBytes) << " | " << gibText(m.kvCacheBytes) << " | " << gibText(m.workspaceBytes)
        << " | " << gibText(m.cudaGraphBytes) << " | " << gibText(m.runtimeBytes) << " | " << gibText(m.reserveBytes)
        << " | " << gibText(m.hbmBytes, 0) << " |\n\n";
    out << "KV cache per token: " << fixedText(r.kvBytesPerToken, 0) << " B for the model, "
        << fixedText(r.kvBytesPerTokenPerGpu, 0) << " B per GPU; one request of " << r.contextLen << " tokens "
        << gibText(r.kvBytesPerRequestPerGpu) << " per GPU.\n\n";
    out << "## Decode step\n\n";
    out << "Weights " << formatSeconds(r.decode.weightsSeconds) << " + KV cache " << formatSeconds(r.decode.kvSeconds)
        << " + compute " << formatSeconds(r.decode.computeSeconds) << " + TP " << formatSeconds(r.decode.tpSeconds)
        << " + EP " << formatSeconds(r.decode.epSeconds) << " + PP " << formatSeconds(r.decode.ppSeconds);
    if (r.speculativeTokens > 0)
        out << " + drafts " << formatSeconds(r.decode.draftSeconds) << " = " << formatSeconds(r.decode.stepSeconds)
            << " per step. " << describeSpeculation(r) << ": TPOT is the step / "
            << fixedText(r.decode.tokensPerStep, 2) << ".\n\n";
    else
        out << ".\n\n";
    out << "| Concurrency | TPOT | Tokens/s per GPU |\n|---:|---:|---:|\n";
    for (const auto& p : r.sweep)
        out << "| " << p.concurrency << " | " << formatSeconds(p.tpotSeconds) << " | "
            << fixedText(p.tokensPerSecondPerGpu, 1) << " |\n";
    out << "\n";
    return out.str();
}

} // namespace parallax::core
