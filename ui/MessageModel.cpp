// SPDX-License-Identifier: Apache-2.0
#include "ui/MessageModel.h"

#include <QApplication>
#include <QIcon>
#include <QStyle>
#include <algorithm>

namespace parallax::ui {

MessageModel::MessageModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void MessageModel::setEvaluation(EvaluationPtr evaluation)
{
    beginResetModel();
    m_rows.clear();
    if (evaluation) {
        const auto add = [this](const std::vector<core::Message>& messages, Severity severity) {
            for (const auto& m : messages)
                m_rows.push_back({ severity, QString::fromStdString(m.field), QString::fromStdString(m.text) });
        };
        add(evaluation->report.errors, Error);
        add(evaluation->report.warnings, Warning);
        add(evaluation->report.notes, Note);
    }
    endResetModel();
}

int MessageModel::count(Severity severity) const
{
    return static_cast<int>(
        std::count_if(m_rows.begin(), m_rows.end(), [severity](const Row& r) { return r.severity == severity; }));
}

int MessageModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int MessageModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MessageModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = m_rows[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return index.column() == Message ? row.text : row.field;
    case Qt::ToolTipRole:
        return row.field.isEmpty() ? row.text : row.field + QStringLiteral(": ") + row.text;
    case Qt::DecorationRole:
        if (index.column() != Message)
            return {};
        switch (row.severity) {
        case Error:
            return qApp->style()->standardIcon(QStyle::SP_MessageBoxCritical);
        case Warning:
            return qApp->style()->standardIcon(QStyle::SP_MessageBoxWarning);
        case Note:
            return qApp->style()->standardIcon(QStyle::SP_MessageBoxInformation);
        }
        return {};
    case SeverityRole:
        return static_cast<int>(row.severity);
    case FieldRole:
        return row.field;
    default:
        return {};
    }
}

QVariant MessageModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= ColumnCount)
        return {};
    return section == Message ? QObject::tr("Message") : QObject::tr("Field");
}

} // namespace parallax::ui
