// SPDX-License-Identifier: Apache-2.0
#include "ui/DecisionMatrixDialog.h"

#include "ui/BackgroundJob.h"
#include "ui/Format.h"
#include "ui/Theme.h"

#include "core/io/PresetLibrary.h"
#include "core/search/DecisionMatrixMarkdown.h"
#include "core/search/SearchSpace.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QElapsedTimer>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

namespace parallax::ui {

namespace {
// What the CLI calls a field ("gpu-counts"), as the dialog labels it.
QString fieldLabel(const std::string& field)
{
    if (field == "models")
        return QObject::tr("Models");
    if (field == "gpu")
        return QObject::tr("GPU");
    if (field == "gpus-per-node")
        return QObject::tr("GPUs per NVLink domain");
    if (field == "dtype")
        return QObject::tr("Precision");
    return QObject::tr("GPU counts");
}

const QString kSettingsGroup = QStringLiteral("decisionMatrix");

// The settings of the last fill, or the guide's when there are none or they no longer check (a preset gone).
core::DecisionMatrixSettings savedSettings()
{
    QSettings q;
    q.beginGroup(kSettingsGroup);
    core::DecisionMatrixSettings s;
    if (!q.contains(QStringLiteral("gpu")))
        return s;
    s.gpu = q.value(QStringLiteral("gpu")).toString().toStdString();
    s.gpusPerNode = q.value(QStringLiteral("gpusPerNode"), s.gpusPerNode).toInt();
    s.models.clear();
    for (const QString& id : q.value(QStringLiteral("models")).toStringList())
        s.models.push_back(id.toStdString());
    std::string bad;
    s.gpuCounts = core::parseGpuCounts(q.value(QStringLiteral("gpuCounts")).toString().toStdString(), bad)
                      .value_or(std::vector<int> {});
    s.globalBatch = q.value(QStringLiteral("globalBatch"), s.globalBatch).toInt();
    s.seqLen = q.value(QStringLiteral("seqLen"), s.seqLen).toInt();
    s.dtype
        = q.value(QStringLiteral("dtype")).toString() == QStringLiteral("fp8") ? core::DType::Fp8 : core::DType::Bf16;
    const bool usable = !core::checkDecisionMatrixSettings(s) && s.globalBatch > 0 && s.seqLen >= 16;
    return usable ? s : core::DecisionMatrixSettings {};
}

void saveSettings(const core::DecisionMatrixSettings& s)
{
    QSettings q;
    q.beginGroup(kSettingsGroup);
    q.setValue(QStringLiteral("gpu"), QString::fromStdString(s.gpu));
    q.setValue(QStringLiteral("gpusPerNode"), s.gpusPerNode);
    QStringList models, counts;
    for (const std::string& id : s.models)
        models << QString::fromStdString(id);
    for (int n : s.gpuCounts)
        counts << QString::number(n);
    q.setValue(QStringLiteral("models"), models);
    q.setValue(QStringLiteral("gpuCounts"), counts.join(u','));
    q.setValue(QStringLiteral("globalBatch"), s.globalBatch);
    q.setValue(QStringLiteral("seqLen"), s.seqLen);
    q.setValue(QStringLiteral("dtype"), QString::fromLatin1(core::toString(s.dtype)));
}
} // namespace

DecisionMatrixDialog::DecisionMatrixDialog(CurrentCalibration calibration, OpenScenario open, QWidget* parent)
    : QDialog(parent)
    , m_calibration(std::move(calibration))
    , m_open(std::move(open))
{
    setWindowTitle(tr("Decision Matrix"));
    const auto& presets = core::PresetLibrary::instance();
    m_gpu = new QComboBox(this);
    m_gpu->setObjectName(QStringLiteral("gpu"));
    for (const core::GpuSpec& g : presets.gpus())
        m_gpu->addItem(QString::fromStdString(g.name), QString::fromStdString(g.id));
    m_gpusPerNode = new QSpinBox(this);
    m_gpusPerNode->setRange(1, 1024);
    m_gpusPerNode->setToolTip(tr("8 on HGX and DGX nodes, 72 on a GB200 NVL72 rack"));
    m_gpuCounts = new QLineEdit(this);
    m_gpuCounts->setObjectName(QStringLiteral("gpuCounts"));
    m_gpuCounts->setToolTip(tr("Whole NVLink domains, separated by commas: one column each"));
    m_models = new QListWidget(this);
    for (const core::ModelSpec& m : presets.models()) {
        auto* item = new QListWidgetItem(QString::fromStdString(m.name), m_models);
        item->setData(Qt::UserRole, QString::fromStdString(m.id));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    m_models->setMaximumHeight(m_models->sizeHintForRow(0) * 6 + 4);
    m_globalBatch = new QSpinBox(this);
    m_globalBatch->setRange(1, 1 << 24);
    m_globalBatch->setSuffix(tr(" sequences"));
    m_seqLen = new QSpinBox(this);
    m_seqLen->setRange(16, 1 << 22);
    m_seqLen->setSuffix(tr(" tokens"));
    m_dtype = new QComboBox(this);
    m_dtype->addItem(QStringLiteral("bf16"), static_cast<int>(core::DType::Bf16));
    m_dtype->addItem(QStringLiteral("fp8"), static_cast<int>(core::DType::Fp8));

    auto* form = new QFormLayout;
    form->addRow(tr("GPU:"), m_gpu);
    form->addRow(tr("GPUs per NVLink domain:"), m_gpusPerNode);
    form->addRow(tr("GPU counts (columns):"), m_gpuCounts);
    form->addRow(tr("Models (rows):"), m_models);
    form->addRow(tr("Global batch:"), m_globalBatch);
    form->addRow(tr("Sequence length:"), m_seqLen);
    form->addRow(tr("Precision:"), m_dtype);

    m_fill = new QPushButton(tr("Fill"), this);
    m_fill->setDefault(true);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_progress = new QProgressBar(this);
    m_progress->setTextVisible(true);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* run = new QHBoxLayout;
    run->addWidget(m_fill);
    run->addWidget(m_cancel);
    run->addWidget(m_progress, 1);

    m_table = new QTableWidget(this);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setWordWrap(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);

    auto* guide = new QPushButton(tr("Guide's Matrix"), this);
    guide->setToolTip(tr("Llama 3 70B, Llama 3 405B and the 1T MoE on 8, 64 and 1024 H100, 4M tokens per step"));
    connect(guide, &QPushButton::clicked, this, [this] { setSettings(core::DecisionMatrixSettings {}); });
    run->insertWidget(2, guide);
    m_copy = new QPushButton(tr("Copy as Markdown"), this);
    m_openButton = new QPushButton(tr("Open Design"), this);
    m_openButton->setToolTip(tr("Opens the selected cell's recommendation as the scenario"));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_copy, QDialogButtonBox::ActionRole);
    buttons->addButton(m_openButton, QDialogButtonBox::ActionRole);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(run);
    layout->addWidget(m_status);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);

