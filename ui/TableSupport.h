// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vector>

class QAbstractItemModel;
class QLabel;
class QTableView;
class QWidget;

namespace parallax::ui {

// A sortable, read-only table over `model` (through a proxy sorting on `sortRole`), rows selected whole.
QTableView* makeSortedTable(QWidget* parent, QAbstractItemModel* model, int sortRole);
// A column that gives way to the table's text column: as wide as its contents (and header), at most maxWidth,
// and narrower, down to minWidth, where the view is too narrow for the text column's minimum.
struct ElasticColumn {
    int column = 0;
    int minWidth = 0;
    int maxWidth = 0;
};
// Keeps the `text` column (the table's reasons, in Stretch mode) at least minTextWidth wide as the view is resized
// and the rows change: the elastic columns (set Interactive here) shrink first, the last of them first; the others
// keep their resize modes. Elided cells keep their whole text in their tooltips (the models' job).
void keepTextColumnInView(QTableView* table, std::vector<ElasticColumn> elastic, int text, int minTextWidth);
// A word-wrapped rich-text label for a tab's one-paragraph summary.
QLabel* makeSummaryLabel(QWidget* parent);

} // namespace parallax::ui
