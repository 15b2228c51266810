// SPDX-License-Identifier: Apache-2.0
#include "ui/MemoryTab.h"

#include "ui/ChartStyle.h"
#include "ui/Format.h"
#include "ui/MemoryChartWidget.h"
#include "ui/ServingMemoryView.h"
#include "ui/StageMemoryModel.h"
#include "ui/TableSupport.h"
#include "ui/Theme.h"

#include <QLabel>
#include <QRegularExpression>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <cmath>

namespace parallax::ui {

MemoryTab::MemoryTab(QWidget* parent)
    : QWidget(parent)
    , m_summary(makeSummaryLabel(this))
    , m_chart(new MemoryChartWidget(this))
    , m_model(new StageMemoryModel(this))
    , m_body(new QStackedWidget(this))
    , m_serving(new ServingMemoryView(m_body))
{
    m_chart->setObjectName(QStringLiteral("memoryChart"));
    m_table = makeSortedTable(this, m_model, StageMemoryModel::SortRole);
    m_table->setObjectName(QStringLiteral("memoryTable"));
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(m_chart);
    splitter->addWidget(m_table);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    m_body->addWidget(splitter);
    m_body->addWidget(m_serving);
    layout->addWidget(m_body, 1);
}

bool MemoryTab::showsServing() const
{
    return m_body->currentWidget() == m_serving;
}

QString MemoryTab::summaryText() const
{
    QString t = m_summary->text();
    t.replace(QStringLiteral("<br>"), QStringLiteral("\n"));
    t.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
    return t;
}

namespace {
// One serving GPU's HBM and what the KV cache holds, from the engine (InferenceReport).
QString servingSummary(const core::InferenceReport& r)
{
    const core::ServingMemory& m = r.memory;
    const QString verdict = QString::fromLatin1(core::toString(r.verdict));
    const QColor color = r.verdict == core::ServingVerdict::DoesNotFit ? theme::problemColor()
        : r.verdict == core::ServingVerdict::Tight                     ? theme::warningColor()
                                                                       : theme::okColor();
    QString text = QObject::tr("Per GPU: weights <b>%1</b>, KV cache pool <b>%2</b>, workspace %3, CUDA graphs and "
                               "buffers %4, reserve %5, of <b>%6</b> HBM · <span style='color:%7'><b>%8</b></span>: %9")
                       .arg(format::bytes(m.weightsBytes),
                           m.kvCacheBytes > 0 ? format::bytes(m.kvCacheBytes) : QObject::tr("none"),
                           format::bytes(m.workspaceBytes), format::bytes(m.cudaGraphBytes + m.runtimeBytes),
                           format::bytes(m.reserveBytes), format::bytes(m.hbmBytes), color.name(), verdict,
                           QString::fromStdString(r.verdictReason).toHtmlEscaped());
    text += QStringLiteral("<br>")
        + QObject::tr("KV capacity <b>%1 tokens</b> (%2 per replica) · max concurrency <b>%3 requests</b> of %4 tokens "
                      "· KV %5 B per token (%6 B on one GPU), %7 per request on one GPU")
              .arg(groupedCount(std::floor(r.kvCapacityTokens)), groupedCount(std::floor(r.kvCapacityTokensPerReplica)),
                  groupedCount(r.maxConcurrency), groupedCount(r.contextLen), groupedCount(r.kvBytesPerToken),
                  groupedCount(r.kvBytesPerTokenPerGpu), format::bytes(r.kvBytesPerRequestPerGpu));
    return text;
}
} // namespace

void MemoryTab::setEvaluation(const EvaluationPtr& evaluation)
{
    const auto& r = evaluation->report;
    if (evaluation->scenario.mode == core::ScenarioMode::Inference) {
        m_body->setCurrentWidget(m_serving);
        m_serving->setEvaluation(evaluation);
        if (r.inference)
            m_summary->setText(servingSummary(*r.inference));
        else
            m_summary->setText(
                tr("No serving estimate: %1")
                    .arg(r.errors.empty() ? tr("the engine has not run yet")
                                          : QString::fromStdString(r.errors.front().text).toHtmlEscaped()));
        return;
    }
    m_body->setCurrentIndex(0);
    m_model->setEvaluation(evaluation);
    m_chart->setEvaluation(evaluation);
    if (r.stages.empty()) {
        m_summary->setText(tr("No memory estimate: %1")
                               .arg(r.errors.empty() ? tr("the engine has not run yet")
                                                     : QString::fromStdString(r.errors.front().text).toHtmlEscaped()));
        return;
    }
    QString text = tr("Peak <b>%1</b> (%2-%3) per GPU on stage %4, of <b>%5</b> HBM (%6)")
                       .arg(format::bytes(r.peakMemoryBytes), format::bytes(r.peakMemoryLowBytes),
                           format::bytes(r.peakMemoryHighBytes))
                       .arg(r.peakMemoryStage)
                       .arg(format::bytes(r.hbmBytes))
                       .arg(format::percent(r.hbmBytes > 0 ? r.peakMemoryBytes / r.hbmBytes : 0, 0));
    // The verdict the engine gives from its measured error (core/memory/PredictionBands.cpp), not the point.
    if (r.memoryVerdict == core::MemoryVerdict::DoesNotFit)
        text += QStringLiteral(" · <span style='color:%1'><b>%2</b></span>")
                    .arg(theme::problemColor().name(),
                        tr("does not fit: over by %1 even at the low end")
                            .arg(format::bytes(r.peakMemoryLowBytes - r.hbmBytes)));
    else if (r.memoryVerdict == core::MemoryVerdict::Tight)
        text += QStringLiteral(" · <span style='color:%1'><b>%2</b></span>")
                    .arg(theme::warningColor().name(), tr("tight: the range straddles HBM"));
    else
        text += QStringLiteral(" · ")
            + tr("fits with %1 to spare at the high end").arg(format::bytes(r.hbmBytes - r.peakMemoryHighBytes));
    m_summary->setText(text);
}

} // namespace parallax::ui
