// SPDX-License-Identifier: Apache-2.0
#include "ui/MainWindow.h"

#include "core/calibration/Calibration.h"
#include "core/io/BoundedRead.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/launch/OwnRunRecord.h"
#include "core/launch/TrainingLogReader.h"
#include "core/memory/RangeText.h"
#include "ui/AccuracyDialog.h"
#include "ui/ConfigPanel.h"
#include "ui/DecisionMatrixDialog.h"
#include "ui/DesignCompareTab.h"
#include "ui/ExportDialog.h"
#include "ui/Format.h"
#include "ui/GanttView.h"
#include "ui/InferenceStatus.h"
#include "ui/LaunchActions.h"
#include "ui/MemoryTab.h"
#include "ui/PresetGallery.h"
#include "ui/ProbeTab.h"
#include "ui/RankMapView.h"
#include "ui/RecommendationsTab.h"
#include "ui/ReportExport.h"
#include "ui/ScenarioDocument.h"
#include "ui/ScheduleTab.h"
#include "ui/Theme.h"
#include "ui/TopologyEditor.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontMetrics>
#include <QLabel>
#include <QMenuBar>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoStack>

namespace parallax::ui {

namespace {
constexpr int kMaxRecentFiles = 8;
const QString kRecentKey = QStringLiteral("recentFiles");
const QString kFileFilter = QObject::tr("Parallax scenarios (*.parallax.json *.json);;All files (*)");
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_document(new ScenarioDocument(this))
{
    setObjectName(QStringLiteral("MainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/parallax.svg")));
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("reportTabs"));
    m_tabs->setDocumentMode(true);
    m_rankMap = new RankMapView(m_tabs);
    m_memory = new MemoryTab(m_tabs);
    m_schedule = new ScheduleTab(m_tabs);
    m_tabs->addTab(m_rankMap, tr("Rank map"));
    m_tabs->addTab(m_memory, tr("Memory"));
    m_recommendations = new RecommendationsTab(m_document, m_tabs);
    m_probe = new ProbeTab(m_document, m_tabs);
    m_tabs->addTab(m_schedule, tr("Schedule"));
    m_tabs->addTab(m_recommendations, tr("Recommendations"));
    m_tabs->addTab(m_probe, tr("Probe"));
    m_compare = new DesignCompareTab(m_tabs);
    m_tabs->addTab(m_compare, tr("Compare designs"));
    setCentralWidget(m_tabs);

    auto* topologyDock = new QDockWidget(tr("Topology"), this);
    topologyDock->setObjectName(QStringLiteral("topologyDock"));
    m_topology = new TopologyEditor(m_document, topologyDock);
    topologyDock->setWidget(m_topology);
    addDockWidget(Qt::LeftDockWidgetArea, topologyDock);

    auto* configDock = new QDockWidget(tr("Configuration"), this);
    configDock->setObjectName(QStringLiteral("configDock"));
    auto* scroll = new QScrollArea(configDock);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_config = new ConfigPanel(m_document, scroll);
    scroll->setWidget(m_config);
    scroll->setMinimumWidth(m_config->minimumSizeHint().width() + scroll->verticalScrollBar()->sizeHint().width() + 2);
    configDock->setWidget(scroll);
    addDockWidget(Qt::RightDockWidgetArea, configDock);

    m_stepLabel = new QLabel(this);
    m_mfuLabel = new QLabel(this);
    m_memoryLabel = new QLabel(this);
    m_findingsLabel = new QLabel(this);
    m_calibrationLabel = new QLabel(this);
    m_busyLabel = new QLabel(this);
    m_stepLabel->setObjectName(QStringLiteral("statusStep"));
    m_mfuLabel->setObjectName(QStringLiteral("statusMfu"));
    m_memoryLabel->setObjectName(QStringLiteral("statusMemory"));
    m_findingsLabel->setObjectName(QStringLiteral("statusFindings"));
    m_calibrationLabel->setObjectName(QStringLiteral("statusCalibration"));
    statusBar()->addWidget(m_busyLabel, 1);
    for (QLabel* l : { m_calibrationLabel, m_stepLabel, m_mfuLabel, m_memoryLabel, m_findingsLabel }) {
        l->setTextFormat(Qt::RichText);
        statusBar()->addPermanentWidget(l);
    }

