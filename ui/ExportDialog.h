// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/ReportExport.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace parallax::ui {

// File > Export: which charts (Gantt, rank map, memory) in which format (SVG, PNG at a scale,
// PDF), the Chrome trace and the Markdown report, into a folder under one base name.
class ExportDialog : public QDialog {
public:
    ExportDialog(const ExportRequest& initial, QWidget* parent = nullptr);
    ExportRequest request() const;
    // Stays open with a message under the fields when the folder cannot be made (choices kept).
    void accept() override;
    QString folderError() const;

private:
    void updatePreview();

    QLineEdit* m_folder;
    QLineEdit* m_baseName;
    QCheckBox* m_gantt;
    QCheckBox* m_rankMap;
    QCheckBox* m_memory;
    QCheckBox* m_trace;
    QCheckBox* m_markdown;
    QComboBox* m_format;
    QDoubleSpinBox* m_scale;
    QComboBox* m_ganttRange;
    QSpinBox* m_firstMicrobatches;
    QLabel* m_error;
    QLabel* m_preview;
    bool m_serving = false;
};

} // namespace parallax::ui
