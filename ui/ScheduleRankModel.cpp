// SPDX-License-Identifier: Apache-2.0
#include "ui/ScheduleRankModel.h"

#include "ui/Format.h"

namespace parallax::ui {

ScheduleRankModel::ScheduleRankModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void ScheduleRankModel::setEvaluation(EvaluationPtr evaluation)
{
    beginResetModel();
    m_evaluation = std::move(evaluation);
    m_opsPerRank.clear();
    if (m_evaluation) {
        const auto& sim = m_evaluation->report.schedule;
        m_opsPerRank.assign(sim.busySecondsPerRank.size(), 0);
        for (const auto& op : sim.ops) {
            if (op.rank >= 0 && op.rank < static_cast<int>(m_opsPerRank.size()))
                ++m_opsPerRank[static_cast<std::size_t>(op.rank)];
        }
    }
    endResetModel();
}

int ScheduleRankModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_evaluation
        ? 0
        : static_cast<int>(m_evaluation->report.schedule.busySecondsPerRank.size());
}

int ScheduleRankModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

double ScheduleRankModel::value(int rank, int column) const
{
    const auto& sim = m_evaluation->report.schedule;
    const auto at
        = [rank](const auto& v) { return rank < static_cast<int>(v.size()) ? v[static_cast<std::size_t>(rank)] : 0; };
    switch (column) {
    case Rank:
        return rank;
    case Busy:
        return at(sim.busySecondsPerRank);
    case Idle:
        return sim.makespan - at(sim.busySecondsPerRank);
    case Bubble:
        return at(sim.bubbleFractionPerRank);
    case PeakInflight:
        return at(sim.peakInflightChunks);
    case Ops:
        return at(m_opsPerRank);
    default:
        return 0;
    }
}

QVariant ScheduleRankModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_evaluation)
        return {};
    const double v = value(index.row(), index.column());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Busy:
        case Idle:
            return format::seconds(v);
        case Bubble:
            return format::percent(v);
        default:
            return static_cast<int>(v);
        }
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    case ValueRole:
    case SortRole:
        return v;
    default:
        return {};
    }
}

QVariant ScheduleRankModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        static const char* const kNames[] = { "Pipeline rank", "Busy", "Idle", "Bubble", "Peak in flight", "Ops" };
        return QObject::tr(kNames[section]);
    }
    if (role == Qt::ToolTipRole) {
        static const char* const kTips[] = { "Pipeline rank (stage)", "Time running ops in one step's pipeline",
            "Makespan minus busy time", "Idle share of the makespan on this rank",
            "Peak model chunks whose forward ran and whose backward has not (activations held)",
            "Ops (F, B, W) the rank runs per step" };
        return QObject::tr(kTips[section]);
    }
    return {};
}

} // namespace parallax::ui