    connect(m_gpu, &QComboBox::currentIndexChanged, this, &DecisionMatrixDialog::gpuChanged);
    connect(m_fill, &QPushButton::clicked, this, &DecisionMatrixDialog::fill);
    connect(m_cancel, &QPushButton::clicked, this, &DecisionMatrixDialog::cancel);
    connect(m_copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(markdown()); });
    connect(m_openButton, &QPushButton::clicked, this,
        [this] { openCell(m_table->currentRow(), m_table->currentColumn()); });
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int column) { openCell(row, column); });
    connect(m_table, &QTableWidget::currentCellChanged, this, &DecisionMatrixDialog::updateButtons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    setSettings(savedSettings()); // the last fill's, else the guide's matrix
    m_status->setText(tr("Press Fill: each cell is a full search (the guide's matrix takes a few seconds in all)."));
    updateButtons();
    resize(1100, 760);
}

void DecisionMatrixDialog::setSettings(const core::DecisionMatrixSettings& s)
{
    m_gpu->setCurrentIndex(std::max(0, m_gpu->findData(QString::fromStdString(s.gpu))));
    m_gpusPerNode->setValue(s.gpusPerNode);
    QStringList counts;
    for (int n : s.gpuCounts)
        counts << QString::number(n);
    m_gpuCounts->setText(counts.join(QStringLiteral(", ")));
    // The rows in the settings' order: their models first, checked, in that order; the others after.
    for (int i = 0; i < m_models->count(); ++i)
        m_models->item(i)->setCheckState(Qt::Unchecked);
    for (auto id = s.models.rbegin(); id != s.models.rend(); ++id) {
        for (int i = 0; i < m_models->count(); ++i) {
            if (m_models->item(i)->data(Qt::UserRole).toString().toStdString() == *id) {
                QListWidgetItem* item = m_models->takeItem(i);
                item->setCheckState(Qt::Checked);
                m_models->insertItem(0, item);
                break;
            }
        }
    }
    m_globalBatch->setValue(s.globalBatch);
    m_seqLen->setValue(s.seqLen);
    m_dtype->setCurrentIndex(std::max(0, m_dtype->findData(static_cast<int>(s.dtype))));
}

