// SPDX-License-Identifier: Apache-2.0
#include "ui/DesignComparisonModel.h"

#include "core/search/SearchSpace.h"
#include "ui/Format.h"
#include "ui/Theme.h"

#include <QFont>
#include <cmath>

namespace parallax::ui {

namespace {
constexpr double kDiffers = 0.005; // half a percent: below the engine's rounding in the tables
} // namespace

DesignComparisonModel::DesignComparisonModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

QString DesignComparisonModel::describeDesign(const Evaluation& e)
{
    const auto& t = e.scenario.topology;
    const QString gpu
        = t.domains.empty() ? QString() : format::gpuShortName(QString::fromStdString(t.domains.front().gpu.name));
    return QString::fromStdString(core::describe(core::pointOf(e.scenario)))
        + QStringLiteral(" · %1 × %2 · %3").arg(t.gpuCount()).arg(gpu, QString::fromStdString(e.scenario.model.name));
}

void DesignComparisonModel::setDesigns(EvaluationPtr a, EvaluationPtr b)
{
    beginResetModel();
    m_a = std::move(a);
    m_b = std::move(b);
    rebuild();
    endResetModel();
}

void DesignComparisonModel::rebuild()
{
    m_rows.clear();
    const core::Report* ra = m_a && m_a->report.valid ? &m_a->report : nullptr;
    const core::Report* rb = m_b && m_b->report.valid ? &m_b->report : nullptr;
    if (!ra && !rb)
        return;
    auto add = [&](const QString& metric, auto get, Unit unit, bool lowerIsBetter = true) {
        Row row { metric, ra ? std::optional<double>(get(*ra)) : std::nullopt,
            rb ? std::optional<double>(get(*rb)) : std::nullopt, unit, lowerIsBetter };
        m_rows.push_back(row);
    };
    using R = core::Report;
    add(
        tr("Step time"), [](const R& r) { return r.stepTimeSeconds; }, Unit::Seconds);
    add(
        tr("  compute (busiest rank)"), [](const R& r) { return r.step.computeSeconds; }, Unit::Seconds);
    add(
        tr("  pipeline bubble"), [](const R& r) { return r.step.bubbleSeconds; }, Unit::Seconds);
    add(
        tr("  data-parallel sync, exposed"), [](const R& r) { return r.step.dpExposedSeconds; }, Unit::Seconds);
    add(
        tr("  optimizer step"), [](const R& r) { return r.step.optimizerSeconds; }, Unit::Seconds);
    add(
        tr("TP communication"), [](const R& r) { return r.comm.tpSeconds; }, Unit::Seconds);
    add(
        tr("CP communication"), [](const R& r) { return r.comm.cpSeconds; }, Unit::Seconds);
    add(
        tr("EP all-to-all"), [](const R& r) { return r.comm.epSeconds; }, Unit::Seconds);
    add(
        tr("PP point-to-point"), [](const R& r) { return r.comm.ppSeconds; }, Unit::Seconds);
    add(
        tr("Bubble fraction"), [](const R& r) { return r.bubbleFraction; }, Unit::Fraction);
    add(
        tr("MFU"), [](const R& r) { return r.mfu; }, Unit::Fraction, false);
    add(
        tr("Tokens per second"), [](const R& r) { return r.tokensPerSecond; }, Unit::TokensPerSecond, false);
    add(
        tr("Peak memory per GPU"), [](const R& r) { return r.peakMemoryBytes; }, Unit::Bytes);
    const std::size_t stages = std::max(ra ? ra->stages.size() : 0, rb ? rb->stages.size() : 0);
    for (std::size_t s = 0; s < stages; ++s) {
        auto stageTotal = [s](const core::Report* r) -> std::optional<double> {
            if (!r || s >= r->stages.size())
                return std::nullopt;
            return r->stages[s].totalBytes();
        };
        m_rows.push_back({ tr("  memory, stage %1").arg(s), stageTotal(ra), stageTotal(rb), Unit::Bytes, true });
    }
}

int DesignComparisonModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int DesignComparisonModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString DesignComparisonModel::valueText(const Row& row, const std::optional<double>& v) const
{
    if (!v)
        return QStringLiteral("—");
    switch (row.unit) {
    case Unit::Seconds:
        return format::seconds(*v);
    case Unit::Fraction:
        return format::percent(*v);
    case Unit::Bytes:
        return format::bytes(*v);
    case Unit::TokensPerSecond:
        return format::count(*v);
    }
    return {};
}

bool DesignComparisonModel::differs(const Row& row) const
{
    if (!row.a || !row.b)
        return row.a.has_value() != row.b.has_value();
    const double scale = std::max(std::abs(*row.a), std::abs(*row.b));
    return scale > 0 && std::abs(*row.b - *row.a) > kDiffers * scale;
}

int DesignComparisonModel::better(const Row& row) const
{
    if (!row.a || !row.b || !differs(row))
        return 0;
    const bool lower = *row.b < *row.a;
    return lower == row.lowerIsBetter ? 1 : -1;
}

QString DesignComparisonModel::differenceText(const Row& row) const
{
    if (!row.a || !row.b)
        return row.a.has_value() != row.b.has_value()
            ? tr("only in %1").arg(row.a ? QStringLiteral("A") : QStringLiteral("B"))
            : QString();
    if (!differs(row))
        return tr("same");
    const QString delta = row.unit == Unit::Fraction
        ? tr("%1 points").arg((*row.b - *row.a) * 100, 0, 'f', 1)
        : (*row.a != 0 ? QStringLiteral("%1%2%")
                             .arg(*row.b >= *row.a ? QStringLiteral("+") : QString())
                             .arg((*row.b / *row.a - 1) * 100, 0, 'f', 1)
                       : valueText(row, *row.b - *row.a));
    return delta + QStringLiteral(" ") + (better(row) > 0 ? tr("(B better)") : tr("(B worse)"));
}

QVariant DesignComparisonModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= static_cast<int>(m_rows.size()))
        return {};
    const Row& row = m_rows[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Metric:
            return row.metric;
        case A:
            return valueText(row, row.a);
        case B:
            return valueText(row, row.b);
        case Difference:
            return differenceText(row);
        }
        return {};
    case Qt::FontRole:
        if (differs(row)) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ForegroundRole:
        if (index.column() == Difference && better(row) != 0)
            return better(row) > 0 ? theme::okColor() : theme::problemColor();
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == Metric ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                        : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case DiffersRole:
        return differs(row);
    case BetterRole:
        return better(row);
    }
    return {};
}

