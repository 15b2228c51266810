// SPDX-License-Identifier: Apache-2.0
#include "ui/CalibrationModel.h"

#include "ui/Format.h"

namespace parallax::ui {

CalibrationModel::CalibrationModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void CalibrationModel::setCalibration(std::shared_ptr<const core::Calibration> calibration, const core::GpuSpec& gpu)
{
    beginResetModel();
    m_calibration = std::move(calibration);
    m_rows.clear();
    if (m_calibration) {
        const core::Calibration& c = *m_calibration;
        auto add = [this](const QString& quantity, const QString& note, std::optional<double> measured,
                       double datasheet, bool flops) {
            if (measured && *measured > 0)
                m_rows.push_back({ quantity, note, *measured, datasheet, flops });
        };
        add(tr("bf16 GEMM, best shape"), tr("cuBLASLt, median; replaces the dense bf16 peak × default efficiency"),
            c.peakGemmFlopsPerSecond(core::DType::Bf16), gpu.bf16FlopsPerSecond, true);
        add(tr("fp8 GEMM, best shape"), tr("e4m3 inputs; used when the scenario trains in fp8"),
            c.peakGemmFlopsPerSecond(core::DType::Fp8), gpu.fp8FlopsPerSecond, true);
        add(tr("attention (score and context GEMMs)"), tr("compared with the dense bf16 peak"),
            c.attentionFlopsPerSecond, gpu.bf16FlopsPerSecond, true);
        add(tr("HBM, streaming kernel"), tr("bytes read + written; memory-bound work and the roofline"),
            c.hbmBytesPerSecond, gpu.hbmBytesPerSecond, false);
        add(tr("HBM, device-to-device copy"), tr("cudaMemcpy, bytes read + written (recorded, not used)"),
            c.deviceCopyBytesPerSecond, gpu.hbmBytesPerSecond, false);
        double allReduce = 0;
        for (const auto& p : c.collectives) {
            if (p.kind == core::CollectiveKind::AllReduce)
                allReduce = std::max(allReduce, p.busBytesPerSecond);
        }
        add(tr("NVLink all-reduce bus bandwidth, best size"),
            tr("NCCL, nccl-tests bus convention; replaces the NVLink per-direction bandwidth inside a domain"),
            allReduce > 0 ? std::optional<double>(allReduce) : std::nullopt, gpu.nvlinkBytesPerSecond, false);
        add(tr("NVLink GPU↔GPU copy, per direction"), tr("cudaMemcpyPeer, median over pairs (recorded, not used)"),
            c.peerBytesPerSecond, gpu.nvlinkBytesPerSecond, false);
        add(tr("host → device"), tr("pinned memory (recorded, not used)"), c.hostToDeviceBytesPerSecond, 0, false);
        add(tr("device → host"), tr("pinned memory (recorded, not used)"), c.deviceToHostBytesPerSecond, 0, false);
    }
    endResetModel();
}

int CalibrationModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int CalibrationModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CalibrationModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = m_rows[static_cast<std::size_t>(index.row())];
    const auto rate = [&row](double v) { return row.flops ? format::flopsPerSecond(v) : format::bytesPerSecond(v); };
    const double ratio = row.datasheet > 0 ? row.measured / row.datasheet : 0;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Quantity:
            return row.quantity;
        case Measured:
            return rate(row.measured);
        case Datasheet:
            return row.datasheet > 0 ? rate(row.datasheet) : QStringLiteral("–");
        case Ratio:
            return row.datasheet > 0 ? format::percent(ratio, 0) : QStringLiteral("–");
        default:
            return {};
        }
    case ValueRole:
        switch (index.column()) {
        case Quantity:
            return row.quantity;
        case Measured:
            return row.measured;
        case Datasheet:
            return row.datasheet;
        case Ratio:
            return ratio;
        default:
            return {};
        }
    case Qt::ToolTipRole:
        return row.note;
    case Qt::TextAlignmentRole:
        return index.column() == Quantity ? QVariant()
                                          : QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    default:
        return {};
    }
}

QVariant CalibrationModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        static const char* const kNames[] = { "Quantity", "Measured", "Datasheet", "Measured / datasheet" };
        return tr(kNames[section]);
    }
    if (role == Qt::ToolTipRole) {
        static const char* const kTips[] = { "What the probe measured", "Median over the timed repeats",
            "The scenario GPU's datasheet figure the engine uses without a calibration",
            "Achieved share of the datasheet figure" };
        return tr(kTips[section]);
    }
    return {};
}

} // namespace parallax::ui