    createMenus();
    connect(m_document, &ScenarioDocument::evaluationChanged, this, [this] {
        const EvaluationPtr e = m_document->evaluation();
        m_rankMap->setEvaluation(e);
        m_memory->setEvaluation(e);
        m_schedule->setEvaluation(e);
        m_compare->setEvaluation(e);
        updateStatus();
    });
    connect(m_document, &ScenarioDocument::scenarioChanged, this, [this] {
        updateStatus();
        updateTitle();
    });
    connect(
        m_document, &ScenarioDocument::modifiedChanged, this, [this](bool modified) { setWindowModified(modified); });
    connect(m_document, &ScenarioDocument::filePathChanged, this, [this] {
        m_titleDesign = designLine(m_document->scenario());
        updateTitle();
    });
    connect(m_document, &ScenarioDocument::calibrationChanged, this, [this] { updateStatus(); });
    m_rankMap->setHighlightCallback([this](const std::vector<int>& gpus) { m_topology->setHighlightedGpus(gpus); });
    m_topology->setGpuClickedCallback([this](int gpu) { m_rankMap->showGpuDetail(gpu); });

    m_unsavedPrompt = [this](const QString& name) {
        return QMessageBox::warning(this, tr("Unsaved changes"),
            tr("“%1” has changes that are not saved. Save them?").arg(name),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    };
    m_errorReporter = [this](const QString& title, const QString& text) {
        QMessageBox box(QMessageBox::Critical, title, text, QMessageBox::Ok, this);
        box.setDetailedText(m_lastErrorDetails);
        box.exec();
    };

    QSettings settings;
    m_document->setAutoDataParallel(settings.value(QStringLiteral("autoDataParallel"), true).toBool());
    resize(1600, 1000);
    resizeDocks({ topologyDock, configDock }, { 470, 390 }, Qt::Horizontal);
    if (!restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray()))
        resize(1600, 1000);
    restoreState(settings.value(QStringLiteral("windowState")).toByteArray());
    updateStatus();
    updateTitle();
}