QVariant DesignComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return {};
    // Short on screen (the configurations are long); the tooltip names the design.
    const bool tip = role == Qt::ToolTipRole;
    switch (section) {
    case Metric:
        return tr("Figure");
    case A:
        return m_a ? (tip ? tr("A: %1").arg(describeDesign(*m_a)) : tr("A (pinned)")) : tr("A (pin a design)");
    case B:
        return m_b ? (tip ? tr("B: %1").arg(describeDesign(*m_b)) : tr("B (current)")) : tr("B (the current design)");
    case Difference:
        return tr("B vs A");
    }
    return {};
}

QString DesignComparisonModel::verdict() const
{
    if (m_rows.empty() || !m_rows.front().a || !m_rows.front().b)
        return {};
    const Row& step = m_rows.front();
    if (!differs(step))
        return tr("A and B run a step in the same time (%1).").arg(format::seconds(*step.a));
    const double ratio = *step.a / *step.b - 1;
    return ratio > 0 ? tr("B runs a step %1% faster than A (%2 vs %3).")
                           .arg(ratio * 100, 0, 'f', 1)
                           .arg(format::seconds(*step.b), format::seconds(*step.a))
                     : tr("B runs a step %1% slower than A (%2 vs %3).")
                           .arg(*step.b / *step.a * 100 - 100, 0, 'f', 1)
                           .arg(format::seconds(*step.b), format::seconds(*step.a));
}

QString DesignComparisonModel::toMarkdown() const
{
    QString md;
    for (int c = 0; c < ColumnCount; ++c)
        md += QStringLiteral("| ") + headerData(c, Qt::Horizontal).toString() + u' ';
    md += QStringLiteral("|\n|---|---:|---:|---|\n");
    for (int r = 0; r < rowCount(); ++r) {
        const bool bold = data(index(r, 0), DiffersRole).toBool();
        for (int c = 0; c < ColumnCount; ++c) {
            const QString cell = data(index(r, c)).toString().trimmed();
            md += QStringLiteral("| ") + (bold && !cell.isEmpty() ? QStringLiteral("**%1**").arg(cell) : cell) + u' ';
        }
        md += QStringLiteral("|\n");
    }
    return md;
}

} // namespace parallax::ui
