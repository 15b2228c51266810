// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/search/ConfigSearch.h"

#include <QAbstractTableModel>
#include <memory>

namespace parallax::ui {

// The configurations a search ranked, best first (core::SearchResult::candidates): one row per
// candidate. DisplayRole is text with units; ValueRole the raw number; ToolTipRole the full reasons.
class CandidateModel : public QAbstractTableModel {
public:
    enum Columns { Rank = 0, Configuration, StepTime, Mfu, PeakMemory, Fits, Reasons, ColumnCount };
    enum Roles { ValueRole = Qt::UserRole + 1, SortRole };

    explicit CandidateModel(QObject* parent = nullptr);
    void setResult(std::shared_ptr<const core::SearchResult> result);
    const core::Candidate* candidate(int row) const; // null outside the rows

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const core::SearchResult> m_result;
};

} // namespace parallax::ui
