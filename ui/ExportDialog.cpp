// SPDX-License-Identifier: Apache-2.0
#include "ui/ExportDialog.h"

#include "ui/Theme.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace parallax::ui {

ExportDialog::ExportDialog(const ExportRequest& initial, QWidget* parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Export"));
    m_folder = new QLineEdit(QDir::toNativeSeparators(initial.folder), this);
    auto* browse = new QPushButton(tr("Browse…"), this);
    auto* folderRow = new QHBoxLayout;
    folderRow->addWidget(m_folder, 1);
    folderRow->addWidget(browse);
    m_baseName = new QLineEdit(initial.baseName, this);

    m_gantt
        = new QCheckBox(tr("Pipeline schedule (Gantt, as on the Schedule tab: one schedule or the comparison)"), this);
    m_rankMap = new QCheckBox(tr("Rank map (the dimension and coloring of the Rank map tab)"), this);
    m_memory = new QCheckBox(tr("Memory per GPU (stacked bars with the HBM line)"), this);
    m_ganttRange = new QComboBox(this);
    m_ganttRange->setObjectName(QStringLiteral("ganttRange"));
    m_ganttRange->addItem(
        tr("Visible range (the Schedule tab's zoom)"), static_cast<int>(ExportRequest::GanttRange::Visible));
    m_ganttRange->addItem(tr("Whole step"), static_cast<int>(ExportRequest::GanttRange::WholeStep));
    m_ganttRange->addItem(tr("First micro-batches"), static_cast<int>(ExportRequest::GanttRange::FirstMicrobatches));
    m_ganttRange->setCurrentIndex(m_ganttRange->findData(static_cast<int>(initial.ganttRange)));
    m_firstMicrobatches = new QSpinBox(this);
    m_firstMicrobatches->setRange(1, 1 << 20);
    m_firstMicrobatches->setValue(initial.firstMicrobatches);
    m_firstMicrobatches->setToolTip(tr("From the start of the step to the end of these micro-batches' last op"));
    auto* rangeRow = new QHBoxLayout;
    rangeRow->addWidget(m_ganttRange, 1);
    rangeRow->addWidget(m_firstMicrobatches);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("exportError"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: %1").arg(theme::problemColor().name()));
    m_error->setVisible(false);
    m_format = new QComboBox(this);
    m_format->addItem(
        tr("SVG (vector, one titled element per op and GPU)"), static_cast<int>(render::ExportFormat::Svg));
    m_format->addItem(tr("PNG (bitmap)"), static_cast<int>(render::ExportFormat::Png));
    m_format->addItem(tr("PDF (vector, one page)"), static_cast<int>(render::ExportFormat::Pdf));
    m_format->setCurrentIndex(m_format->findData(static_cast<int>(initial.format)));
    m_scale = new QDoubleSpinBox(this);
    m_scale->setRange(0.25, 8);
    m_scale->setSingleStep(0.5);
    m_scale->setDecimals(2);
    m_scale->setSuffix(QStringLiteral("×"));
    m_scale->setValue(initial.scale);
    m_scale->setToolTip(tr("PNG pixels per logical pixel: 2 for a crisp slide"));
    m_trace = new QCheckBox(tr("Chrome trace JSON of the timeline (opens in Perfetto)"), this);
    m_markdown
        = new QCheckBox(tr("Markdown report (headline numbers, memory table, reasons; embeds the pictures)"), this);
    m_serving = initial.serving;
    m_gantt->setChecked(initial.gantt && !m_serving);
    m_rankMap->setChecked(initial.rankMap);
    m_memory->setChecked(initial.memory);
    m_trace->setChecked(initial.trace && !m_serving);
    if (m_serving) {
        const QString why = tr("A serving design has no training step to draw");
        for (QCheckBox* box : { m_gantt, m_trace }) {
            box->setEnabled(false);
            box->setToolTip(why);
        }
        m_gantt->setText(tr("Pipeline schedule (none: a serving design has no training step)"));
        m_trace->setText(tr("Chrome trace JSON (none: a serving design has no training step)"));
        m_memory->setText(tr("Memory of the fullest GPU (weights, KV cache pool and reserve against the HBM)"));
    }
    m_markdown->setChecked(initial.markdown);
    m_preview = new QLabel(this);
    m_preview->setWordWrap(true);
    m_preview->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* form = new QFormLayout;
    form->addRow(tr("Folder:"), folderRow);
    form->addRow(tr("Base name:"), m_baseName);
    form->addRow(tr("Charts:"), m_gantt);
    form->addRow(QString(), m_rankMap);
    form->addRow(QString(), m_memory);
    form->addRow(tr("Gantt shows:"), rangeRow);
    form->addRow(tr("Chart format:"), m_format);
    form->addRow(tr("PNG scale:"), m_scale);
    form->addRow(tr("Also:"), m_trace);
    form->addRow(QString(), m_markdown);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Export"));
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_preview);
    layout->addWidget(m_error);
    layout->addWidget(buttons);

    connect(buttons, &QDialogButtonBox::accepted, this, &ExportDialog::accept);
    connect(m_ganttRange, &QComboBox::currentIndexChanged, this, &ExportDialog::updatePreview);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Export into"), m_folder->text());
        if (!dir.isEmpty())
            m_folder->setText(QDir::toNativeSeparators(dir));
    });
    for (QCheckBox* box : { m_gantt, m_rankMap, m_memory, m_trace, m_markdown })
        connect(box, &QCheckBox::toggled, this, &ExportDialog::updatePreview);
    connect(m_format, &QComboBox::currentIndexChanged, this, &ExportDialog::updatePreview);
    connect(m_folder, &QLineEdit::textChanged, this, &ExportDialog::updatePreview);
    connect(m_baseName, &QLineEdit::textChanged, this, &ExportDialog::updatePreview);
    updatePreview();
    resize(640, sizeHint().height());
}

