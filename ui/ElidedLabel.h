// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QLabel>

namespace parallax::ui {

// A one-line label that shows as much of its text as fits, ending in "…", and the whole text as its
// tooltip; it never widens its window (a toolbar at 1366 px keeps its other controls).
class ElidedLabel : public QLabel {
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget* parent = nullptr);
    void setFullText(const QString& text);
    QString fullText() const { return m_full; }
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void updateShown();
    QString m_full;
};

} // namespace parallax::ui