MainWindow::~MainWindow() = default;

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* newAction = file->addAction(tr("&New"), this, [this] {
        if (maybeSave())
            openDefault();
    });
    newAction->setShortcut(QKeySequence::New);
    newAction->setStatusTip(tr("Start over from the default scenario"));
    file->addAction(tr("&Open…"), this,
            [this] {
                if (!maybeSave())
                    return;
                const QString path = QFileDialog::getOpenFileName(this, tr("Open scenario"), QString(), kFileFilter);
                if (!path.isEmpty())
                    openFile(path);
            })
        ->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open &Preset…"), this,
            [this] {
                if (!maybeSave())
                    return;
                PresetGallery gallery(this);
                if (gallery.exec() == QDialog::Accepted && !gallery.selectedPresetId().isEmpty())
                    openPreset(gallery.selectedPresetId());
            })
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::fillRecentMenu);
    file->addSeparator();
    file->addAction(tr("&Save"), this, &MainWindow::save)->setShortcut(QKeySequence::Save);
    // QKeySequence::SaveAs is empty on some platforms (and offscreen): Ctrl+Shift+S everywhere.
    file->addAction(tr("Save &As…"), this, &MainWindow::saveAsDialog)
        ->setShortcuts({ QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S) });
    file->addAction(tr("&Export…"), this, &MainWindow::exportDialog)->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    launch::addMenuActions(file, this);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_document->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = m_document->undoStack()->createRedoAction(this, tr("&Redo"));
    QList<QKeySequence> redoKeys = QKeySequence::keyBindings(QKeySequence::Redo);
    const QKeySequence ctrlShiftZ(Qt::CTRL | Qt::SHIFT | Qt::Key_Z);
    // Ctrl+Y is the redo key users from every platform reach for, besides the platform's own.
    for (const QKeySequence& key : { ctrlShiftZ, QKeySequence(Qt::CTRL | Qt::Key_Y) }) {
        if (!redoKeys.contains(key))
            redoKeys.append(key);
    }
    redo->setShortcuts(redoKeys);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    edit->addAction(tr("&Generate Cluster…"), m_topology, &TopologyEditor::showGenerateDialog)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());
    view->addSeparator();
    for (int i = 0; i < m_tabs->count(); ++i) {
        QAction* a = view->addAction(m_tabs->tabText(i), this, [this, i] { m_tabs->setCurrentIndex(i); });
        a->setShortcut(QKeySequence(Qt::ALT | static_cast<Qt::Key>(Qt::Key_1 + i)));
    }
    view->addSeparator();
    m_darkAction = view->addAction(tr("&Dark Palette"));
    m_darkAction->setCheckable(true);
    m_darkAction->setChecked(QSettings().value(QStringLiteral("darkPalette"), false).toBool());
    connect(m_darkAction, &QAction::toggled, this, &MainWindow::setDarkPalette);

    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    tools->addAction(tr("Decision &Matrix…"), this, &MainWindow::showDecisionMatrix)
        ->setStatusTip(tr("The guide's summary table: the best configuration per model and GPU count, searched"));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    m_lessonAction = help->addAction(tr("&Lesson of This Scenario"), this, &MainWindow::showLesson);
    m_lessonAction->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&Accuracy on Published Runs…"), this, &MainWindow::showAccuracy);
    help->addSeparator();
    help->addAction(tr("&About Parallax"), this,
            [this] {
                QMessageBox::about(this, tr("About Parallax"),
                    tr("<h3>Parallax %1</h3><p>A desktop explorer for parallelism in LLM training: build a "
                       "GPU topology, pick a model and parallel degrees, and see the rank map, memory per GPU, "
                       "step time and the pipeline schedule.</p>")
                        .arg(QStringLiteral(PARALLAX_VERSION)));
            })
        ->setMenuRole(QAction::AboutRole);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt)->setMenuRole(QAction::AboutQtRole);
}

void MainWindow::setDarkPalette(bool dark)
{
    theme::applyPalette(*qApp, dark);
    QSettings().setValue(QStringLiteral("darkPalette"), dark);
    if (m_darkAction && m_darkAction->isChecked() != dark)
        m_darkAction->setChecked(dark);
}

QString MainWindow::statusText() const
{
    QStringList parts;
    for (const QLabel* l : { m_calibrationLabel, m_stepLabel, m_mfuLabel, m_memoryLabel, m_findingsLabel }) {
        if (l->text().isEmpty())
            continue;
        QString t = l->text();
        t.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
        parts << t;
    }
    return parts.join(QStringLiteral(" | "));
}

