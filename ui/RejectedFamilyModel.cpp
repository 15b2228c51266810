// SPDX-License-Identifier: Apache-2.0
#include "ui/RejectedFamilyModel.h"

#include "ui/Format.h"

namespace parallax::ui {

RejectedFamilyModel::RejectedFamilyModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void RejectedFamilyModel::setResult(std::shared_ptr<const core::SearchResult> result)
{
    beginResetModel();
    m_result = std::move(result);
    endResetModel();
}

const core::RejectedFamily* RejectedFamilyModel::family(int row) const
{
    if (!m_result || row < 0 || row >= static_cast<int>(m_result->rejected.size()))
        return nullptr;
    return &m_result->rejected[static_cast<std::size_t>(row)];
}

int RejectedFamilyModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_result ? 0 : static_cast<int>(m_result->rejected.size());
}

int RejectedFamilyModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RejectedFamilyModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const core::RejectedFamily& f = *family(index.row());
    const bool timed = f.fits && f.stepTimeSeconds > 0;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Family:
            return QString::fromStdString(f.family);
        case Configuration:
            return QString::fromStdString(core::describe(f.point));
        case StepTime:
            return timed ? format::seconds(f.stepTimeSeconds) : QStringLiteral("–");
        case PeakMemory:
            return format::bytes(f.peakMemoryBytes);
        case Fits:
            return f.fits ? QObject::tr("yes") : QObject::tr("no");
        case Reason:
            return QString::fromStdString(f.reason.brief.empty() ? f.reason.text : f.reason.brief);
        default:
            return {};
        }
    case ValueRole:
    case SortRole:
        switch (index.column()) {
        case Family: // the search's order (by dimension, then value), not the label's alphabet
            return role == SortRole ? QVariant(index.row()) : QVariant(QString::fromStdString(f.family));
        case Configuration:
            return QString::fromStdString(core::describe(f.point));
        case StepTime:
            return timed ? f.stepTimeSeconds : 1e300;
        case PeakMemory:
            return f.peakMemoryBytes;
        case Fits:
            return f.fits;
        case Reason:
            return QString::fromLatin1(core::toString(f.reason.kind));
        default:
            return {};
        }
    case ReasonKindRole:
        return static_cast<int>(f.reason.kind);
    case Qt::ToolTipRole:
        if (index.column() == Family) // the whole label (the column elides it) and the reason
            return QStringLiteral("%1\n%2").arg(
                QString::fromStdString(f.family), QString::fromStdString(f.reason.text));
        return index.column() == Reason ? QVariant(QString::fromStdString(f.reason.text)) : QVariant();
    case Qt::TextAlignmentRole:
        if (index.column() == StepTime || index.column() == PeakMemory)
            return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        return {};
    default:
        return {};
    }
}

QVariant RejectedFamilyModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        static const char* const kNames[]
            = { "Family", "Best of the family", "Step time", "Peak memory", "Fits", "Why it loses" };
        return QObject::tr(kNames[section]);
    }
    if (role == Qt::ToolTipRole) {
        static const char* const kTips[] = { "Every configuration with this value of one dimension",
            "Its best member when one fits, else its leanest", "Simulated step time of that member",
            "Its peak per-GPU memory", "Whether that member fits in HBM", "The one reason (hover for the full text)" };
        return QObject::tr(kTips[section]);
    }
    return {};
}

} // namespace parallax::ui
