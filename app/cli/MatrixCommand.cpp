// SPDX-License-Identifier: Apache-2.0
#include "CliArgs.h"
#include "Commands.h"
#include "TextFormat.h"

#include "core/io/PresetLibrary.h"
#include "core/search/DecisionMatrix.h"
#include "core/search/DecisionMatrixMarkdown.h"
#include "core/search/SearchJson.h"

#include <algorithm>
#include <iostream>

namespace parallax::cli {

namespace {
// The guide's matrix by default (core::DecisionMatrixSettings); the options give another cluster or rows.
core::DecisionMatrixSettings matrixSettings(const Args& args)
{
    core::DecisionMatrixSettings settings;
    if (args.has("models"))
        settings.models = args.list("models");
    if (args.has("gpu")) {
        settings.gpu = args.value("gpu");
        if (const auto gpu = core::PresetLibrary::instance().gpu(settings.gpu))
            settings.gpusPerNode = gpu->nvlinkDomainSize; // a GB200 NVL72 rack is one domain of 72
    }
    settings.gpusPerNode = args.integer("gpus-per-node", settings.gpusPerNode, 1, 1024);
    settings.nicGbps = args.number("nic-gbps", settings.nicGbps, 1, 1e5);
    if (args.has("gpu-counts")) {
        std::string bad;
        const auto counts = core::parseGpuCounts(args.value("gpu-counts"), bad);
        if (!counts)
            throw UsageError("--gpu-counts: \"" + bad + "\" is not a positive whole number of GPUs");
        settings.gpuCounts = *counts;
    }
    settings.globalBatch = args.integer("global-batch", settings.globalBatch, 1, 1 << 24);
    settings.seqLen = args.integer("seq-len", settings.seqLen, 16, 1 << 22);
    if (args.has("dtype") && !core::parseDType(args.value("dtype"), settings.dtype))
        throw UsageError("--dtype: expected bf16 or fp8, got \"" + args.value("dtype") + "\"");
    if (const auto problem = core::checkDecisionMatrixSettings(settings))
        throw UsageError("--" + problem->field + ": " + problem->text);
    return settings;
}
} // namespace

int runMatrix(const std::vector<std::string>& argv)
{
    const Args args(argv, { "json", "markdown" });
    args.allowOnly({ "json", "markdown", "calibration", "global-batch", "seq-len", "dtype", "models", "gpu-counts",
        "gpu", "gpus-per-node", "nic-gbps" });
    const auto calibration = calibrationFromArgs(args);
    const core::DecisionMatrixSettings settings = matrixSettings(args);
    const core::DecisionMatrix m = core::buildDecisionMatrix(settings, calibration ? &*calibration : nullptr);
    if (args.has("json")) {
        std::cout << core::decisionMatrixToJson(m).dump(2) << "\n";
        return kExitOk;
    }
    if (args.has("markdown")) {
        std::cout << core::decisionMatrixToMarkdown(m);
        return kExitOk;
    }
    const double tokens = static_cast<double>(settings.globalBatch) * settings.seqLen;
    const core::DecisionMatrixSettings guide;
    const bool guideBatch = settings.globalBatch == guide.globalBatch && settings.seqLen == guide.seqLen;
    std::cout << "Summary decision matrix (the table shared/guide/parallelism-decision-guide.txt announces)\n"
              << "  cluster  " << m.gpuName << " (" << gib(m.hbmBytes, 0) << "), NVLink domains of "
              << settings.gpusPerNode << ", " << settings.nicGbps << " Gb/s InfiniBand per GPU\n"
              << "  batch    " << settings.globalBatch << " sequences x " << settings.seqLen
              << " tokens = " << tokens / 1e6 << "M tokens per step, " << core::toString(settings.dtype)
              << (guideBatch ? " (Llama 3 405B's initial batch, arXiv:2407.21783 sec. 3.4.1)" : "") << "\n"
              << "  each cell: the best of every valid configuration (TP, CP, PP, v, DP, EP, ZeRO, micro-batch, "
                 "recompute, schedule), simulated\n\n";
    std::size_t nameWidth = 8;
    for (const auto& c : m.cells)
        nameWidth = std::max(nameWidth, c.modelName.size() + 2);
    std::cout << padRight("model", nameWidth) << padLeft("GPUs", 6) << "  " << padRight("recommended", 66)
              << padLeft("step", 10) << padLeft("MFU", 8) << padLeft("peak", 11) << "\n";
    for (const auto& c : m.cells) {
        std::cout << padRight(c.modelName, nameWidth) << padLeft(std::to_string(c.gpus), 6) << "  ";
        if (c.recommended && c.report)
            std::cout << padRight(core::describe(*c.recommended), 66)
                      << padLeft(duration(c.report->stepTimeSeconds), 10) << padLeft(percent(c.report->mfu), 8)
                      << padLeft(gib(c.report->peakMemoryBytes), 11)
                      << (c.report->memoryVerdict == core::MemoryVerdict::Tight ? "  tight" : "") << "\n";
        else
            std::cout << padRight("nothing fits", 66) << padLeft("-", 10) << padLeft("-", 8) << padLeft("-", 11)
                      << "\n";
        std::cout << "      why: " << c.why << "\n";
        if (!c.fix.text.empty())
            std::cout << "      fix: " << c.fix.text << "\n";
    }
    return kExitOk;
}

} // namespace parallax::cli