void MainWindow::updateStatus()
{
    const EvaluationPtr e = m_document->evaluation();
    m_busyLabel->setText(m_document->evaluationPending() ? tr("Computing…") : QString());
    const auto& r = e->report;
    if (m_accuracy && !r.stepTimeFamily.empty())
        m_accuracy->setDesignFamily(QString::fromStdString(r.stepTimeFamily));
    const QString problem = theme::problemColor().name();
    if (e->generation == 0) {
        for (QLabel* l : { m_calibrationLabel, m_stepLabel, m_mfuLabel, m_memoryLabel, m_findingsLabel })
            l->clear();
        return;
    }
    if (e->calibration) {
        m_calibrationLabel->setText(tr("<b>calibrated</b>"));
        QStringList used;
        for (const std::string& q : r.calibrated)
            used << QString::fromStdString(q);
        m_calibrationLabel->setToolTip(
            tr("The engine uses numbers the probe measured on %1: %2")
                .arg(QString::fromStdString(e->calibration->gpuName),
                    used.isEmpty() ? tr("none that this scenario needs") : used.join(QStringLiteral(", "))));
    } else {
        m_calibrationLabel->setText(tr("datasheet"));
        m_calibrationLabel->setToolTip(tr(
            "The engine uses datasheet numbers times default efficiencies (Probe tab: measure or load a calibration)"));
    }
    if (e->scenario.mode == core::ScenarioMode::Inference) {
        // Inference mode: latency, throughput and KV capacity in the same three cells.
        const InferenceStatus st = r.inference ? inferenceStatus(*r.inference) : InferenceStatus {};
        m_stepLabel->setText(r.inference ? st.latency : tr("TTFT –"));
        m_stepLabel->setToolTip(st.latencyTip);
        m_mfuLabel->setText(r.inference ? st.throughput : tr("tokens/s –"));
        m_mfuLabel->setToolTip(st.throughputTip);
        m_memoryLabel->setText(r.inference ? st.memory : tr("KV –"));
        m_memoryLabel->setToolTip(st.memoryTip);
    } else {
        if (r.stepTimeSeconds > 0) {
            m_stepLabel->setText(tr("Step <b>%1</b> · %2 tokens/s")
                                     .arg(QString::fromStdString(core::stepTimeRangeText(r)).toHtmlEscaped(),
                                         format::count(r.tokensPerSecond)));
            m_mfuLabel->setText(tr("MFU <b>%1</b> · %2 per GPU")
                                    .arg(format::percent(r.mfu), format::flopsPerSecond(r.tflopsPerGpu * 1e12)));
        } else {
            m_stepLabel->setText(tr("Step –"));
            m_mfuLabel->setText(tr("MFU –"));
        }
        m_stepLabel->setToolTip(
            tr("Time of one optimizer step (pipeline %1, exposed data-parallel %2, optimizer %3); "
               "range: measured error on published runs of %4")
                .arg(format::seconds(r.step.pipelineSeconds), format::seconds(r.step.dpExposedSeconds),
                    format::seconds(r.step.optimizerSeconds),
                    QString::fromStdString(core::stepTimeRangeSourceText(r))));
        m_mfuLabel->setToolTip(tr("Model FLOPs utilization; HFU (with recompute) %1").arg(format::percent(r.hfu)));
        if (r.hbmBytes > 0 && r.peakMemoryBytes > 0) {
            const QString range = QString::fromStdString(core::peakMemoryRangeText(r)).toHtmlEscaped();
            const QString verdict = QString::fromLatin1(core::toString(r.memoryVerdict));
            const QString text = tr("Peak <b>%1</b> of %2 HBM: %3").arg(range, format::bytes(r.hbmBytes), verdict);
            if (r.memoryVerdict == core::MemoryVerdict::DoesNotFit)
                m_memoryLabel->setText(QStringLiteral("<span style='color:%1'>%2 ✖</span>").arg(problem, text));
            else if (r.memoryVerdict == core::MemoryVerdict::Tight)
                m_memoryLabel->setText(
                    QStringLiteral("<span style='color:%1'>%2 ⚠</span>").arg(theme::warningColor().name(), text));
            else
                m_memoryLabel->setText(text);
            const double margin = r.hbmBytes - r.peakMemoryBytes;
            m_memoryLabel->setToolTip(r.memoryVerdict == core::MemoryVerdict::DoesNotFit
                    ? tr("Does not fit: over by %1 even at the low end of the memory model's error")
                          .arg(format::bytes(r.peakMemoryLowBytes - r.hbmBytes))
                    : r.memoryVerdict == core::MemoryVerdict::Tight
                    ? tr("Tight: the range of the memory model's measured error straddles HBM (estimate %1 %2)")
                          .arg(margin >= 0 ? tr("under by") : tr("over by"), format::bytes(qAbs(margin)))
                    : tr("Fits with %1 to spare, even at the high end of the range")
                          .arg(format::bytes(r.hbmBytes - r.peakMemoryHighBytes)));
        } else {
            m_memoryLabel->setText(tr("Peak –"));
        }
    }
    const int errors = static_cast<int>(r.errors.size());
    const int warnings = static_cast<int>(r.warnings.size());
    QString findings = format::plural(warnings, tr("warning"), tr("warnings"));
    if (errors > 0)
        findings = QStringLiteral("<span style='color:%1'><b>%2</b></span> · ")
                       .arg(problem, format::plural(errors, tr("error"), tr("errors")))
            + findings;
    else if (warnings > 0)
        findings = QStringLiteral("<span style='color:%1'>⚠</span> ").arg(theme::warningColor().name()) + findings;
    m_findingsLabel->setText(findings);
}