core::DecisionMatrixSettings DecisionMatrixDialog::settings(QString* error) const
{
    core::DecisionMatrixSettings s;
    s.gpu = m_gpu->currentData().toString().toStdString();
    s.gpusPerNode = m_gpusPerNode->value();
    s.models.clear();
    for (int i = 0; i < m_models->count(); ++i) {
        if (m_models->item(i)->checkState() == Qt::Checked)
            s.models.push_back(m_models->item(i)->data(Qt::UserRole).toString().toStdString());
    }
    s.globalBatch = m_globalBatch->value();
    s.seqLen = m_seqLen->value();
    s.dtype = static_cast<core::DType>(m_dtype->currentData().toInt());
    std::string bad;
    const auto counts = core::parseGpuCounts(m_gpuCounts->text().toStdString(), bad);
    QString problem;
    if (!counts)
        problem = tr("GPU counts: “%1” is not a positive whole number of GPUs").arg(QString::fromStdString(bad));
    else
        s.gpuCounts = *counts;
    if (problem.isEmpty()) {
        if (const auto p = core::checkDecisionMatrixSettings(s))
            problem = fieldLabel(p->field) + QStringLiteral(": ") + QString::fromStdString(p->text);
    }
    if (error)
        *error = problem;
    return s;
}

void DecisionMatrixDialog::gpuChanged()
{
    // A GB200 NVL72 rack is one NVLink domain of 72; the counts follow when they were the default's.
    const auto gpu = core::PresetLibrary::instance().gpu(m_gpu->currentData().toString().toStdString());
    if (!gpu)
        return;
    m_gpusPerNode->setValue(gpu->nvlinkDomainSize);
    QString error;
    settings(&error);
    if (error.startsWith(fieldLabel("gpu-counts"))) {
        const int d = gpu->nvlinkDomainSize;
        m_gpuCounts->setText(QStringLiteral("%1, %2, %3").arg(d).arg(8 * d).arg(128 * d));
    }
}

void DecisionMatrixDialog::fill()
{
    if (m_running)
        cancel();
    QString error;
    const core::DecisionMatrixSettings s = settings(&error);
    if (!error.isEmpty()) {
        m_status->setText(error);
        return;
    }
    saveSettings(s);
    const std::uint64_t generation = ++m_generation;
    m_running = true;
    m_cancelFlag = std::make_shared<std::atomic<bool>>(false);
    const int total = static_cast<int>(s.models.size() * s.gpuCounts.size());
    m_progress->setRange(0, total);
    m_progress->setValue(0);
    m_progress->setFormat(tr("%v of %m cells"));
    m_status->setText(tr("Searching %1 cells…").arg(total));
    updateButtons();
    const auto cancelFlag = m_cancelFlag;
    // Captured by the work, so that it outlives the fill that points at it.
    const std::shared_ptr<const core::Calibration> calibration = m_calibration ? m_calibration() : nullptr;
    auto progress = [this, generation](int done, int) {
        QMetaObject::invokeMethod(
            this,
            [this, generation, done] {
                if (generation == m_generation && m_running)
                    m_progress->setValue(done);
            },
            Qt::QueuedConnection);
    };
    using Result = std::pair<std::shared_ptr<const core::DecisionMatrix>, bool>;
    runInBackground(
        m_pool, this,
        [s, calibration, cancelFlag, progress]() -> Result {
            auto m = std::make_shared<const core::DecisionMatrix>(
                core::buildDecisionMatrix(s, calibration.get(), progress, cancelFlag.get()));
            return { std::move(m), cancelFlag->load() };
        },
        [this, generation](Result r) {
            if (generation != m_generation)
                return; // a newer fill superseded this one
            showMatrix(std::move(r.first), r.second);
        });
}

