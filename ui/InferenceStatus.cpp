// SPDX-License-Identifier: Apache-2.0
#include "ui/InferenceStatus.h"

#include "core/inference/InferenceMarkdown.h"
#include "core/memory/RangeText.h"
#include "ui/ChartStyle.h"
#include "ui/Format.h"
#include "ui/Theme.h"

#include <QObject>
#include <cmath>

namespace parallax::ui {

namespace {
QString rate(double tokensPerSecond) // "1,234", "148", "7.5"
{
    return tokensPerSecond >= 100 ? groupedCount(tokensPerSecond) : QString::number(tokensPerSecond, 'f', 1);
}
} // namespace

InferenceStatus inferenceStatus(const core::InferenceReport& r)
{
    InferenceStatus s;
    const QString requests
        = r.concurrency == 1 ? QObject::tr("1 request") : QObject::tr("%1 requests").arg(groupedCount(r.concurrency));
    const auto range = [](double seconds, double low, double high) {
        return QString::fromStdString(core::secondsRangeText(seconds, low, high)).toHtmlEscaped();
    };
    s.latency = QObject::tr("TTFT <b>%1</b> · TPOT <b>%2</b>")
                    .arg(range(r.ttftSeconds, r.ttftLowSeconds, r.ttftHighSeconds),
                        range(r.tpotSeconds, r.tpotLowSeconds, r.tpotHighSeconds));
    s.latencyTip
        = QObject::tr("TTFT: prefill of %1 input tokens alone (compute %2, communication %3). TPOT: one decode "
                      "step at %4 in flight (weights %5, KV cache %6, compute %7, TP %8, EP %9, "
                      "pipeline %10). Ranges: the engine's measured error on published serving runs")
              .arg(groupedCount(r.isl), format::seconds(r.prefillComputeSeconds), format::seconds(r.prefillCommSeconds),
                  requests, format::seconds(r.decode.weightsSeconds), format::seconds(r.decode.kvSeconds),
                  format::seconds(r.decode.computeSeconds), format::seconds(r.decode.tpSeconds),
                  format::seconds(r.decode.epSeconds), format::seconds(r.decode.ppSeconds));
    if (r.speculativeTokens > 0)
        s.latencyTip += QObject::tr(". %1: the step (drafting %2 of it) takes %3, TPOT is the step per token")
                            .arg(QString::fromStdString(core::describeSpeculation(r)),
                                format::seconds(r.decode.draftSeconds), format::seconds(r.decode.stepSeconds));
    s.throughput = QObject::tr("<b>%1</b> (%2-%3) tokens/s per GPU at %4")
                       .arg(rate(r.tokensPerSecondPerGpu), rate(r.tokensPerSecondPerGpuLow),
                           rate(r.tokensPerSecondPerGpuHigh), requests);
    s.throughputTip = QObject::tr("Output tokens per second per GPU, prefill included (decode steps alone: %1); %2")
                          .arg(rate(r.decodeTokensPerSecondPerGpu),
                              r.concurrencySolved ? QObject::tr("concurrency solved from the KV cache (\"max\")")
                                                  : QObject::tr("concurrency as set"));
    const QString verdict = QString::fromLatin1(core::toString(r.verdict));
    const QString text = QObject::tr("KV <b>%1</b> tokens · %2 requests of %3: %4")
                             .arg(groupedCount(std::floor(r.kvCapacityTokens)), groupedCount(r.maxConcurrency),
                                 groupedCount(r.contextLen), verdict);
    if (r.verdict == core::ServingVerdict::DoesNotFit)
        s.memory = QStringLiteral("<span style='color:%1'>%2 ✖</span>").arg(theme::problemColor().name(), text);
    else if (r.verdict == core::ServingVerdict::Tight)
        s.memory = QStringLiteral("<span style='color:%1'>%2 ⚠</span>").arg(theme::warningColor().name(), text);
    else
        s.memory = text;
    s.memoryTip = QString::fromStdString(r.verdictReason);
    return s;
}

} // namespace parallax::ui