QString MainWindow::designLine(const core::Scenario& s)
{
    const QString gpu
        = s.topology.domains.empty() ? QString() : QString::fromStdString(s.topology.domains.front().gpu.name);
    return tr("%1 on %2 %3").arg(QString::fromStdString(s.model.name)).arg(s.topology.gpuCount()).arg(gpu);
}

void MainWindow::updateTitle()
{
    const core::Scenario& s = m_document->scenario();
    const QString path = m_document->filePath();
    QString name = s.name.empty() ? tr("Untitled") : QString::fromStdString(s.name);
    // The scenario's name describes the design it was saved with; after the model or cluster
    // changed, the title says what is on screen now.
    if (const QString now = designLine(s); !m_titleDesign.isEmpty() && now != m_titleDesign)
        name = tr("%1 (edited from “%2”)").arg(now, name);
    setWindowTitle(path.isEmpty() ? tr("%1[*] — Parallax").arg(name)
                                  : tr("%1[*] — %2 — Parallax").arg(name, QFileInfo(path).fileName()));
    setWindowFilePath(path);
    if (m_lessonAction)
        m_lessonAction->setEnabled(!s.description.empty());
}

void MainWindow::reportError(const QString& title, const QString& text, const QString& details)
{
    m_lastErrorDetails = details;
    if (m_errorReporter)
        m_errorReporter(title, text);
}

bool MainWindow::openFile(const QString& path)
{
    core::LoadError error;
    auto scenario = core::loadScenarioFile(QFileInfo(path).absoluteFilePath().toStdString(), error);
    if (!scenario) {
        // One sentence up front; the parser's own text (with the bytes it read) behind Show Details.
        const QString full = QString::fromStdString(error.text());
        const QString file = QFileInfo(path).fileName();
        QString what;
        const auto where = QRegularExpression(QStringLiteral("line (\\d+), column (\\d+)")).match(full);
        // "not valid JSON in parallel.tp (...)": the field where the parser stopped, when the reader knows it.
        const auto field = QRegularExpression(QStringLiteral("not valid JSON in ([^ (]+)")).match(full);
        const QString json
            = field.hasMatch() ? tr("not valid JSON in %1").arg(field.captured(1)) : tr("not valid JSON");
        if (full.contains(QStringLiteral("not valid JSON")))
            what = where.hasMatch() ? tr("%1 is %2 (line %3, column %4): the file is incomplete or damaged.")
                                          .arg(file, json, where.captured(1), where.captured(2))
                                    : tr("%1 is %2: the file is incomplete or damaged.").arg(file, json);
        else {
            // The reader's text starts with the path, which the sentence names already: without it the
            // field and its fix come first (issue 16).
            QString reason = full.section(u'\n', 0, 0);
            const QString prefix = QFileInfo(path).absoluteFilePath() + QStringLiteral(": ");
            if (reason.startsWith(prefix))
                reason.remove(0, prefix.size());
            what = tr("%1 is not a usable scenario: %2.")
                       .arg(file, QFontMetrics(font()).elidedText(reason, Qt::ElideRight, 600));
        }
        reportError(
            tr("Cannot open scenario"), what + QStringLiteral("\n") + tr("The current scenario is unchanged."), full);
        return false;
    }
    m_document->reset(std::move(*scenario), QFileInfo(path).absoluteFilePath());
    m_topology->fitAll();
    addRecentFile(m_document->filePath());
    return true;
}

