// SPDX-License-Identifier: Apache-2.0
#include "core/search/DecisionMatrixMarkdown.h"

#include "core/search/NumberText.h"
#include "core/search/SearchSpace.h"

#include <sstream>

namespace parallax::core {

namespace {
std::string escapeCell(std::string text)
{
    for (std::size_t at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2))
        text.replace(at, 1, "\\|");
    return text;
}
} // namespace

std::string matrixCellFigures(const Report& r)
{
    return secondsText(r.stepTimeSeconds) + " · MFU " + percentText(r.mfu) + " · " + gibText(r.peakMemoryBytes)
        + (r.memoryVerdict == MemoryVerdict::Tight ? " (tight)" : "");
}

std::string matrixNothingFits(const DecisionMatrixCell& c, double hbmBytes)
{
    return c.leanestPeakBytes > 0
        ? "nothing fits: the leanest needs " + gibText(c.leanestPeakBytes) + " of " + gibText(hbmBytes)
        : std::string("nothing fits");
}

std::string matrixBriefFix(const FitFix& fix)
{
    std::string parts;
    for (const FitChange& c : fix.changes) {
        std::string part;
        if (c.kind == "shorter-sequence")
            part = "seq_len " + std::to_string(c.seqLen);
        else if (c.kind == "fp8")
            part = "fp8";
        else if (c.kind == "cpu-offload")
            part = "the optimizer states in CPU memory";
        else if (c.kind == "more-gpus")
            part = std::to_string(c.gpus) + " GPUs";
        if (!part.empty())
            parts += (parts.empty() ? "" : ", or ") + part;
    }
    return parts.empty() ? std::string() : "fits with " + parts;
}

std::string decisionMatrixToMarkdown(const DecisionMatrix& m)
{
    const DecisionMatrixSettings& s = m.settings;
    std::ostringstream out;
    out << "Decision matrix: " << m.gpuName << " (" << gibText(m.hbmBytes) << "), NVLink domains of " << s.gpusPerNode
        << "; " << s.globalBatch << " sequences x " << s.seqLen << " tokens per step, " << toString(s.dtype)
        << ". Each cell is the best of every valid configuration, simulated by Parallax.\n\n| model |";
    for (int n : s.gpuCounts)
        out << " " << n << " GPUs |";
    out << "\n|---|";
    for (std::size_t c = 0; c < s.gpuCounts.size(); ++c)
        out << "---|";
    out << "\n";
    for (std::size_t r = 0; r < s.models.size(); ++r) {
        out << "| " << escapeCell(matrixRowName(m, r)) << " |";
        for (std::size_t c = 0; c < s.gpuCounts.size(); ++c) {
            std::string text = "not searched";
            if (const DecisionMatrixCell* cell = matrixCell(m, r, c))
                text = cell->recommended && cell->report
                    ? describe(*cell->recommended) + "<br>" + matrixCellFigures(*cell->report)
                    : matrixNothingFits(*cell, m.hbmBytes) + "<br>" + cell->fix.text;
            out << " " << escapeCell(text) << " |";
        }
        out << "\n";
    }
    return out.str();
}

} // namespace parallax::core
