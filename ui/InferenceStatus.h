// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/report/Report.h"

#include <QString>

namespace parallax::ui {

// The status bar's three headline cells in inference mode, rich text with tooltips: latency (TTFT
// and TPOT), throughput (output tokens/s per GPU at the concurrency used) and memory (KV capacity,
// max concurrency and the verdict). The serving engine gives point estimates, no error range yet.
struct InferenceStatus {
    QString latency, latencyTip;
    QString throughput, throughputTip;
    QString memory, memoryTip;
};

InferenceStatus inferenceStatus(const core::InferenceReport& r);

} // namespace parallax::ui
