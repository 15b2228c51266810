// SPDX-License-Identifier: Apache-2.0
#include "ui/ProbeTab.h"

#include "ui/CalibrationModel.h"
#include "ui/Format.h"
#include "ui/ScenarioDocument.h"
#include "ui/TableSupport.h"
#include "ui/Theme.h"

#include "core/io/AtomicFile.h"

#include <QCheckBox>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardPaths>
#include <QTableView>
#include <QVBoxLayout>
#include <numeric>

namespace parallax::ui {

namespace {
const QString kProbeName = QStringLiteral("parallax-probe");
constexpr int kExitNoDevice = 3; // docs/probe.md, "Exit codes"
constexpr int kExitSomeFailed = 4;
constexpr int kLogLines = 2000;

QString withoutProgramPrefix(QString line)
{
    if (line.startsWith(kProbeName + QStringLiteral(": ")))
        line.remove(0, kProbeName.size() + 2);
    return line.trimmed();
}

// The tensor-parallel degree the probe accepts for the model: its checks (ProbeOptions.cpp) want
// heads, kv heads and the FFN width divisible by tp.
int probeTensorParallel(const core::ModelSpec& m, int tp)
{
    for (int t = std::max(1, tp); t > 1; --t) {
        if (tp % t == 0 && m.heads % t == 0 && m.kvHeads % t == 0 && m.ffnHidden % t == 0)
            return t;
    }
    return 1;
}
} // namespace

ProbeTab::ProbeTab(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_model(new CalibrationModel(this))
{
    m_probeLabel = new QLabel(this);
    m_probeLabel->setObjectName(QStringLiteral("probePath"));
    m_probeLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_probeLabel->setWordWrap(true);
    m_probeLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_chooseButton = new QPushButton(tr("Choose…"), this);
    m_chooseButton->setToolTip(tr("Pick the parallax-probe executable"));
    m_quickCheck = new QCheckBox(tr("Quick run"), this);
    m_quickCheck->setToolTip(tr("Fewer repeats, no backward GEMM shapes, one cuBLASLt algorithm (--quick)"));
    m_runButton = new QPushButton(tr("Run probe"), this);
    m_runButton->setObjectName(QStringLiteral("runProbeButton"));
    m_runButton->setToolTip(tr("Measure this machine's GPU: GEMMs at the scenario's shapes, HBM, copies, NCCL"));
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_cancelButton->setObjectName(QStringLiteral("cancelProbeButton"));
    m_loadButton = new QPushButton(tr("Load calibration file…"), this);
    m_loadButton->setToolTip(tr("A calibration JSON written by parallax-probe on another machine"));
    m_saveButton = new QPushButton(tr("Save calibration as…"), this);
    m_saveButton->setToolTip(tr("Keep the file of this run (it lives in a temporary folder)"));

    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("probeProgress"));
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setTextVisible(false);
    m_progress->setMaximumWidth(220);
    m_currentLine = new QLabel(this);
    m_currentLine->setObjectName(QStringLiteral("probeCurrentLine"));
    m_currentLine->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_currentLine->setMinimumWidth(100);
    m_currentLine->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_status = makeSummaryLabel(this);
    m_status->setObjectName(QStringLiteral("probeStatus"));
    m_source = makeSummaryLabel(this);
    m_source->setObjectName(QStringLiteral("calibrationSource"));
    m_applyCheck = new QCheckBox(tr("Apply calibration"), this);
    m_applyCheck->setToolTip(tr("The engine uses the measured numbers in place of the datasheet's"));
    m_applyCheck->setObjectName(QStringLiteral("applyCalibration"));

    m_table = makeSortedTable(this, m_model, CalibrationModel::ValueRole);
    m_table->setObjectName(QStringLiteral("calibrationTable"));
    m_table->setSortingEnabled(false);
    static_cast<QSortFilterProxyModel*>(m_table->model())->sort(-1); // the model's order: compute, memory, links
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(CalibrationModel::Quantity, QHeaderView::Stretch);
    m_log = new QPlainTextEdit(this);
    m_log->setObjectName(QStringLiteral("probeLog"));
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(kLogLines);
    m_log->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_log->setPlaceholderText(tr("The probe's output appears here as it measures."));

    auto* probeRow = new QHBoxLayout;
    probeRow->addWidget(new QLabel(tr("Probe:"), this));
    probeRow->addWidget(m_probeLabel, 1);
    probeRow->addWidget(m_chooseButton);
    auto* runRow = new QHBoxLayout;
    runRow->addWidget(m_runButton);
    runRow->addWidget(m_quickCheck);
    runRow->addWidget(m_cancelButton);
    runRow->addWidget(m_progress);
    runRow->addWidget(m_currentLine, 1);
    auto* fileRow = new QHBoxLayout;
    fileRow->addWidget(m_applyCheck);
    fileRow->addStretch(1);
    fileRow->addWidget(m_loadButton);
    fileRow->addWidget(m_saveButton);

    auto* tableBox = new QWidget(this);
    auto* tl = new QVBoxLayout(tableBox);
    tl->setContentsMargins(0, 0, 0, 0);
    tl->addWidget(m_source);
    tl->addLayout(fileRow);
    tl->addWidget(m_table, 1);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(tableBox);
    splitter->addWidget(m_log);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(probeRow);
    layout->addLayout(runRow);
    layout->addWidget(m_status);
    layout->addWidget(splitter, 1);

    m_process.setProcessChannelMode(QProcess::SeparateChannels);
    connect(&m_process, &QProcess::readyReadStandardOutput, this, &ProbeTab::readOutput);
    connect(&m_process, &QProcess::readyReadStandardError, this,
        [this] { m_stderr += QString::fromLocal8Bit(m_process.readAllStandardError()); });
    connect(&m_process, &QProcess::finished, this, &ProbeTab::processFinished);
    connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            setStatus(
                tr("Cannot start %1: %2").arg(QDir::toNativeSeparators(m_probePath), m_process.errorString()), true);
            m_progress->setRange(0, 1);
            updateButtons();
        }
    });
    connect(m_runButton, &QPushButton::clicked, this, &ProbeTab::runProbe);
    connect(m_cancelButton, &QPushButton::clicked, this, &ProbeTab::cancelProbe);
    connect(m_chooseButton, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Choose parallax-probe"), m_probePath);
        if (!path.isEmpty())
            setProbePath(path);
    });
    connect(m_loadButton, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Load calibration"), QString(), tr("Calibration (*.json);;All files (*)"));
        if (!path.isEmpty())
            loadCalibrationFile(path);
    });
    connect(m_saveButton, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Save calibration"), QStringLiteral("parallax-calibration.json"), tr("Calibration (*.json)"));
        if (path.isEmpty())
            return;
        // Atomic: a failed save leaves the file that was there (issue 16; QFile::remove + copy lost it).
        std::string error;
        if (!core::io::copyFileAtomically(QFileInfo(m_outFile).absoluteFilePath().toStdString(),
                QFileInfo(path).absoluteFilePath().toStdString(), error))
            setStatus(tr("Cannot save the calibration: %1").arg(QString::fromStdString(error)), true);
    });
    connect(m_applyCheck, &QCheckBox::toggled, this, &ProbeTab::setApplied);
    connect(m_document, &ScenarioDocument::scenarioChanged, this, &ProbeTab::refreshTable);
    connect(m_document, &ScenarioDocument::calibrationChanged, this, [this] {
        const QSignalBlocker block(m_applyCheck);
        m_applyCheck->setChecked(m_document->calibration() && m_document->calibration() == m_calibration);
    });

    setProbePath(findProbe());
    setStatus(tr("Without a calibration the engine uses datasheet numbers times default efficiencies. Run the probe "
                 "on a machine with the GPU, or load a calibration file written by it."));
    refreshTable();
    updateButtons();
}

