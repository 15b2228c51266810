// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/search/ConfigSearch.h"

#include <QAbstractTableModel>
#include <memory>

namespace parallax::ui {

// Why the alternatives lose (core::SearchResult::rejected): one row per family of configurations
// ("pp=4"), its representative and the one reason. ToolTipRole on Reason is the full text.
class RejectedFamilyModel : public QAbstractTableModel {
public:
    enum Columns { Family = 0, Configuration, StepTime, PeakMemory, Fits, Reason, ColumnCount };
    enum Roles { ValueRole = Qt::UserRole + 1, SortRole, ReasonKindRole };

    explicit RejectedFamilyModel(QObject* parent = nullptr);
    void setResult(std::shared_ptr<const core::SearchResult> result);
    const core::RejectedFamily* family(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const core::SearchResult> m_result;
};

} // namespace parallax::ui
