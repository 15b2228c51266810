// SPDX-License-Identifier: Apache-2.0
#include "ui/TableSupport.h"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>

#include <algorithm>

namespace parallax::ui {

QTableView* makeSortedTable(QWidget* parent, QAbstractItemModel* model, int sortRole)
{
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(sortRole);
    auto* table = new QTableView(parent);
    table->setModel(proxy);
    table->setSortingEnabled(true);
    table->sortByColumn(0, Qt::AscendingOrder);
    table->setAlternatingRowColors(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->verticalHeader()->setVisible(false);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table->horizontalHeader()->setMinimumSectionSize(60);
    return table;
}

namespace {

// Refits the elastic columns when the view is resized or its rows change.
class TextColumnKeeper : public QObject {
public:
    TextColumnKeeper(QTableView* table, std::vector<ElasticColumn> elastic, int text, int minTextWidth)
        : QObject(table)
        , m_table(table)
        , m_elastic(std::move(elastic))
        , m_text(text)
        , m_minTextWidth(minTextWidth)
    {
        for (const ElasticColumn& c : m_elastic)
            table->horizontalHeader()->setSectionResizeMode(c.column, QHeaderView::Interactive);
        table->viewport()->installEventFilter(this);
        QAbstractItemModel* model = table->model();
        connect(model, &QAbstractItemModel::modelReset, this, &TextColumnKeeper::fit);
        connect(model, &QAbstractItemModel::layoutChanged, this, &TextColumnKeeper::fit);
        connect(model, &QAbstractItemModel::rowsInserted, this, &TextColumnKeeper::fit);
        fit();
    }

    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::Resize)
            fit();
        return QObject::eventFilter(watched, event);
    }

private:
    int contentsWidth(int column) const
    {
        constexpr int kCellPadding = 16;
        constexpr int kRowsMeasured = 200;
        const QAbstractItemModel* model = m_table->model();
        const QFontMetrics metrics = m_table->fontMetrics();
        int width = m_table->horizontalHeader()->sectionSizeHint(column);
        for (int row = 0; row < std::min(model->rowCount(), kRowsMeasured); ++row)
            width = std::max(
                width, metrics.horizontalAdvance(model->index(row, column).data().toString()) + kCellPadding);
        return width;
    }

    void fit()
    {
        QHeaderView* header = m_table->horizontalHeader();
        int others = 0; // the columns that keep their own modes
        for (int column = 0; column < header->count(); ++column) {
            const bool elastic = std::any_of(
                m_elastic.begin(), m_elastic.end(), [column](const ElasticColumn& c) { return c.column == column; });
            if (!elastic && column != m_text && !header->isSectionHidden(column))
                others += header->sectionSize(column);
        }
        std::vector<int> widths;
        int total = 0;
        for (const ElasticColumn& c : m_elastic) {
            widths.push_back(std::clamp(contentsWidth(c.column), c.minWidth, std::max(c.minWidth, c.maxWidth)));
            total += widths.back();
        }
        int excess = total - (m_table->viewport()->width() - others - m_minTextWidth);
        for (std::size_t k = m_elastic.size(); k-- > 0 && excess > 0;) {
            const int give = std::min(excess, widths[k] - m_elastic[k].minWidth);
            widths[k] -= give;
            excess -= give;
        }
        for (std::size_t k = 0; k < m_elastic.size(); ++k)
            header->resizeSection(m_elastic[k].column, widths[k]);
    }

    QTableView* m_table;
    std::vector<ElasticColumn> m_elastic;
    int m_text;
    int m_minTextWidth;
};

} // namespace

void keepTextColumnInView(QTableView* table, std::vector<ElasticColumn> elastic, int text, int minTextWidth)
{
    new TextColumnKeeper(table, std::move(elastic), text, minTextWidth);
}

QLabel* makeSummaryLabel(QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setTextFormat(Qt::RichText);
    return label;
}

} // namespace parallax::ui
