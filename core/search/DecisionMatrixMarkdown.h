// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/search/DecisionMatrix.h"

#include <string>

namespace parallax::core {

// A recommendation's figures in a cell: "12.3 s · MFU 41.2% · 71.3 GiB", "(tight)" when its memory range
// straddles the HBM.
std::string matrixCellFigures(const Report& report);
// A cell where nothing fits: "nothing fits: the leanest needs 150.0 GiB of 80.0 GiB".
std::string matrixNothingFits(const DecisionMatrixCell& cell, double hbmBytes);
// The changes that fit, each in a few words: "fits with fp8, or 128 GPUs" (FitFix::text has the full line).
std::string matrixBriefFix(const FitFix& fix);

// The matrix as a Markdown table for a review: a line on the cluster and batch, then one row per model and
// one column per GPU count; a cell not searched (a cancelled fill) says so.
std::string decisionMatrixToMarkdown(const DecisionMatrix& matrix);

} // namespace parallax::core
