// SPDX-License-Identifier: Apache-2.0
#pragma once

class QAbstractItemModel;
class QLabel;
class QTableView;
class QWidget;

namespace parallax::ui {

// A sortable, read-only table over `model` (through a proxy sorting on `sortRole`), rows selected whole.
QTableView* makeSortedTable(QWidget* parent, QAbstractItemModel* model, int sortRole);
// A word-wrapped rich-text label for a tab's one-paragraph summary.
QLabel* makeSummaryLabel(QWidget* parent);

} // namespace parallax::ui