bool MainWindow::openPreset(const QString& id)
{
    const auto* info = core::PresetLibrary::instance().scenario(id.toStdString());
    if (!info) {
        reportError(tr("Cannot open preset"), tr("There is no preset named “%1”.").arg(id));
        return false;
    }
    core::LoadError error;
    auto scenario = core::parseScenario(info->json, error);
    if (!scenario) {
        reportError(tr("Cannot open preset"),
            tr("The preset “%1” is invalid:\n%2").arg(id, QString::fromStdString(error.text())));
        return false;
    }
    m_document->reset(std::move(*scenario));
    m_topology->fitAll();
    return true;
}

void MainWindow::openDefault()
{
    if (openPreset(QString::fromLatin1(core::kDefaultScenarioPreset)))
        return;
    // Without the presets: a small cluster with a small model keeps the window usable.
    core::Scenario s;
    s.name = "Untitled";
    if (!core::PresetLibrary::instance().gpus().empty())
        s.topology = core::Topology::regular(core::PresetLibrary::instance().gpus().front(), 1, 8, 400);
    m_document->reset(std::move(s));
}

bool MainWindow::save()
{
    if (m_document->filePath().isEmpty())
        return saveAsDialog();
    return saveToFile(m_document->filePath());
}

bool MainWindow::saveAsDialog()
{
    QString suggested = m_document->filePath();
    if (suggested.isEmpty()) {
        QString stem = QString::fromStdString(m_document->scenario().name).toLower();
        stem.replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
        suggested = (stem.isEmpty() ? QStringLiteral("scenario") : stem) + QStringLiteral(".parallax.json");
    }
    const QString path = QFileDialog::getSaveFileName(this, tr("Save scenario"), suggested, kFileFilter);
    return !path.isEmpty() && saveToFile(path);
}

bool MainWindow::saveToFile(const QString& path)
{
    QString error;
    if (!m_document->saveAs(path, &error)) {
        reportError(
            tr("Cannot save scenario"), tr("%1 could not be written:\n%2").arg(QDir::toNativeSeparators(path), error));
        return false;
    }
    addRecentFile(m_document->filePath());
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 4000);
    return true;
}

bool MainWindow::maybeSave()
{
    if (!m_document->isModified())
        return true;
    const QString name = QString::fromStdString(m_document->scenario().name);
    switch (m_unsavedPrompt ? m_unsavedPrompt(name) : QMessageBox::Discard) {
    case QMessageBox::Save:
        return save();
    case QMessageBox::Discard:
        return true;
    default:
        return false;
    }
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(QStringLiteral("geometry"), saveGeometry());
    settings.setValue(QStringLiteral("windowState"), saveState());
    settings.setValue(QStringLiteral("autoDataParallel"), m_document->autoDataParallel());
    event->accept();
}

void MainWindow::addRecentFile(const QString& path)
{
    QSettings settings;
    QStringList files = settings.value(kRecentKey).toStringList();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    settings.setValue(kRecentKey, files);
}

void MainWindow::fillRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = QSettings().value(kRecentKey).toStringList();
    for (const QString& path : files) {
        QAction* a = m_recentMenu->addAction(QFileInfo(path).fileName(), this, [this, path] {
            if (maybeSave())
                openFile(path);
        });
        a->setToolTip(QDir::toNativeSeparators(path));
        a->setStatusTip(QDir::toNativeSeparators(path));
    }
    if (files.isEmpty())
        m_recentMenu->addAction(tr("No recent files"))->setEnabled(false);
    else {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear List"), this, [] { QSettings().remove(kRecentKey); });
    }
}

