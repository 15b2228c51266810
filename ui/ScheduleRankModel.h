// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/Evaluation.h"

#include <QAbstractTableModel>

namespace parallax::ui {

// The simulated pipeline schedule per pipeline rank (Report::schedule): busy time, bubble,
// peak in-flight micro-batches, op count.
class ScheduleRankModel : public QAbstractTableModel {
public:
    enum Columns { Rank = 0, Busy, Idle, Bubble, PeakInflight, Ops, ColumnCount };
    enum Roles { ValueRole = Qt::UserRole + 1, SortRole };

    explicit ScheduleRankModel(QObject* parent = nullptr);
    void setEvaluation(EvaluationPtr evaluation);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    double value(int rank, int column) const;
    EvaluationPtr m_evaluation;
    std::vector<int> m_opsPerRank;
};

} // namespace parallax::ui