ProbeTab::~ProbeTab()
{
    if (isRunning()) {
        m_process.disconnect(this);
        m_process.kill();
        m_process.waitForFinished(3000);
    }
}

QString ProbeTab::findProbe()
{
    const QString appDir = QCoreApplication::applicationDirPath();
    const QStringList candidates { appDir + u'/' + kProbeName, appDir + QStringLiteral("/../core/probe/") + kProbeName,
        appDir + QStringLiteral("/../libexec/") + kProbeName };
    for (const QString& candidate : candidates) {
        const QFileInfo info(candidate);
        if (info.isFile() && info.isExecutable())
            return info.canonicalFilePath();
    }
    return QStandardPaths::findExecutable(kProbeName);
}

void ProbeTab::setProbePath(const QString& path)
{
    m_probePath = path;
    m_probeLabel->setText(path.isEmpty() ? tr("<i>parallax-probe not found beside the application nor in PATH: "
                                              "choose it, or load a calibration file</i>")
                                         : QDir::toNativeSeparators(path));
    updateButtons();
}

void ProbeTab::setQuick(bool quick)
{
    m_quickCheck->setChecked(quick);
}

QStringList ProbeTab::probeArguments(const QString& outFile) const
{
    QStringList args { QStringLiteral("--out"), outFile };
    if (m_quickCheck->isChecked())
        args << QStringLiteral("--quick");
    const core::Scenario& s = m_document->scenario();
    const core::ModelSpec& m = s.model;
    // The probe's shape checks (ProbeOptions.cpp); a model it cannot describe runs its defaults.
    const bool describable = m.hidden > 0 && m.heads > 0 && m.kvHeads > 0 && m.ffnHidden > 0 && m.vocab > 0
        && m.hidden % m.heads == 0 && m.heads % m.kvHeads == 0 && m.hidden / m.heads == m.effectiveHeadDim();
    if (!describable)
        return args;
    const int tp = probeTensorParallel(m, s.parallel.tp);
    const long long tokens = static_cast<long long>(s.seqLen()) * std::max(1, s.training.microBatch);
    const auto n = [](auto v) { return QString::number(v); };
    args << QStringLiteral("--hidden") << n(m.hidden) << QStringLiteral("--ffn") << n(m.ffnHidden)
         << QStringLiteral("--heads") << n(m.heads) << QStringLiteral("--kv-heads") << n(m.kvHeads)
         << QStringLiteral("--vocab") << n(m.vocab) << QStringLiteral("--seq") << n(s.seqLen())
         << QStringLiteral("--tokens") << n(tokens) << QStringLiteral("--tp") << n(tp) << QStringLiteral("--activation")
         << (m.activation == core::Activation::SwiGlu ? QStringLiteral("swiglu") : QStringLiteral("gelu"));
    if (m.isMoe() && m.moe->topK > 0 && m.moe->expertFfnHidden > 0) {
        const int ep = m.moe->experts % std::max(1, s.parallel.ep) == 0 ? std::max(1, s.parallel.ep) : 1;
        args << QStringLiteral("--experts") << n(m.moe->experts) << QStringLiteral("--top-k") << n(m.moe->topK)
             << QStringLiteral("--expert-ffn") << n(m.moe->expertFfnHidden) << QStringLiteral("--ep") << n(ep);
    }
    return args;
}

