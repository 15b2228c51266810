// SPDX-License-Identifier: Apache-2.0
#include "ui/AccuracyDialog.h"

#include "ui/BackgroundJob.h"
#include "ui/Format.h"
#include "ui/TableSupport.h"

#include "core/io/BoundedRead.h"
#include "core/io/JsonText.h"
#include "core/validation/ServingValidation.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace parallax::ui {

namespace {

// Sorts by the number behind the text (Qt::UserRole) where there is one.
class NumberItem : public QTableWidgetItem {
public:
    NumberItem(const QString& text, double value)
        : QTableWidgetItem(text)
    {
        setData(Qt::UserRole, value);
    }
    bool operator<(const QTableWidgetItem& other) const override
    {
        return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
    }
};

QTableWidget* makeTable(QWidget* parent, const QStringList& headers)
{
    auto* t = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->verticalHeader()->setVisible(false);
    t->setWordWrap(false);
    t->horizontalHeader()->setStretchLastSection(true);
    return t;
}

QTableWidgetItem* textItem(const QString& text)
{
    return new QTableWidgetItem(text);
}

QTableWidgetItem* percentItem(double fraction)
{
    return new NumberItem(format::percent(fraction), fraction);
}

QString familyOf(const core::ValidationRow& row)
{
    return QString::fromStdString(core::validationFamily(row.run));
}

// The published figure or the engine's in the run's metric.
QString metricText(const core::ValidationRow& row, double value)
{
    if (row.run.metric == core::PublishedMetric::TflopsPerGpu)
        return format::flopsPerSecond(value * 1e12) + QStringLiteral(" per GPU");
    return format::seconds(value);
}

// "19,700 tok/s/GPU", "36.2 ms": three significant digits, grouped thousands.
QString servingValueText(double value, const QString& unit)
{
    const int decimals = value >= 100 ? 0 : value >= 10 ? 1 : 2;
    return QLocale().toString(value, 'f', decimals) + u' ' + unit;
}

} // namespace

