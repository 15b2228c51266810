// SPDX-License-Identifier: Apache-2.0
#include "ui/StageMemoryModel.h"

#include "ui/Format.h"
#include "ui/Theme.h"

#include <QBrush>
#include <QFont>

namespace parallax::ui {

StageMemoryModel::StageMemoryModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void StageMemoryModel::setEvaluation(EvaluationPtr evaluation)
{
    beginResetModel();
    m_evaluation = std::move(evaluation);
    endResetModel();
}

int StageMemoryModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_evaluation ? 0 : static_cast<int>(m_evaluation->report.stages.size());
}

int StageMemoryModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

double StageMemoryModel::value(const core::StageMemory& s, int column) const
{
    switch (column) {
    case Stage:
        return s.stage;
    case Layers:
        return s.layers;
    case Weights:
        return s.weightsBytes;
    case Gradients:
        return s.gradsBytes;
    case Optimizer:
        return s.optimizerBytes;
    case Activations:
        return s.activationsBytes;
    case Other:
        return s.otherBytes;
    case Total:
        return s.totalBytes();
    case Inflight:
        return s.inflightMicrobatches;
    case HbmShare:
        return s.hbmBytes > 0 ? s.totalBytes() / s.hbmBytes : 0.0;
    default:
        return 0;
    }
}

QVariant StageMemoryModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_evaluation)
        return {};
    const core::StageMemory& s = m_evaluation->report.stages[static_cast<std::size_t>(index.row())];
    const int column = index.column();
    const double v = value(s, column);
    const bool over = s.hbmBytes > 0 && s.totalBytes() > s.hbmBytes; // each stage's own GPUs (a mixed cluster)
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case Stage:
        case Layers:
            return static_cast<int>(v);
        case Inflight:
            return format::number(v, 3);
        case HbmShare:
            return format::percent(v, 0);
        default:
            return format::bytes(v);
        }
    case Qt::ToolTipRole:
        if (column >= Weights && column <= Total)
            return QObject::tr("%L1 bytes").arg(v, 0, 'f', 0);
        if (column == Inflight)
            return QObject::tr("Peak activations held, in micro-batches of one stage (from the simulated schedule)");
        if (column == HbmShare && over)
            return QObject::tr("Over the %1 of HBM by %2")
                .arg(format::bytes(s.hbmBytes), format::bytes(s.totalBytes() - s.hbmBytes));
        return {};
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        if (over && (column == Total || column == HbmShare))
            return QBrush(theme::problemColor());
        return {};
    case Qt::FontRole:
        if (column == Total) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case BytesRole:
    case SortRole:
        return v;
    case OverCapacityRole:
        return over;
    default:
        return {};
    }
}

QVariant StageMemoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        static const char* const kNames[] = { "Stage", "Layers", "Weights", "Gradients", "Optimizer", "Activations",
            "Other", "Total", "In flight", "of HBM" };
        return QObject::tr(kNames[section]);
    }
    if (role == Qt::ToolTipRole) {
        static const char* const kTips[]
            = { "Pipeline rank", "Transformer layers on this rank (all chunks)", "Parameters held by one GPU",
                  "Gradients held by one GPU", "Optimizer state held by one GPU (ZeRO shards it)",
                  "Peak stored activations", "CUDA context, NCCL buffers, fragmentation, logits", "Peak per GPU",
                  "Peak activations in micro-batches", "Peak as a share of the GPU's HBM" };
        return QObject::tr(kTips[section]);
    }
    return {};
}

} // namespace parallax::ui
