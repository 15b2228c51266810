// SPDX-License-Identifier: Apache-2.0
#include "ui/CandidateModel.h"

#include "ui/Format.h"

#include <QStringList>

namespace parallax::ui {

namespace {
QString reasonLines(const std::vector<core::Reason>& reasons, bool brief)
{
    QStringList lines;
    for (const core::Reason& r : reasons)
        lines << QString::fromStdString(brief && !r.brief.empty() ? r.brief : r.text);
    return lines.join(brief ? QStringLiteral("; ") : QStringLiteral("\n"));
}
} // namespace

CandidateModel::CandidateModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void CandidateModel::setResult(std::shared_ptr<const core::SearchResult> result)
{
    beginResetModel();
    m_result = std::move(result);
    endResetModel();
}

const core::Candidate* CandidateModel::candidate(int row) const
{
    if (!m_result || row < 0 || row >= static_cast<int>(m_result->candidates.size()))
        return nullptr;
    return &m_result->candidates[static_cast<std::size_t>(row)];
}

int CandidateModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_result ? 0 : static_cast<int>(m_result->candidates.size());
}

int CandidateModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CandidateModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const core::Candidate& c = *candidate(index.row());
    const core::Report& r = c.report;
    const double spare = m_result->hbmBytes - r.peakMemoryBytes;
    if (role == ValueRole || role == SortRole) {
        switch (index.column()) {
        case Rank:
            return index.row() + 1;
        case Configuration:
            return QString::fromStdString(core::describe(c.point));
        case StepTime:
            return r.stepTimeSeconds;
        case Mfu:
            return r.mfu;
        case PeakMemory:
            return r.peakMemoryBytes;
        case Fits:
            return spare;
        case Reasons:
            return reasonLines(c.reasons, true);
        default:
            return {};
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Rank:
            return index.row() + 1;
        case Configuration:
            return QString::fromStdString(core::describe(c.point));
        case StepTime:
            return format::seconds(r.stepTimeSeconds);
        case Mfu:
            return format::percent(r.mfu);
        case PeakMemory:
            return format::bytes(r.peakMemoryBytes);
        case Fits:
            return QObject::tr("yes, %1 spare").arg(format::bytes(spare));
        case Reasons:
            return reasonLines(c.reasons, true);
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        if (index.column() == Configuration)
            return QString(QString::fromStdString(core::describe(c.point)) + u'\n' + reasonLines(c.reasons, false));
        if (index.column() == Reasons)
            return reasonLines(c.reasons, false);
        if (index.column() == PeakMemory)
            return QObject::tr("Peak per GPU on stage %1 of %2 HBM")
                .arg(r.peakMemoryStage)
                .arg(format::bytes(m_result->hbmBytes));
        return {};
    }
    if (role == Qt::TextAlignmentRole && index.column() != Configuration && index.column() != Reasons)
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    return {};
}

QVariant CandidateModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        static const char* const kNames[] = { "#", "Configuration", "Step time", "MFU", "Peak memory", "Fits", "Why" };
        return QObject::tr(kNames[section]);
    }
    if (role == Qt::ToolTipRole) {
        static const char* const kTips[] = { "Rank by simulated step time (ties: less memory)",
            "Parallel degrees and knobs", "Simulated time of one optimizer step", "Model FLOPs utilization",
            "Peak per-GPU memory over the pipeline stages", "HBM left on the fullest GPU",
            "Why it ranks where it does (hover for the full text)" };
        return QObject::tr(kTips[section]);
    }
    return {};
}

} // namespace parallax::ui