void DecisionMatrixDialog::cancel()
{
    if (!m_running || !m_cancelFlag)
        return;
    m_cancelFlag->store(true);
    m_status->setText(tr("Cancelling after the cell being searched…"));
    m_cancel->setEnabled(false);
}

void DecisionMatrixDialog::showMatrix(std::shared_ptr<const core::DecisionMatrix> matrix, bool cancelled)
{
    m_running = false;
    m_matrix = std::move(matrix);
    const core::DecisionMatrixSettings& s = m_matrix->settings;
    m_table->clear();
    m_table->setRowCount(static_cast<int>(s.models.size()));
    m_table->setColumnCount(static_cast<int>(s.gpuCounts.size()));
    QStringList columns;
    for (int n : s.gpuCounts)
        columns << tr("%1 GPUs").arg(n);
    m_table->setHorizontalHeaderLabels(columns);
    QStringList rows;
    for (std::size_t r = 0; r < s.models.size(); ++r)
        rows << QString::fromStdString(core::matrixRowName(*m_matrix, r));
    m_table->setVerticalHeaderLabels(rows);
    for (int r = 0; r < m_table->rowCount(); ++r) {
        for (int c = 0; c < m_table->columnCount(); ++c) {
            const core::DecisionMatrixCell* cell = cellAt(r, c);
            auto* item = new QTableWidgetItem;
            if (!cell) {
                item->setText(tr("not searched (cancelled)"));
                item->setForeground(palette().color(QPalette::PlaceholderText));
            } else if (cell->recommended && cell->report) {
                item->setText(QString::fromStdString(
                    core::describe(*cell->recommended) + "\n" + core::matrixCellFigures(*cell->report)));
                item->setToolTip(
                    tr("Why: %1\nDouble-click to open this design.").arg(QString::fromStdString(cell->why)));
            } else {
                item->setText(QString::fromStdString(
                    core::matrixNothingFits(*cell, m_matrix->hbmBytes) + "\n" + core::matrixBriefFix(cell->fix)));
                item->setForeground(theme::problemColor());
                item->setToolTip(QString::fromStdString(cell->why) + QStringLiteral("\n\n")
                    + QString::fromStdString(cell->fix.text));
            }
            m_table->setItem(r, c, item);
        }
    }
    const int searched = static_cast<int>(m_matrix->cells.size());
    m_progress->setValue(searched);
    m_status->setText(cancelled ? tr("Cancelled: %1 of %2 cells searched.").arg(searched).arg(m_progress->maximum())
                                : tr("%1 on %2 (%3 per GPU), %4 × %5 tokens per step, %6: the best of every valid "
                                     "configuration per cell, simulated. Double-click a cell to open it.")
                                      .arg(format::plural(searched, tr("cell"), tr("cells")),
                                          QString::fromStdString(m_matrix->gpuName), format::bytes(m_matrix->hbmBytes))
                                      .arg(s.globalBatch)
                                      .arg(s.seqLen)
                                      .arg(QString::fromLatin1(core::toString(s.dtype))));
    updateButtons();
}

const core::DecisionMatrixCell* DecisionMatrixDialog::cellAt(int row, int column) const
{
    return m_matrix && row >= 0 && column >= 0
        ? core::matrixCell(*m_matrix, static_cast<std::size_t>(row), static_cast<std::size_t>(column))
        : nullptr;
}

bool DecisionMatrixDialog::openCell(int row, int column)
{
    const core::DecisionMatrixCell* cell = cellAt(row, column);
    if (!cell || !cell->recommended || !m_open)
        return false;
    core::Scenario s = core::applyPoint(
        core::decisionMatrixScenario(m_matrix->settings, cell->model, cell->gpus), *cell->recommended);
    m_open(s);
    return true;
}

QString DecisionMatrixDialog::status() const
{
    return m_status->text();
}

QString DecisionMatrixDialog::markdown() const
{
    return m_matrix ? QString::fromStdString(core::decisionMatrixToMarkdown(*m_matrix)) : QString();
}

void DecisionMatrixDialog::updateButtons()
{
    m_fill->setEnabled(true);
    m_cancel->setEnabled(m_running);
    m_copy->setEnabled(m_matrix != nullptr && !m_running);
    const core::DecisionMatrixCell* cell = cellAt(m_table->currentRow(), m_table->currentColumn());
    m_openButton->setEnabled(cell && cell->recommended && !m_running);
}

} // namespace parallax::ui