QStringList MainWindow::tabNames()
{
    return { QStringLiteral("rankmap"), QStringLiteral("memory"), QStringLiteral("schedule"),
        QStringLiteral("recommendations"), QStringLiteral("probe"), QStringLiteral("compare") };
}

void MainWindow::exportDialog()
{
    QSettings settings;
    ExportDialog dialog(initialExportRequest(), this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const ExportRequest request = dialog.request();
    settings.setValue(QStringLiteral("exportFolder"), request.folder);
    settings.setValue(QStringLiteral("exportFormat"), static_cast<int>(request.format));
    exportFiles(request);
}

ExportRequest MainWindow::initialExportRequest() const
{
    QSettings settings;
    ExportRequest initial;
    // A saved scenario exports beside itself; an unsaved one where the last export went.
    initial.folder = m_document->filePath().isEmpty() ? settings.value(QStringLiteral("exportFolder")).toString()
                                                      : QFileInfo(m_document->filePath()).path();
    if (initial.folder.isEmpty())
        initial.folder = QDir::homePath();
    QString stem = QString::fromStdString(m_document->scenario().name).toLower();
    stem.replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
    stem.remove(QRegularExpression(QStringLiteral("^-+|-+$")));
    initial.baseName = stem.isEmpty() ? QStringLiteral("parallax") : stem;
    initial.format = static_cast<render::ExportFormat>(
        settings.value(QStringLiteral("exportFormat"), static_cast<int>(render::ExportFormat::Svg)).toInt());
    initial.serving = m_document->scenario().mode == core::ScenarioMode::Inference;
    return initial;
}

ExportSources MainWindow::exportSources() const
{
    ExportSources sources;
    sources.evaluation = m_document->evaluation();
    sources.gantt = m_schedule->ganttModel();
    if (m_schedule->showsComparison())
        sources.comparison = m_schedule->comparison();
    if (const GanttView* gantt = m_schedule->gantt(); gantt && !gantt->targetAxis().isFullyZoomedOut())
        sources.ganttView = render::GanttTimeRange { gantt->targetAxis().viewStart(), gantt->targetAxis().viewEnd() };
    sources.rankMap = m_rankMap->picture();
    const core::SearchResult* search = m_recommendations->result();
    if (search && !m_recommendations->isStale() && search->baselineReason)
        sources.reasons.push_back(search->baselineReason->text);
    return sources;
}

bool MainWindow::exportFiles(const ExportRequest& request)
{
    const ExportOutcome outcome = exportReport(request, exportSources());
    if (!outcome.errors.isEmpty()) {
        QString text = outcome.errors.join(QLatin1Char('\n'));
        if (!outcome.written.isEmpty())
            text += QStringLiteral("\n\n") + tr("Written anyway: %1").arg(outcome.written.join(QStringLiteral(", ")));
        reportError(tr("Cannot export"), text);
    }
    if (!outcome.written.isEmpty())
        statusBar()->showMessage(
            tr("Exported %1 into %2")
                .arg(format::plural(static_cast<int>(outcome.written.size()), tr("file"), tr("files")),
                    QDir::toNativeSeparators(request.folder)),
            6000);
    return outcome.ok();
}

bool MainWindow::exportRankMap(const QString& path)
{
    QString error;
    if (!m_rankMap->exportTo(path, &error)) {
        reportError(tr("Cannot export"), tr("%1 could not be written:\n%2").arg(QDir::toNativeSeparators(path), error));
        return false;
    }
    statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 4000);
    return true;
}

AccuracyDialog* MainWindow::showAccuracy()
{
    if (!m_accuracy) {
        m_accuracy = new AccuracyDialog(
            QString::fromStdString(m_document->evaluation()->report.stepTimeFamily),
            [this](const core::Scenario& s) { replaceDocument(s); }, this);
        m_accuracy->setAttribute(Qt::WA_DeleteOnClose);
    }
    m_accuracy->show();
    m_accuracy->raise();
    return m_accuracy;
}

