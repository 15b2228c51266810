// SPDX-License-Identifier: Apache-2.0
#include "ui/ServingMemoryView.h"

#include "ui/ConcurrencyChart.h"
#include "ui/ServingMemoryChart.h"
#include "ui/ServingMemoryModel.h"

#include <QHeaderView>
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
    // Every row in view (the table is the bar's legend): header, 7 rows and the frame.
    m_table->setFixedHeight(m_table->horizontalHeader()->sizeHint().height()
        + ServingMemoryModel::RowCount * m_table->verticalHeader()->defaultSectionSize() + 2 * m_table->frameWidth());
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // The bar and its table keep their height; the concurrency chart takes the rest.
    m_memoryChart->setFixedHeight(120);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addWidget(m_memoryChart);
    layout->addWidget(m_table);
    layout->addWidget(m_concurrency, 1);
}

void ServingMemoryView::setEvaluation(const EvaluationPtr& evaluation)
{
    m_model->setEvaluation(evaluation);
    m_memoryChart->setEvaluation(evaluation);
    m_concurrency->setEvaluation(evaluation);
    m_table->resizeColumnsToContents();
}

} // namespace parallax::ui
