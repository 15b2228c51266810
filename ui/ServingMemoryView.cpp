// SPDX-License-Identifier: Apache-2.0
#include "ui/ServingMemoryView.h"

#include "ui/ConcurrencyChart.h"
#include "ui/ServingMemoryChart.h"
#include "ui/ServingMemoryModel.h"

#include <QHeaderView>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace parallax::ui {

ServingMemoryView::ServingMemoryView(QWidget* parent)
    : QWidget(parent)
    , m_memoryChart(new ServingMemoryChart(this))
    , m_model(new ServingMemoryModel(this))
    , m_table(new QTableView(this))
    , m_concurrency(new ConcurrencyChart(this))
{
    m_memoryChart->setObjectName(QStringLiteral("servingMemoryChart"));
    m_concurrency->setObjectName(QStringLiteral("concurrencyChart"));
    m_table->setObjectName(QStringLiteral("servingMemoryTable"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(m_memoryChart);
    splitter->addWidget(m_table);
    splitter->addWidget(m_concurrency);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 2);
    splitter->setStretchFactor(2, 4);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);
}

void ServingMemoryView::setEvaluation(const EvaluationPtr& evaluation)
{
    m_model->setEvaluation(evaluation);
    m_memoryChart->setEvaluation(evaluation);
    m_concurrency->setEvaluation(evaluation);
    m_table->resizeColumnsToContents();
}

} // namespace parallax::ui