void MainWindow::replaceDocument(const core::Scenario& s)
{
    if (!maybeSave())
        return;
    m_document->reset(s);
    m_topology->fitAll();
}

DecisionMatrixDialog* MainWindow::showDecisionMatrix()
{
    if (!m_decisionMatrix) {
        m_decisionMatrix = new DecisionMatrixDialog([this] { return m_document->calibration(); },
            [this](const core::Scenario& s) { replaceDocument(s); }, this);
        m_decisionMatrix->setAttribute(Qt::WA_DeleteOnClose);
    }
    m_decisionMatrix->show();
    m_decisionMatrix->raise();
    return m_decisionMatrix;
}

void MainWindow::showLesson()
{
    const core::Scenario& s = m_document->scenario();
    PresetGallery::showLessonOf(this, s);
}

bool MainWindow::exportLaunch(const QString& target, const QString& path)
{
    QString error;
    if (!launch::exportLaunch(m_document->scenario(), target, path, &error)) {
        reportError(tr("Export failed"), error);
        return false;
    }
    statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 4000);
    return true;
}

bool MainWindow::importModelFile(const QString& path)
{
    QString error;
    const auto model = launch::readHfModel(path, &error);
    if (!model) {
        reportError(tr("Import failed"), error);
        return false;
    }
    const core::ModelSpec m = *model;
    m_document->edit(tr("Import model %1").arg(QString::fromStdString(m.name)), [m](core::Scenario& s) {
        s.model = m;
        s.modelPreset.clear();
    });
    return true;
}

bool MainWindow::importLaunchText(const QString& text)
{
    QString error;
    QStringList notes;
    const auto imported = launch::importLaunchText(text, m_document->scenario(), &error, &notes);
    if (!imported) {
        reportError(tr("Import failed"), error);
        return false;
    }
    const core::Scenario scenario = *imported;
    m_document->edit(tr("Import launch command"), [scenario](core::Scenario& s) { s = scenario; });
    statusBar()->showMessage(notes.isEmpty()
            ? tr("Imported the launch command")
            : tr("Imported the launch command; ignored: %1").arg(notes.join(QStringLiteral("; "))),
        8000);
    return true;
}

std::optional<QString> MainWindow::checkTrainingLog(const QString& path, const QString& runsPath)
{
    std::string text, error;
    // A long run's log outgrows the scenario cap: allow 512 MiB, as check-log does.
    if (!core::io::readFileBounded(path.toStdString(), text, error, 512ull * 1024 * 1024)) {
        reportError(tr("Cannot check the log"), QString::fromStdString(error));
        return std::nullopt;
    }
    core::EvaluateOptions options;
    options.calibration = m_document->calibration().get();
    const auto check = core::checkTrainingLog(m_document->scenario(), text, 2, options, error);
    if (!check) {
        reportError(
            tr("Cannot check the log"), tr("%1: %2").arg(QFileInfo(path).fileName(), QString::fromStdString(error)));
        return std::nullopt;
    }
    QString result = QString::fromStdString(check->text());
    if (!runsPath.isEmpty()) {
        const auto id = core::recordRun(*check, path.toStdString(), runsPath.toStdString(), error);
        if (!id) {
            reportError(tr("Cannot record the run"), QString::fromStdString(error));
            return std::nullopt;
        }
        result += tr("recorded as \"%1\" in %2 (Help > Accuracy on Published Runs > Your Runs File… shows it)\n")
                      .arg(QString::fromStdString(*id), QDir::toNativeSeparators(runsPath));
    }
    return result;
}

bool MainWindow::importLaunchFile(const QString& path)
{
    QFile in(path);
    if (!in.open(QIODevice::ReadOnly)) {
        reportError(
            tr("Import failed"), tr("Cannot open %1: %2").arg(QDir::toNativeSeparators(path), in.errorString()));
        return false;
    }
    return importLaunchText(QString::fromUtf8(in.readAll()));
}

} // namespace parallax::ui
