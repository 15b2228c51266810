// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/calibration/Calibration.h"
#include "core/cluster/GpuSpec.h"

#include <QAbstractTableModel>
#include <memory>
#include <vector>

namespace parallax::ui {

// A probe calibration beside the datasheet of the scenario's GPU: one row per measured quantity
// (bf16 / fp8 GEMM, attention, HBM, device copy, NVLink peer copy and all-reduce bus bandwidth,
// host <-> device), with the datasheet figure it replaces and their ratio.
class CalibrationModel : public QAbstractTableModel {
public:
    enum Columns { Quantity = 0, Measured, Datasheet, Ratio, ColumnCount };
    enum Roles { ValueRole = Qt::UserRole + 1 };

    explicit CalibrationModel(QObject* parent = nullptr);
    void setCalibration(std::shared_ptr<const core::Calibration> calibration, const core::GpuSpec& datasheet);
    const core::Calibration* calibration() const { return m_calibration.get(); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString quantity;
        QString note; // how it was measured, and what the engine does with it
        double measured = 0;
        double datasheet = 0; // 0: no datasheet figure
        bool flops = false; // FLOP/s, else bytes/s
    };
    std::shared_ptr<const core::Calibration> m_calibration;
    std::vector<Row> m_rows;
};

} // namespace parallax::ui