bool ProbeTab::runProbe()
{
    if (isRunning())
        return false;
    if (m_probePath.isEmpty()) {
        setStatus(tr("parallax-probe was not found: choose it, or load a calibration file made elsewhere."), true);
        return false;
    }
    if (!m_tempDir.isValid()) {
        setStatus(tr("No temporary folder for the probe's output: %1").arg(m_tempDir.errorString()), true);
        return false;
    }
    m_outFile = m_tempDir.filePath(QStringLiteral("parallax-calibration.json"));
    QFile::remove(m_outFile);
    m_stdoutBuffer.clear();
    m_stderr.clear();
    m_lines = 0;
    m_cancelled = false;
    m_log->clear();
    m_currentLine->clear();
    m_progress->setRange(0, 0); // indeterminate: the probe does not announce how many measurements come
    setStatus(tr("Measuring… (a full run takes a few minutes on one GPU)"));
    m_process.start(m_probePath, probeArguments(m_outFile));
    updateButtons();
    return true;
}

void ProbeTab::cancelProbe()
{
    if (!isRunning())
        return;
    m_cancelled = true;
    m_process.kill();
}

void ProbeTab::readOutput()
{
    m_stdoutBuffer += QString::fromLocal8Bit(m_process.readAllStandardOutput());
    qsizetype newline;
    while ((newline = m_stdoutBuffer.indexOf(u'\n')) >= 0) {
        const QString line = m_stdoutBuffer.left(newline);
        m_stdoutBuffer.remove(0, newline + 1);
        m_log->appendPlainText(line);
        ++m_lines;
        if (!line.trimmed().isEmpty())
            m_currentLine->setText(line.trimmed());
    }
}

void ProbeTab::processFinished(int exitCode, QProcess::ExitStatus status)
{
    readOutput();
    if (!m_stdoutBuffer.isEmpty()) {
        m_log->appendPlainText(m_stdoutBuffer);
        m_stdoutBuffer.clear();
    }
    m_progress->setRange(0, 1);
    m_progress->setValue(status == QProcess::NormalExit && (exitCode == 0 || exitCode == kExitSomeFailed) ? 1 : 0);
    const QStringList errLines = m_stderr.split(u'\n', Qt::SkipEmptyParts);
    const QString lastError = errLines.isEmpty() ? QString() : withoutProgramPrefix(errLines.last());
    for (const QString& line : errLines)
        m_log->appendPlainText(line);
    updateButtons();
    if (m_cancelled) {
        setStatus(tr("Cancelled; the engine keeps its current numbers."));
        return;
    }
    if (status != QProcess::NormalExit) {
        setStatus(tr("The probe stopped unexpectedly (%1); the engine keeps its current numbers.")
                      .arg(m_process.errorString()),
            true);
        return;
    }
    if (exitCode == kExitNoDevice) {
        // The probe's one line: "no CUDA device found: using datasheet numbers".
        setStatus(lastError.isEmpty() ? tr("no CUDA device found: using datasheet numbers") : lastError);
        m_currentLine->setText(lastError);
        return;
    }
    if (exitCode != 0 && exitCode != kExitSomeFailed) {
        setStatus(tr("The probe failed (exit code %1): %2").arg(exitCode).arg(lastError), true);
        return;
    }
    if (!loadCalibrationFile(m_outFile))
        return;
    if (exitCode == kExitSomeFailed)
        setStatus(tr("Measured, but %1 failed; the rest is loaded.")
                      .arg(format::plural(
                          static_cast<int>(m_calibration->failures.size()), tr("measurement"), tr("measurements"))),
            true);
    else
        setStatus(tr("Measured and loaded. Turn on “Apply calibration” to make the engine use it."));
}

