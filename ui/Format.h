// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/parallel/ParallelConfig.h"

#include <QString>

// Numbers from the engine as people read them: every value with its unit.
namespace parallax::ui::format {

QString bytes(double bytes); // binary units as HBM is sized and the CLI prints ("71.3 GiB")
QString seconds(double seconds); // "12.4 s", "245 ms", "31 µs"
QString percent(double fraction, int decimals = 1); // 0.412 -> "41.2 %"
QString flopsPerSecond(double flops); // "989 TFLOP/s"
QString bytesPerSecond(double bytesPerSecond); // "450 GB/s"
QString count(double n); // parameters, tokens: "70.6 B", "1.2 M", "512"
QString plural(int n, const QString& singular, const QString& pluralForm); // "1 warning", "3 warnings"
QString number(double value, int significant = 3);
QString scheduleName(core::ScheduleKind kind); // "Interleaved 1F1B"
QString gpuShortName(const QString&
        name); // "NVIDIA B200 180GB (HGX/DGX B200)" -> "B200 180GB" // plain, no unit, trailing zeros trimmed

} // namespace parallax::ui::format