AccuracyDialog::AccuracyDialog(const QString& designFamily, OpenScenario open, QWidget* parent)
    : QDialog(parent)
    , m_designFamily(designFamily)
    , m_open(std::move(open))
{
    setWindowTitle(tr("Accuracy on Published Runs"));
    resize(1100, 720);
    auto* layout = new QVBoxLayout(this);
    m_headline = makeSummaryLabel(this);
    m_headline->setText(tr("Evaluating the published training runs…"));
    layout->addWidget(m_headline);

    m_families = makeTable(this,
        { tr("Family (GPU x model)"), tr("Runs"), tr("Mean error"), tr("Median"), tr("Worst"), tr("Worst run"),
            tr("Bias"), tr("Points per doubling of GPUs") });
    m_families->setToolTip(tr("Absolute error of the step time (or TFLOP/s per GPU) per family; the status bar's "
                              "step-time range is its family's measured spread. Bias: the mean signed error in "
                              "time (+: the engine's step is longer). Per doubling: how the error moves when a "
                              "published configuration runs on twice the GPUs (weak-scaling series). Click a "
                              "family to list its runs."));
    connect(m_families, &QTableWidget::cellClicked, this, [this](int row, int) {
        if (const QTableWidgetItem* item = m_families->item(row, 0))
            filterRuns(item->data(Qt::UserRole).toString());
    });
    layout->addWidget(m_families);

    m_tabs = new QTabWidget(this);
    m_runs = makeTable(this,
        { tr("Run"), tr("Family"), tr("GPUs"), tr("Published"), tr("Engine"), tr("Error"), tr("Memory error"),
            tr("Source") });
    m_runs->setToolTip(tr("Error: engine / published - 1, sorted by its size. Double-click a run to open it."));
    m_runs->setSortingEnabled(true);
    connect(m_runs, &QTableWidget::cellDoubleClicked, this, [this](int, int) { openSelectedRun(); });
    m_tabs->addTab(m_runs, tr("Runs"));
    m_servingTable = makeTable(this,
        { tr("Record"), tr("Figure"), tr("Published"), tr("Engine"), tr("Error"), tr("Framework"), tr("GPU"),
            tr("Source") });
    m_servingTable->setToolTip(tr("Serving figures (KV cache, weights, TTFT, TPOT, throughput) against the serving "
                                  "engine; error: engine / published - 1, sorted by its size"));
    m_tabs->addTab(m_servingTable, tr("Serving figures"));
    m_skipped = new QTextBrowser(this);
    m_tabs->addTab(m_skipped, tr("Not modelled"));
    m_ownTab = new QWidget(this);
    auto* ownLayout = new QVBoxLayout(m_ownTab);
    m_ownHeadline = makeSummaryLabel(m_ownTab);
    m_ownHeadline->setText(tr("Runs of your own: record them with <code>parallax-cli check-log --log LOG FILE --record "
                              "runs.json</code> and open that file with Your Runs File…"));
    ownLayout->addWidget(m_ownHeadline);
    m_ownRuns = makeTable(m_ownTab,
        { tr("Run"), tr("Family"), tr("GPUs"), tr("Measured"), tr("Engine"), tr("Error"), tr("Memory error"),
            tr("Source") });
    m_ownRuns->setSortingEnabled(true);
    connect(m_ownRuns, &QTableWidget::cellDoubleClicked, this, [this](int, int) { openSelectedRun(); });
    ownLayout->addWidget(m_ownRuns, 1);
    m_tabs->addTab(m_ownTab, tr("Your runs"));
    layout->addWidget(m_tabs, 1);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    auto* all = buttons->addButton(tr("Show All Runs"), QDialogButtonBox::ActionRole);
    connect(all, &QPushButton::clicked, this, [this] { filterRuns({}); });
    m_openButton = buttons->addButton(tr("Open Run as Scenario"), QDialogButtonBox::ActionRole);
    m_openButton->setToolTip(tr("Replace the design with the selected run's configuration, as the engine read it"));
    m_openButton->setEnabled(false);
    connect(m_openButton, &QPushButton::clicked, this, &AccuracyDialog::openSelectedRun);
    for (QTableWidget* table : { m_runs, m_ownRuns })
        connect(table, &QTableWidget::itemSelectionChanged, this,
            [this, table] { m_openButton->setEnabled(!table->selectedItems().isEmpty()); });
    auto* own = buttons->addButton(tr("Your Runs File…"), QDialogButtonBox::ActionRole);
    own->setToolTip(tr("The engine against runs of your own (a file check-log --record wrote)"));
    connect(own, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("A runs file of your own"), QString(), tr("Runs (*.json);;All files (*)"));
        if (!path.isEmpty())
            loadOwnRuns(path);
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    QString error;
    std::optional<nlohmann::json> records = publishedRuns(QStringLiteral("published_runs_train.json"), error);
    if (!records) {
        m_headline->setText(tr("The published runs cannot be read: %1").arg(error));
        return;
    }
    std::optional<nlohmann::json> serving = publishedRuns(QStringLiteral("published_serving.json"), error);
    runInBackground(
        m_pool, this,
        [records = std::move(*records), serving = std::move(serving)] {
            Summaries out;
            out.training = std::make_shared<const core::ValidationSummary>(core::runValidation(records));
            if (serving)
                out.serving
                    = std::make_shared<const core::ServingValidationSummary>(core::runServingValidation(*serving));
            return out;
        },
        [this](Summaries summaries) { showSummary(std::move(summaries)); });
}

std::optional<nlohmann::json> AccuracyDialog::publishedRuns(const QString& fileName, QString& error)
{
    QFile file(QStringLiteral(":/data/") + fileName);
    if (!file.open(QIODevice::ReadOnly)) {
        error = file.errorString();
        return std::nullopt;
    }
    const QByteArray bytes = file.readAll();
    std::string parseError;
    std::optional<nlohmann::json> j = core::io::parseJsonBounded(
        std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), parseError);
    if (!j || !j->is_array()) {
        error = j ? tr("not a JSON array") : QString::fromStdString(parseError);
        return std::nullopt;
    }
    return j;
}

void AccuracyDialog::showSummary(Summaries summaries)
{
    m_summary = std::move(summaries.training);
    m_serving = std::move(summaries.serving);
    const core::ValidationSummary& s = *m_summary;
    QString text
        = tr("<b>%1</b> published training runs against the engine, no per-run factors "
             "(<code>parallax-cli validate</code>): step time within <b>%2</b> on average (median %3, worst %4) over "
             "%5 runs; peak memory within %6 over %7 runs; %8 not modelled, each with its reason. "
             "The ranges the app shows are these errors, by family.")
              .arg(s.rows.size() + s.skipped.size())
              .arg(format::percent(s.stepTime.meanAbs), format::percent(s.stepTime.medianAbs),
                  format::percent(s.stepTime.maxAbs))
              .arg(s.stepTime.count)
              .arg(format::percent(s.memory.meanAbs))
              .arg(s.memory.count)
              .arg(s.skipped.size());
    if (m_serving) {
        text += tr(" Serving (<code>validate --serving</code>): %1 published figures within %2 on average (worst %3).")
                    .arg(m_serving->all.count)
                    .arg(format::percent(m_serving->all.meanAbs), format::percent(m_serving->all.maxAbs));
    }
    m_headline->setText(text);
    fillServing();
    fillFamilies();
    fillRuns();
    fillSkipped();
}