ExportRequest ExportDialog::request() const
{
    ExportRequest r;
    r.folder = QDir::fromNativeSeparators(m_folder->text().trimmed());
    r.baseName = m_baseName->text().trimmed().isEmpty() ? QStringLiteral("parallax") : m_baseName->text().trimmed();
    r.gantt = m_gantt->isChecked();
    r.rankMap = m_rankMap->isChecked();
    r.memory = m_memory->isChecked();
    r.trace = m_trace->isChecked();
    r.markdown = m_markdown->isChecked();
    r.format = static_cast<render::ExportFormat>(m_format->currentData().toInt());
    r.scale = m_scale->value();
    r.ganttRange = static_cast<ExportRequest::GanttRange>(m_ganttRange->currentData().toInt());
    r.firstMicrobatches = m_firstMicrobatches->value();
    r.serving = m_serving;
    return r;
}

QString ExportDialog::folderError() const
{
    const QString folder = request().folder;
    if (folder.isEmpty())
        return tr("Choose a folder to export into.");
    if (!QFileInfo(folder).isDir())
        return tr("The folder %1 does not exist: create it or choose another folder.")
            .arg(QDir::toNativeSeparators(folder));
    return {};
}

void ExportDialog::accept()
{
    const QString error = folderError();
    m_error->setText(error);
    m_error->setVisible(!error.isEmpty());
    if (error.isEmpty())
        QDialog::accept();
}

void ExportDialog::updatePreview()
{
    const ExportRequest r = request();
    const QString ext = m_format->currentIndex() == 1 ? QStringLiteral("png")
        : m_format->currentIndex() == 2               ? QStringLiteral("pdf")
                                                      : QStringLiteral("svg");
    m_scale->setEnabled(r.format == render::ExportFormat::Png);
    m_ganttRange->setEnabled(r.gantt);
    m_firstMicrobatches->setEnabled(r.gantt && r.ganttRange == ExportRequest::GanttRange::FirstMicrobatches);
    QStringList names;
    if (r.gantt)
        names << r.baseName + QStringLiteral("-gantt.") + ext;
    if (r.rankMap)
        names << r.baseName + QStringLiteral("-rank-map.") + ext;
    if (r.memory)
        names << r.baseName + QStringLiteral("-memory.") + ext;
    if (r.trace)
        names << r.baseName + QStringLiteral("-trace.json");
    if (r.markdown)
        names << r.baseName + QStringLiteral(".md");
    m_preview->setText(
        names.isEmpty() ? tr("Nothing selected.") : tr("Writes: %1").arg(names.join(QStringLiteral(", "))));
}

} // namespace parallax::ui
