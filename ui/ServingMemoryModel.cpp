// SPDX-License-Identifier: Apache-2.0
#include "ui/ServingMemoryModel.h"

#include "core/inference/InferenceMarkdown.h"
#include "ui/ChartStyle.h"
#include "ui/Format.h"
#include "ui/Theme.h"
#include "ui/render/MemoryChartRenderer.h"

#include <QBrush>

namespace parallax::ui {

ServingMemoryModel::ServingMemoryModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void ServingMemoryModel::setEvaluation(const EvaluationPtr& evaluation)
{
    beginResetModel();
    m_report = evaluation->report.inference;
    endResetModel();
}

double ServingMemoryModel::bytes(int row) const
{
    if (!m_report)
        return 0;
    const core::ServingMemory& m = m_report->memory;
    switch (row) {
    case Weights:
        return m.weightsBytes;
    case KvCache:
        return m.kvCacheBytes;
    case Workspace:
        return m.workspaceBytes;
    case CudaGraphs:
        return m.cudaGraphBytes;
    case Runtime:
        return m.runtimeBytes;
    case Reserve:
        return m.reserveBytes;
    case Hbm:
        return m.hbmBytes;
    }
    return 0;
}

QString ServingMemoryModel::rowName(int row)
{
    switch (row) {
    case Weights:
        return tr("Weights");
    case KvCache:
        return tr("KV cache pool");
    case Workspace:
        return tr("Activation workspace");
    case CudaGraphs:
        return tr("CUDA graphs");
    case Runtime:
        return tr("CUDA context, comm buffers");
    case Reserve:
        return tr("Reserve");
    case Hbm:
        return tr("HBM");
    }
    return {};
}

QColor ServingMemoryModel::rowColor(int row, const QPalette& palette)
{
    Q_UNUSED(palette);
    using Chart = render::MemoryChartRenderer; // one set of colors for the screen and the exported chart
    switch (row) {
    case Weights:
        return Chart::componentColor(Chart::Kind::Serving, Chart::ServingWeights);
    case Workspace:
        return Chart::componentColor(Chart::Kind::Serving, Chart::Workspace);
    case CudaGraphs:
        return Chart::componentColor(Chart::Kind::Serving, Chart::CudaGraphs);
    case Runtime:
        return Chart::componentColor(Chart::Kind::Serving, Chart::Runtime);
    case KvCache:
        return Chart::componentColor(Chart::Kind::Serving, Chart::KvCache);
    case Reserve:
        return Chart::componentColor(Chart::Kind::Serving, Chart::Reserve);
    }
    return {};
}

QString ServingMemoryModel::detail(int row) const
{
    const core::InferenceReport& r = *m_report;
    switch (row) {
    case Weights: {
        QString text = tr("%1 linears; embeddings, LM head, norms in bf16; whole model %2")
                           .arg(QString::fromStdString(r.weightDtype), format::bytes(r.modelWeightsBytes));
        if (r.draftWeightsBytesPerGpu > 0)
            text += tr("; the drafter (%1) %2 per GPU of the last stage")
                        .arg(QString::fromStdString(core::drafterName(r)), format::bytes(r.draftWeightsBytesPerGpu));
        return text;
    }
    case KvCache:
        return r.memory.kvCacheBytes > 0
            ? tr("%1 KV, %2 B per token and %3 per request of %4 tokens on this GPU")
                  .arg(QString::fromStdString(r.kvDtype), groupedCount(r.kvBytesPerTokenPerGpu),
                      format::bytes(r.kvBytesPerRequestPerGpu), groupedCount(r.contextLen))
            : tr("nothing left: the rest is over the budget by %1").arg(format::bytes(-r.memory.kvCacheBytes));
    case Workspace:
        return tr("activations of the largest prefill chunk and the sampler's logits");
    case CudaGraphs:
        return tr("captured decode batch sizes");
    case Runtime:
        return tr("CUDA context, cuBLAS workspaces, NCCL buffers");
    case Reserve:
        return tr("1 − gpu_memory_utilization %1, left to the driver").arg(r.gpuMemoryUtilization, 0, 'f', 2);
    case Hbm:
        return tr("per GPU");
    }
    return {};
}

int ServingMemoryModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_report ? 0 : RowCount;
}

int ServingMemoryModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ServingMemoryModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_report)
        return {};
    const int row = index.row();
    const double b = bytes(row);
    const double hbm = m_report->memory.hbmBytes;
    if (role == BytesRole)
        return b;
    if (role == Qt::TextAlignmentRole && (index.column() == Bytes || index.column() == Share))
        return static_cast<int>(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::DecorationRole && index.column() == Component && row != Hbm)
        return rowColor(row, QPalette());
    if (role == Qt::ForegroundRole && row == KvCache && b <= 0)
        return QBrush(theme::problemColor());
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case Component:
        return rowName(row);
    case Bytes:
        return row == KvCache && b <= 0 ? tr("none") : format::bytes(b);
    case Share:
        return hbm > 0 && b > 0 ? format::percent(b / hbm) : QStringLiteral("–");
    case Detail:
        return detail(row);
    }
    return {};
}

QVariant ServingMemoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Component:
        return tr("Per GPU");
    case Bytes:
        return tr("Bytes");
    case Share:
        return tr("Of HBM");
    case Detail:
        return tr("What it is");
    }
    return {};
}

} // namespace parallax::ui
