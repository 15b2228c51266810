// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/Evaluation.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QPalette>
#include <vector>

namespace parallax::ui {

// One serving GPU's HBM in inference mode (the fullest pipeline stage, InferenceReport::memory): what
// the serving engine loads, what it keeps free and the KV cache pool that is left, each with its bytes
// and share of HBM, then HBM itself.
class ServingMemoryModel : public QAbstractTableModel {
public:
    enum Column { Component, Bytes, Share, Detail, ColumnCount };
    enum Row { Weights, KvCache, Workspace, CudaGraphs, Runtime, Reserve, Hbm, RowCount };
    static constexpr int BytesRole = Qt::UserRole + 1; // the engine's bytes of the row, a double

    explicit ServingMemoryModel(QObject* parent = nullptr);
    void setEvaluation(const EvaluationPtr& evaluation);
    bool hasData() const { return m_report.has_value(); }
    double bytes(int row) const;
    static QString rowName(int row);
    static QColor rowColor(int row, const QPalette& palette); // the row's segment in ServingMemoryChart

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QString detail(int row) const;
    std::optional<core::InferenceReport> m_report;
};

} // namespace parallax::ui
