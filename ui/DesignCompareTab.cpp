// SPDX-License-Identifier: Apache-2.0
#include "ui/DesignCompareTab.h"

#include "core/io/ScenarioIo.h"
#include "ui/DesignComparisonModel.h"
#include "ui/Format.h"
#include "ui/GanttView.h"
#include "ui/render/Exporter.h"
#include "ui/render/GanttModel.h"
#include "ui/render/ReportPictures.h"
#include "ui/render/TitleBlock.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace parallax::ui {

DesignCompareTab::DesignCompareTab(QWidget* parent)
    : QWidget(parent)
    , m_model(new DesignComparisonModel(this))
{
    m_pin = new QPushButton(tr("Pin current design as A"), this);
    m_pin->setObjectName(QStringLiteral("pinDesignButton"));
    m_pin->setToolTip(tr("Keep the current design as A; then edit the panels (layout, GPU, model): B follows them"));
    m_export = new QPushButton(tr("Export comparison…"), this);
    m_export->setObjectName(QStringLiteral("exportComparisonButton"));
    m_verdict = new QLabel(this);
    m_verdict->setObjectName(QStringLiteral("compareVerdict"));
    m_verdict->setWordWrap(true);
    m_verdict->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_pin);
    bar->addWidget(m_export);
    bar->addWidget(m_verdict, 1);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("compareTable"));
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    auto* h = m_table->horizontalHeader();
    h->setSectionResizeMode(QHeaderView::Stretch);
    h->setSectionResizeMode(DesignComparisonModel::Metric, QHeaderView::ResizeToContents);
    h->setTextElideMode(Qt::ElideRight);

    m_gantt = new GanttView(this);
    m_gantt->setObjectName(QStringLiteral("compareGantt"));
    auto* split = new QSplitter(Qt::Vertical, this);
    split->setChildrenCollapsible(false);
    split->addWidget(m_table);
    split->addWidget(m_gantt);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    connect(m_pin, &QPushButton::clicked, this, &DesignCompareTab::pinCurrent);
    connect(m_export, &QPushButton::clicked, this, &DesignCompareTab::exportDialog);
    refresh();
}

void DesignCompareTab::setEvaluation(EvaluationPtr current)
{
    m_current = std::move(current);
    refresh();
}

void DesignCompareTab::pinCurrent()
{
    m_pinned = m_current;
    refresh();
}

void DesignCompareTab::clearPin()
{
    m_pinned.reset();
    refresh();
}

QString DesignCompareTab::verdictText() const
{
    return m_verdict->text();
}

void DesignCompareTab::refresh()
{
    m_model->setDesigns(m_pinned, m_current);
    m_export->setEnabled(m_pinned && m_current && m_pinned->report.valid && m_current->report.valid);
    if (!m_pinned) {
        m_verdict->setText(tr("Pin the current design as A, then change the layout, the GPU or the model: B follows "
                              "your edits and both are compared here."));
    } else if (!m_current || !m_current->report.valid) {
        m_verdict->setText(tr("B is not a valid configuration yet: %1")
                               .arg(m_current && !m_current->report.errors.empty()
                                       ? QString::fromStdString(m_current->report.errors.front().text)
                                       : tr("fix the Configuration panel's errors")));
    } else {
        m_verdict->setText(QStringLiteral("<b>A</b> %1<br><b>B</b> %2<br>%3")
                               .arg(DesignComparisonModel::describeDesign(*m_pinned).toHtmlEscaped(),
                                   DesignComparisonModel::describeDesign(*m_current).toHtmlEscaped(),
                                   m_model->verdict().toHtmlEscaped()));
    }
    // Both schedules on one time axis: two lanes of one Gantt model.
    std::vector<render::GanttTrack> tracks;
    if (m_pinned && m_pinned->report.valid && !m_pinned->report.schedule.ops.empty())
        tracks.push_back(render::ganttTrack(
            m_pinned->scenario, m_pinned->report, tr("A: %1").arg(DesignComparisonModel::describeDesign(*m_pinned))));
    if (m_pinned && m_current && m_current->report.valid && !m_current->report.schedule.ops.empty())
        tracks.push_back(render::ganttTrack(m_current->scenario, m_current->report,
            tr("B: %1").arg(DesignComparisonModel::describeDesign(*m_current))));
    m_ganttModel = tracks.empty() ? nullptr : std::make_shared<const render::GanttModel>(std::move(tracks));
    m_gantt->setModel(m_ganttModel, tr("Pin a design as A to see both schedules on one time axis."));
}

bool DesignCompareTab::exportComparison(const QString& folder, const QString& baseName, QStringList* written,
    QString* error, const QString& pictureExtension) const
{
    if (!m_pinned || !m_current || !m_pinned->report.valid || !m_current->report.valid) {
        if (error)
            *error = tr("nothing to export: pin a design as A and make B valid");
        return false;
    }
    if (!QDir().mkpath(folder)) {
        if (error)
            *error = tr("the folder %1 cannot be created").arg(QDir::toNativeSeparators(folder));
        return false;
    }
    const QString picture = QDir(folder).filePath(baseName + QStringLiteral("-comparison-gantt.") + pictureExtension);
    if (m_ganttModel) {
        render::TitleBlock title
            = render::TitleBlock::forReport(m_current->scenario, m_current->report, tr("designs compared: A vs B"));
        title.lines = { tr("A: %1").arg(DesignComparisonModel::describeDesign(*m_pinned)),
            tr("B: %1").arg(DesignComparisonModel::describeDesign(*m_current)) };
        title.figures = { { tr("A step"), format::seconds(m_pinned->report.stepTimeSeconds), !m_pinned->report.fits },
            { tr("B step"), format::seconds(m_current->report.stepTimeSeconds), !m_current->report.fits } };
        if (!render::exportPicture(render::ganttPicture(m_ganttModel, title), picture, 2, error))
            return false;
        if (written)
            *written << picture;
    }
    QString md = tr("# Design comparison\n\n- **A:** %1\n- **B:** %2\n\n%3\n\n")
                     .arg(DesignComparisonModel::describeDesign(*m_pinned),
                         DesignComparisonModel::describeDesign(*m_current), m_model->verdict());
    md += m_model->toMarkdown();
    if (m_ganttModel)
        md += QStringLiteral("\n![Both schedules on one time axis](%1)\n").arg(QFileInfo(picture).fileName());
    const QString path = QDir(folder).filePath(baseName + QStringLiteral("-comparison.md"));
    std::string why;
    if (!core::writeFileAtomically(path.toStdString(), md.toStdString(), why)) {
        if (error)
            *error = QString::fromStdString(why);
        return false;
    }
    if (written)
        *written << path;
    return true;
}

void DesignCompareTab::exportDialog()
{
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Export the comparison into"), QDir::homePath());
    if (folder.isEmpty())
        return;
    QStringList written;
    QString error;
    if (!exportComparison(folder, QStringLiteral("parallax"), &written, &error))
        QMessageBox::critical(this, tr("Cannot export"), error);
}

} // namespace parallax::ui