bool ProbeTab::loadCalibrationFile(const QString& path)
{
    std::string error;
    auto loaded = core::loadCalibrationFile(QFileInfo(path).absoluteFilePath().toStdString(), error);
    if (!loaded) {
        setStatus(tr("Cannot load %1: %2").arg(QDir::toNativeSeparators(path), QString::fromStdString(error)), true);
        return false;
    }
    m_calibration = std::make_shared<const core::Calibration>(std::move(*loaded));
    m_outFile = QFileInfo(path).absoluteFilePath();
    setStatus(tr("Loaded %1.").arg(QDir::toNativeSeparators(path)));
    refreshTable();
    if (m_applyCheck->isChecked())
        m_document->setCalibration(m_calibration);
    updateButtons();
    return true;
}

void ProbeTab::setApplied(bool on)
{
    if (on && !m_calibration)
        on = false;
    {
        const QSignalBlocker block(m_applyCheck);
        m_applyCheck->setChecked(on);
    }
    m_document->setCalibration(on ? m_calibration : nullptr);
    if (m_calibration)
        setStatus(on ? tr("Applied: the engine uses the measured numbers (the status bar says “calibrated”).")
                     : tr("Not applied: the engine uses datasheet numbers."));
}

bool ProbeTab::isApplied() const
{
    return m_calibration && m_document->calibration() == m_calibration;
}

void ProbeTab::refreshTable()
{
    const core::Scenario& s = m_document->scenario();
    const core::GpuSpec gpu = s.topology.gpuCount() > 0 ? s.topology.gpuSpec(0) : core::GpuSpec {};
    m_model->setCalibration(m_calibration, gpu);
    if (!m_calibration) {
        m_source->setText(tr("No calibration loaded: the engine uses the datasheet of %1.")
                              .arg(QString::fromStdString(gpu.name).toHtmlEscaped()));
        return;
    }
    const core::Calibration& c = *m_calibration;
    QString text = tr("Measured on <b>%1</b>%2%3, beside the datasheet of the scenario's <b>%4</b>.")
                       .arg(QString::fromStdString(c.gpuName).toHtmlEscaped(),
                           c.gpuCount > 1 ? QStringLiteral(" ×%1").arg(c.gpuCount) : QString(),
                           c.date.empty() ? QString() : tr(" on %1").arg(QString::fromStdString(c.date).left(10)),
                           QString::fromStdString(gpu.name).toHtmlEscaped());
    // A calibration describes one GPU model; say so when it is not the scenario's.
    const QString shortName = format::gpuShortName(QString::fromStdString(gpu.name)).section(u' ', 0, 0);
    if (!shortName.isEmpty() && !QString::fromStdString(c.gpuName).contains(shortName, Qt::CaseInsensitive))
        text += QStringLiteral(" <span style='color:%1'>⚠ %2</span>")
                    .arg(theme::warningColor().darker(130).name(),
                        tr("Another GPU model than the scenario's: its numbers would misdescribe this cluster."));
    if (!c.failures.empty())
        text += QStringLiteral("<br>")
            + tr("%1 failed and kept datasheet numbers.")
                  .arg(format::plural(static_cast<int>(c.failures.size()), tr("measurement"), tr("measurements")));
    m_source->setText(text);
}

void ProbeTab::setStatus(const QString& text, bool problem)
{
    m_status->setText(problem
            ? QStringLiteral("<span style='color:%1'>%2</span>").arg(theme::problemColor().name(), text.toHtmlEscaped())
            : text.toHtmlEscaped());
    m_status->setProperty("plainText", text);
}

QString ProbeTab::statusText() const
{
    return m_status->property("plainText").toString();
}

QString ProbeTab::currentLine() const
{
    return m_currentLine->text();
}

void ProbeTab::updateButtons()
{
    const bool running = isRunning();
    m_runButton->setEnabled(!running && !m_probePath.isEmpty());
    m_cancelButton->setEnabled(running);
    m_chooseButton->setEnabled(!running);
    m_loadButton->setEnabled(!running);
    m_quickCheck->setEnabled(!running);
    m_saveButton->setEnabled(!running && m_calibration && !m_outFile.isEmpty());
    m_applyCheck->setEnabled(m_calibration != nullptr);
}

} // namespace parallax::ui
