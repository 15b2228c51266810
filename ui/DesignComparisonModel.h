// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/Evaluation.h"

#include <QAbstractTableModel>
#include <optional>
#include <vector>

namespace parallax::ui {

// Two designs side by side, one row per figure: the step time and its parts, MFU, throughput, the
// peak and every pipeline stage's memory. A is the pinned design, B the one being edited; a row
// whose values differ by more than half a percent is marked (bold, and the difference colored by
// whether B is better or worse).
class DesignComparisonModel : public QAbstractTableModel {
public:
    enum Columns { Metric, A, B, Difference, ColumnCount };
    enum Roles { DiffersRole = Qt::UserRole + 1, BetterRole }; // BetterRole: +1 B better, -1 worse, 0 same

    explicit DesignComparisonModel(QObject* parent = nullptr);

    void setDesigns(EvaluationPtr a, EvaluationPtr b);
    const EvaluationPtr& designA() const { return m_a; }
    const EvaluationPtr& designB() const { return m_b; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The table as Markdown, differing rows in bold (the comparison's export).
    QString toMarkdown() const;
    // "B runs a step 14.4% faster than A (6.81 s vs 7.95 s)"; empty without two valid designs.
    QString verdict() const;
    static QString describeDesign(const Evaluation& e); // "TP8 SP PP8 v2 DP1 · 64 × H100 SXM"

private:
    enum class Unit { Seconds, Fraction, Bytes, TokensPerSecond };
    struct Row {
        QString metric;
        std::optional<double> a, b;
        Unit unit = Unit::Seconds;
        bool lowerIsBetter = true;
    };
    void rebuild();
    QString valueText(const Row& row, const std::optional<double>& v) const;
    bool differs(const Row& row) const;
    int better(const Row& row) const;
    QString differenceText(const Row& row) const;

    EvaluationPtr m_a;
    EvaluationPtr m_b;
    std::vector<Row> m_rows;
};

} // namespace parallax::ui