void AccuracyDialog::fillFamilies()
{
    const core::ValidationSummary& s = *m_summary;
    m_families->setRowCount(0);
    const auto addRow = [this](const QString& family, const QList<QTableWidgetItem*>& cells) {
        const int row = m_families->rowCount();
        m_families->insertRow(row);
        auto* name = textItem(family == m_designFamily ? tr("%1 (this design)").arg(family) : family);
        name->setData(Qt::UserRole, family);
        m_families->setItem(row, 0, name);
        for (int c = 0; c < cells.size(); ++c)
            m_families->setItem(row, c + 1, cells[c]);
        if (family == m_designFamily) {
            for (int c = 0; c < m_families->columnCount(); ++c) {
                if (QTableWidgetItem* item = m_families->item(row, c)) {
                    QFont f = item->font();
                    f.setBold(true);
                    item->setFont(f);
                }
            }
        }
    };
    for (const auto& [family, stats] : s.perFamily) {
        const auto trend = s.familyTrends.find(family);
        const QString runs = trend == s.familyTrends.end()
            ? QString::number(stats.count)
            : tr("%1 (%2-%3 GPUs)").arg(stats.count).arg(trend->second.rowsFewestGpus).arg(trend->second.rowsMostGpus);
        QList<QTableWidgetItem*> cells { new NumberItem(runs, stats.count), percentItem(stats.meanAbs),
            percentItem(stats.medianAbs), percentItem(stats.maxAbs), textItem(QString::fromStdString(stats.worstId)) };
        cells.back()->setToolTip(QString::fromStdString(stats.worstId));
        if (trend != s.familyTrends.end()) {
            const core::FamilyTrend& t = trend->second;
            cells.append(new NumberItem(
                (t.meanSignedError >= 0 ? QStringLiteral("+") : QString()) + format::percent(t.meanSignedError),
                t.meanSignedError));
            cells.append(t.series == 0 ? textItem(tr("no series"))
                                       : new NumberItem(tr("%1 (%2 series, %3-%4 GPUs)")
                                                            .arg(QString::asprintf("%+.2f", 100 * t.slopePerDoubling))
                                                            .arg(t.series)
                                                            .arg(t.fewestGpus)
                                                            .arg(t.mostGpus),
                                           t.slopePerDoubling));
        }
        addRow(QString::fromStdString(family), cells);
    }
    for (const auto& [family, count] : s.familiesNotCompared) {
        addRow(QString::fromStdString(family),
            { new NumberItem(QString::number(0), 0), textItem(tr("not measured")), textItem({}), textItem({}),
                textItem(tr("%1 runs not modelled").arg(count)) });
    }
    if (!m_designFamily.isEmpty() && !s.perFamily.contains(m_designFamily.toStdString())
        && !s.familiesNotCompared.contains(m_designFamily.toStdString())) {
        addRow(m_designFamily,
            { new NumberItem(QString::number(0), 0), textItem(tr("no published run")), textItem({}), textItem({}),
                textItem(tr("the app uses the widest band of its kind")) });
    }
    m_families->resizeColumnsToContents();
    // The worst run's id is long ("dgxc_v25.02.01_grok1_314b_H100_128gpu_bf16_L16"): elided in the middle, whole in
    // its tooltip, so that the trend column stays inside the dialog.
    constexpr int kWorstRunColumn = 5;
    constexpr int kWorstRunWidth = 230;
    m_families->setTextElideMode(Qt::ElideMiddle);
    m_families->setColumnWidth(kWorstRunColumn, std::min(m_families->columnWidth(kWorstRunColumn), kWorstRunWidth));
    int height = m_families->horizontalHeader()->height() + 2 * m_families->frameWidth();
    for (int r = 0; r < m_families->rowCount(); ++r)
        height += m_families->rowHeight(r);
    m_families->setFixedHeight(height);
}

void AccuracyDialog::fillRuns()
{
    fillRunTable(m_runs, *m_summary);
    m_tabs->setTabText(0, tr("Runs (%1)").arg(m_summary->rows.size()));
}

