// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/Evaluation.h"

#include <QAbstractTableModel>

namespace parallax::ui {

// The engine's findings: errors first, then warnings, then notes; each names its field.
class MessageModel : public QAbstractTableModel {
public:
    enum Columns { Message = 0, Field, ColumnCount };
    enum Severity { Error = 0, Warning, Note };
    enum Roles { SeverityRole = Qt::UserRole + 1, FieldRole };

    explicit MessageModel(QObject* parent = nullptr);
    void setEvaluation(EvaluationPtr evaluation);
    int count(Severity severity) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        Severity severity;
        QString field;
        QString text;
    };
    std::vector<Row> m_rows;
};

} // namespace parallax::ui
