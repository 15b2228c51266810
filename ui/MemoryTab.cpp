// SPDX-License-Identifier: Apache-2.0
#include "ui/MemoryTab.h"

#include "ui/Format.h"
#include "ui/MemoryChartWidget.h"
#include "ui/StageMemoryModel.h"
#include "ui/TableSupport.h"
#include "ui/Theme.h"

#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace parallax::ui {

MemoryTab::MemoryTab(QWidget* parent)
    : QWidget(parent)
    , m_summary(makeSummaryLabel(this))
    , m_chart(new MemoryChartWidget(this))
    , m_model(new StageMemoryModel(this))
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
    layout->addWidget(splitter, 1);
}

void MemoryTab::setEvaluation(const EvaluationPtr& evaluation)
{
    m_model->setEvaluation(evaluation);
    m_chart->setEvaluation(evaluation);
    const auto& r = evaluation->report;
    if (r.stages.empty()) {
        m_summary->setText(tr("No memory estimate: %1")
                               .arg(r.errors.empty() ? tr("the engine has not run yet")
                                                     : QString::fromStdString(r.errors.front().text).toHtmlEscaped()));
        return;
    }
    const bool over = r.hbmBytes > 0 && r.peakMemoryBytes > r.hbmBytes;
    QString text = tr("Peak <b>%1</b> per GPU on stage %2, of <b>%3</b> HBM (%4)")
                       .arg(format::bytes(r.peakMemoryBytes))
                       .arg(r.peakMemoryStage)
                       .arg(format::bytes(r.hbmBytes))
                       .arg(format::percent(r.hbmBytes > 0 ? r.peakMemoryBytes / r.hbmBytes : 0, 0));
    if (over)
        text += QStringLiteral(" · <span style='color:%1'><b>%2</b></span>")
                    .arg(theme::problemColor().name(),
                        tr("does not fit: over by %1").arg(format::bytes(r.peakMemoryBytes - r.hbmBytes)));
    else
        text += QStringLiteral(" · ") + tr("fits with %1 to spare").arg(format::bytes(r.hbmBytes - r.peakMemoryBytes));
    m_summary->setText(text);
}

} // namespace parallax::ui