void AccuracyDialog::fillRunTable(QTableWidget* table, const core::ValidationSummary& summary)
{
    table->setSortingEnabled(false);
    table->setRowCount(0);
    for (std::size_t i = 0; i < summary.rows.size(); ++i) {
        const core::ValidationRow& row = summary.rows[i];
        const int r = table->rowCount();
        table->insertRow(r);
        auto* id = textItem(QString::fromStdString(row.run.id));
        id->setData(Qt::UserRole, static_cast<int>(i));
        id->setToolTip(QString::fromStdString([&] {
            std::string text = "Assumed where the record is silent:";
            for (const std::string& a : row.run.assumptions)
                text += "\n- " + a;
            return row.run.assumptions.empty() ? std::string("Every field as printed") : text;
        }()));
        table->setItem(r, 0, id);
        table->setItem(r, 1, textItem(familyOf(row)));
        const int gpus = row.run.scenario.topology.gpuCount();
        table->setItem(r, 2, new NumberItem(QString::number(gpus), gpus));
        table->setItem(r, 3, new NumberItem(metricText(row, row.run.published), row.run.published));
        table->setItem(r, 4,
            row.valid ? new NumberItem(metricText(row, row.predicted), row.predicted)
                      : textItem(QString::fromStdString(row.invalidReason)));
        // Signed as computed, sorted by size: the worst first either way.
        table->setItem(r, 5,
            row.valid ? new NumberItem(format::percent(row.error), std::abs(row.error))
                      : new NumberItem(tr("invalid"), 1e9));
        table->setItem(r, 6,
            row.run.peakMemoryBytes ? new NumberItem(format::percent(row.memoryError), std::abs(row.memoryError))
                                    : new NumberItem(QStringLiteral("–"), -1.0));
        table->setItem(r, 7, textItem(QString::fromStdString(row.run.source)));
    }
    table->setSortingEnabled(true);
    table->sortItems(5, Qt::DescendingOrder);
    table->resizeColumnsToContents();
}

void AccuracyDialog::fillSkipped()
{
    const auto item = [](const std::string& id, const std::string& reason) {
        return QStringLiteral("<li><b>%1</b>: %2</li>")
            .arg(QString::fromStdString(id).toHtmlEscaped(), QString::fromStdString(reason).toHtmlEscaped());
    };
    QString html = tr("<p>Records the engine does not model yet, each with its reason (never dropped).</p>"
                      "<h4>Training runs</h4><ul>");
    for (const core::PublishedRunConversion& c : m_summary->skipped)
        html += item(c.id, c.reason);
    html += QStringLiteral("</ul>");
    std::size_t count = m_summary->skipped.size();
    if (m_serving && !m_serving->notModelled.empty()) {
        html += tr("<h4>Serving records</h4><ul>");
        for (const core::ServingRunConversion& c : m_serving->notModelled)
            html += item(c.id, c.reason);
        html += QStringLiteral("</ul>");
        count += m_serving->notModelled.size();
    }
    m_skipped->setHtml(html);
    m_tabs->setTabText(m_tabs->indexOf(m_skipped), tr("Not modelled (%1)").arg(count));
}

void AccuracyDialog::fillServing()
{
    m_servingTable->setSortingEnabled(false);
    m_servingTable->setRowCount(0);
    if (!m_serving)
        return;
    for (const core::ServingComparison& c : m_serving->rows) {
        const int r = m_servingTable->rowCount();
        m_servingTable->insertRow(r);
        const QString unit = QString::fromLatin1(core::unitOf(c.metric));
        auto* id = textItem(QString::fromStdString(c.id));
        QString tip = tr("Assumed where the record is silent:");
        for (const std::string& a : c.assumptions)
            tip += QStringLiteral("\n- ") + QString::fromStdString(a);
        id->setToolTip(c.assumptions.empty() ? tr("Every field as printed") : tip);
        m_servingTable->setItem(r, 0, id);
        m_servingTable->setItem(r, 1, textItem(QString::fromLatin1(core::toString(c.metric))));
        m_servingTable->setItem(r, 2, new NumberItem(servingValueText(c.published, unit), c.published));
        m_servingTable->setItem(r, 3, new NumberItem(servingValueText(c.predicted, unit), c.predicted));
        m_servingTable->setItem(r, 4, new NumberItem(format::percent(c.error), std::abs(c.error)));
        m_servingTable->setItem(r, 5, textItem(QString::fromStdString(c.framework)));
        m_servingTable->setItem(r, 6, textItem(QString::fromStdString(c.gpu)));
        m_servingTable->setItem(r, 7, textItem(QString::fromStdString(c.source)));
    }
    m_servingTable->setSortingEnabled(true);
    m_servingTable->sortItems(4, Qt::DescendingOrder);
    m_servingTable->resizeColumnsToContents();
    m_tabs->setTabText(m_tabs->indexOf(m_servingTable), tr("Serving figures (%1)").arg(m_serving->rows.size()));
}

