// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/Evaluation.h"

#include <QAbstractTableModel>

namespace parallax::ui {

// Per-GPU memory of each pipeline stage (Report::stages), one row per stage. DisplayRole is the
// formatted text; BytesRole the raw number (charts map that one).
class StageMemoryModel : public QAbstractTableModel {
public:
    enum Columns {
        Stage = 0,
        Layers,
        Weights,
        Gradients,
        Optimizer,
        Activations,
        Other,
        Total,
        Inflight,
        HbmShare,
        ColumnCount
    };
    enum Roles { BytesRole = Qt::UserRole + 1, SortRole, OverCapacityRole };

    explicit StageMemoryModel(QObject* parent = nullptr);
    void setEvaluation(EvaluationPtr evaluation);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    double value(const core::StageMemory& s, int column) const;
    EvaluationPtr m_evaluation;
};

} // namespace parallax::ui