QString AccuracyDialog::headline() const
{
    return m_headline->text();
}

void AccuracyDialog::setDesignFamily(const QString& family)
{
    if (family == m_designFamily)
        return;
    m_designFamily = family;
    if (m_summary)
        fillFamilies();
}

void AccuracyDialog::filterRuns(const QString& family)
{
    int shown = 0;
    for (int r = 0; r < m_runs->rowCount(); ++r) {
        const QTableWidgetItem* item = m_runs->item(r, 1);
        const bool hidden = !family.isEmpty() && (!item || item->text() != family);
        m_runs->setRowHidden(r, hidden);
        shown += hidden ? 0 : 1;
    }
    m_tabs->setTabText(0,
        family.isEmpty() ? tr("Runs (%1)").arg(m_runs->rowCount())
                         : tr("Runs of %1 (%2 of %3)").arg(family).arg(shown).arg(m_runs->rowCount()));
    m_tabs->setCurrentIndex(0);
}

void AccuracyDialog::openSelectedRun()
{
    const bool own = m_tabs->currentWidget() == m_ownTab;
    QTableWidget* table = own ? m_ownRuns : m_runs;
    const core::ValidationSummary* summary = own ? m_own.get() : m_summary.get();
    const QList<QTableWidgetItem*> selected = table->selectedItems();
    if (selected.isEmpty() || !summary || !m_open)
        return;
    const QTableWidgetItem* id = table->item(selected.front()->row(), 0);
    const int index = id ? id->data(Qt::UserRole).toInt() : -1;
    if (index < 0 || index >= static_cast<int>(summary->rows.size()))
        return;
    m_open(summary->rows[static_cast<std::size_t>(index)].run.scenario);
}

QString AccuracyDialog::ownHeadline() const
{
    return m_ownHeadline->text();
}

bool AccuracyDialog::loadOwnRuns(const QString& path)
{
    m_tabs->setCurrentWidget(m_ownTab);
    std::string text, error;
    std::optional<nlohmann::json> records;
    if (core::io::readFileBounded(path.toStdString(), text, error))
        records = core::io::parseJsonBounded(text, error);
    if (!records || !records->is_array()) {
        m_ownHeadline->setText(tr("%1 is not a runs file: %2")
                                   .arg(QDir::toNativeSeparators(path).toHtmlEscaped(),
                                       (records ? tr("not a JSON array of run records; give a file check-log --record "
                                                     "wrote")
                                                : QString::fromStdString(error))
                                           .toHtmlEscaped()));
        return false;
    }
    m_ownHeadline->setText(tr("Evaluating %1…").arg(QDir::toNativeSeparators(path).toHtmlEscaped()));
    runInBackground(
        m_pool, this,
        [records = std::move(*records)] {
            return std::make_shared<const core::ValidationSummary>(core::runValidation(records));
        },
        [this, path](std::shared_ptr<const core::ValidationSummary> own) { showOwnRuns(path, std::move(own)); });
    return true;
}

void AccuracyDialog::showOwnRuns(const QString& path, std::shared_ptr<const core::ValidationSummary> own)
{
    m_own = std::move(own);
    const core::ValidationSummary& s = *m_own;
    QString families;
    for (const auto& [family, stats] : s.perFamily)
        families += tr("; %1: %2 over %3")
                        .arg(QString::fromStdString(family), format::percent(stats.meanAbs))
                        .arg(stats.count);
    m_ownHeadline->setText(
        tr("<b>%1</b> of your runs (%2) against the engine, each design as it ran: step time within "
           "<b>%3</b> on average (worst %4)%5; peak memory within %6 over %7 of them; %8 not modelled.")
            .arg(s.rows.size())
            .arg(QDir::toNativeSeparators(path).toHtmlEscaped(), format::percent(s.stepTime.meanAbs),
                format::percent(s.stepTime.maxAbs), families, format::percent(s.memory.meanAbs))
            .arg(s.memory.count)
            .arg(s.skipped.size()));
    fillRunTable(m_ownRuns, s);
    m_tabs->setTabText(m_tabs->indexOf(m_ownTab), tr("Your runs (%1)").arg(s.rows.size()));
}

} // namespace parallax::ui
