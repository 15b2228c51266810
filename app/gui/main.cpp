// SPDX-License-Identifier: Apache-2.0
// parallax: the desktop application. Thin: options, then the main window (ui/).
#include "core/io/PresetLibrary.h"
#include "core/parallel/ParallelConfig.h"
#include "ui/DecisionMatrixDialog.h"
#include "ui/DesignCompareTab.h"
#include "ui/GanttView.h"
#include "ui/MainWindow.h"
#include "ui/ProbeTab.h"
#include "ui/RankMapView.h"
#include "ui/RecommendationsTab.h"
#include "ui/ScenarioDocument.h"
#include "ui/ScheduleTab.h"
#include "ui/Theme.h"
#include "ui/render/GanttModel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <cstdio>
#include <cstring>
#include <functional>

namespace {
bool hasArg(int argc, char** argv, const char* name)
{
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], name) == 0 || std::strncmp(argv[i], name, std::strlen(name)) == 0)
            return true;
    }
    return false;
}
// --screenshot: processes events until `done` or the deadline.
bool waitUntil(const std::function<bool()>& done, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!done() && !deadline.hasExpired())
        QApplication::processEvents(QEventLoop::AllEvents, 50);
    return done();
}

// "0.3,0.45" -> {0.3, 0.45}; empty when malformed.
std::vector<double> fractions(const QString& text)
{
    std::vector<double> out;
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const double v = part.toDouble(&ok);
        if (!ok)
            return {};
        out.push_back(v);
    }
    return out;
}
} // namespace

int main(int argc, char** argv)
{
    // Answer --version without a display: QApplication needs a platform plugin (BUILD-NOTES pitfall 4).
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--version") == 0 || std::strcmp(argv[i], "-v") == 0) {
            std::printf("parallax %s\n", PARALLAX_VERSION);
            return 0;
        }
    }
    const bool screenshot = hasArg(argc, argv, "--screenshot");
    const bool help = hasArg(argc, argv, "--help") || hasArg(argc, argv, "-h");
    const bool display = qEnvironmentVariableIsSet("DISPLAY") || qEnvironmentVariableIsSet("WAYLAND_DISPLAY");
    if (!display && !qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) {
        if (!screenshot && !help) {
            std::fprintf(stderr,
                "parallax: no display (DISPLAY is not set). Run it in a desktop session, set "
                "QT_QPA_PLATFORM=offscreen, or use parallax-cli.\n");
            return 2;
        }
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }

    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Parallax"));
    QApplication::setApplicationName(QStringLiteral("Parallax"));
    QApplication::setApplicationVersion(QStringLiteral(PARALLAX_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("io.github.parallax.Parallax"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/parallax.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Parallax: a desktop explorer for parallelism in LLM training."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"),
        QStringLiteral("Scenario file (*.parallax.json) to open; "
                       "without it, the default preset opens."),
        QStringLiteral("[FILE]"));
    const QCommandLineOption screenshotOption(QStringLiteral("screenshot"),
        QStringLiteral("Render the window into FILE (PNG) once the engine has "
                       "answered, then exit. Uses fresh settings."),
        QStringLiteral("FILE"));
    const QCommandLineOption sizeOption(QStringLiteral("size"), QStringLiteral("Window size for --screenshot."),
        QStringLiteral("WxH"), QStringLiteral("1600x1000"));
    const QCommandLineOption tabOption(QStringLiteral("tab"),
        QStringLiteral("Tab to show first: rankmap, memory, schedule, recommendations, probe, compare (or 1..6)."),
        QStringLiteral("NAME"));
    const QCommandLineOption dimOption(
        QStringLiteral("dim"), QStringLiteral("Rank map dimension: tp, cp, dp, pp, ep, edp."), QStringLiteral("DIM"));
    const QCommandLineOption darkOption(QStringLiteral("dark"), QStringLiteral("Use the dark palette."));
    const QCommandLineOption compareOption(QStringLiteral("compare"),
        QStringLiteral("Schedule tab: compare these schedules, e.g. 1f1b,interleaved-1f1b,dualpipe."),
        QStringLiteral("LIST"));
    const QCommandLineOption cursorOption(QStringLiteral("cursor"),
        QStringLiteral("Schedule tab: put the animation cursor at this fraction of the timeline (0..1)."),
        QStringLiteral("F"));
    const QCommandLineOption zoomOption(QStringLiteral("zoom"),
        QStringLiteral("Schedule tab: show this part of the timeline, as fractions FROM,TO (0..1)."),
        QStringLiteral("FROM,TO"));
    const QCommandLineOption searchOption(
        QStringLiteral("search"), QStringLiteral("Recommendations tab: run the search (--screenshot waits for it)."));
    const QCommandLineOption calibrationOption(QStringLiteral("calibration"),
        QStringLiteral("Load this probe calibration and apply it."), QStringLiteral("FILE"));
    const QCommandLineOption probeOption(
        QStringLiteral("probe"), QStringLiteral("The parallax-probe executable to use."), QStringLiteral("FILE"));
    const QCommandLineOption runProbeOption(
        QStringLiteral("run-probe"), QStringLiteral("Probe tab: run the probe (--screenshot waits for it)."));
    const QCommandLineOption designBOption(QStringLiteral("design-b"),
        QStringLiteral("Compare designs tab: pin the opened design as A, then edit it into B with these changes, "
                       "e.g. tp=2,cp=4 or gpu=gb200 (tp, cp, pp, vpp, dp, gpu, model)."),
        QStringLiteral("CHANGES"));
    const QCommandLineOption gpuOption(
        QStringLiteral("gpu"), QStringLiteral("Rank map: show this GPU in the detail panel."), QStringLiteral("N"));
    const QCommandLineOption findOption(QStringLiteral("find"),
        QStringLiteral("Rank map: search for \"rank 517\", \"gpu 12\" or a domain name."), QStringLiteral("QUERY"));
    const QCommandLineOption mapZoomOption(
        QStringLiteral("map-zoom"), QStringLiteral("Rank map: zoom factor (1 fits the view)."), QStringLiteral("Z"));
    const QCommandLineOption matrixOption(QStringLiteral("matrix"),
        QStringLiteral("Open Tools > Decision Matrix and fill the guide's matrix (--screenshot waits for it and "
                       "captures the dialog)."));
    parser.addOptions({ screenshotOption, sizeOption, tabOption, dimOption, darkOption, compareOption, cursorOption,
        zoomOption, searchOption, calibrationOption, probeOption, runProbeOption, designBOption, gpuOption, findOption,
        mapZoomOption, matrixOption });
    parser.process(app);

    QTemporaryDir settingsDir;
    if (screenshot) {
        // Reproducible pictures: no saved window state, no recent files.
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
    }
    const bool dark
        = parser.isSet(darkOption) || (!screenshot && QSettings().value(QStringLiteral("darkPalette")).toBool());
    parallax::ui::theme::applyPalette(app, dark);

    parallax::ui::MainWindow window;
    if (screenshot) {
        window.setErrorReporter([](const QString& title, const QString& text) {
            std::fprintf(stderr, "parallax: %s: %s\n", qPrintable(title), qPrintable(text));
        });
        window.setUnsavedPrompt([](const QString&) { return QMessageBox::Discard; });
        const QStringList wh = parser.value(sizeOption).split(QLatin1Char('x'));
        if (wh.size() == 2)
            window.resize(wh[0].toInt(), wh[1].toInt());
    }
    window.show();
    const QStringList files = parser.positionalArguments();
    if (files.isEmpty() || !window.openFile(files.front())) {
        if (!files.isEmpty() && screenshot)
            return 1;
        window.openDefault();
    }
    if (parser.isSet(tabOption)) {
        const QString tab = parser.value(tabOption);
        const int named = parallax::ui::MainWindow::tabNames().indexOf(tab.toLower());
        window.tabs()->setCurrentIndex(std::clamp(named >= 0 ? named : tab.toInt() - 1, 0, window.tabs()->count() - 1));
    }
    parallax::ui::ProbeTab* probe = window.probeTab();
    if (parser.isSet(probeOption))
        probe->setProbePath(QFileInfo(parser.value(probeOption)).absoluteFilePath());
    if (parser.isSet(calibrationOption)) {
        if (!probe->loadCalibrationFile(parser.value(calibrationOption))) {
            std::fprintf(stderr, "parallax: %s\n", qPrintable(probe->statusText()));
            if (screenshot)
                return 1;
        } else {
            probe->setApplied(true);
        }
    }
    parallax::ui::ScheduleTab* schedule = window.scheduleTab();
    if (parser.isSet(compareOption)) {
        std::vector<parallax::core::ScheduleKind> kinds;
        for (const QString& name : parser.value(compareOption).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            parallax::core::ScheduleKind kind;
            if (!parallax::core::parseSchedule(name.trimmed().toStdString(), kind)) {
                std::fprintf(stderr, "parallax: --compare: unknown schedule \"%s\"\n", qPrintable(name));
                return 2;
            }
            kinds.push_back(kind);
        }
        schedule->setComparedSchedules(kinds);
        schedule->setCompareMode(true);
    }
    if (parser.isSet(dimOption)) {
        static const std::pair<const char*, parallax::core::Dim> kDims[] = { { "tp", parallax::core::Dim::Tp },
            { "cp", parallax::core::Dim::Cp }, { "dp", parallax::core::Dim::Dp }, { "pp", parallax::core::Dim::Pp },
            { "ep", parallax::core::Dim::Ep }, { "edp", parallax::core::Dim::Edp } };
        for (const auto& [name, dim] : kDims) {
            if (parser.value(dimOption) == QLatin1String(name))
                window.rankMapView()->setDimension(dim);
        }
    }
    if (parser.isSet(designBOption)) {
        if (!window.document()->waitForEvaluation(120000))
            return 1;
        QApplication::processEvents();
        window.compareTab()->pinCurrent();
        parallax::core::Scenario b = window.document()->scenario();
        for (const QString& change : parser.value(designBOption).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            const QString key = change.section(QLatin1Char('='), 0, 0).trimmed();
            const QString value = change.section(QLatin1Char('='), 1).trimmed();
            const auto& library = parallax::core::PresetLibrary::instance();
            bool ok = true;
            const int n = value.toInt(&ok);
            if (key == QLatin1String("tp") && ok)
                b.parallel.tp = n;
            else if (key == QLatin1String("cp") && ok)
                b.parallel.cp = n;
            else if (key == QLatin1String("pp") && ok)
                b.parallel.pp = n;
            else if (key == QLatin1String("vpp") && ok)
                b.parallel.vpp = n;
            else if (key == QLatin1String("dp") && ok)
                b.parallel.dp = n;
            else if (key == QLatin1String("gpu") && library.gpu(value.toStdString())) {
                for (auto& d : b.topology.domains)
                    d.gpu = *library.gpu(value.toStdString());
            } else if (key == QLatin1String("model") && library.model(value.toStdString())) {
                b.model = *library.model(value.toStdString());
                b.modelPreset = value.toStdString();
            } else {
                std::fprintf(stderr, "parallax: --design-b: cannot apply \"%s\"\n", qPrintable(change));
                return 2;
            }
        }
        window.document()->edit(QStringLiteral("Design B"), [b](parallax::core::Scenario& s) { s = b; });
    }
    parallax::ui::RecommendationsTab* recommendations = window.recommendationsTab();
    if (parser.isSet(searchOption))
        recommendations->startSearch();
    parallax::ui::DecisionMatrixDialog* matrix = parser.isSet(matrixOption) ? window.showDecisionMatrix() : nullptr;
    if (matrix)
        matrix->fill();
    if (parser.isSet(runProbeOption) && !probe->runProbe())
        std::fprintf(stderr, "parallax: the probe did not run: %s\n", qPrintable(probe->statusText()));
    if (!screenshot)
        return QApplication::exec();

    if (!window.document()->waitForEvaluation(120000)) {
        std::fprintf(stderr, "parallax: the engine did not answer in time\n");
        return 1;
    }
    QApplication::processEvents();
    if (!waitUntil([schedule] { return !schedule->comparisonPending(); }, 120000)) {
        std::fprintf(stderr, "parallax: the schedule comparison did not finish in time\n");
        return 1;
    }
    parallax::ui::GanttView* gantt = schedule->gantt();
    if (parser.isSet(zoomOption) && gantt->model()) {
        const auto z = fractions(parser.value(zoomOption));
        const double end = gantt->model()->endTime();
        if (z.size() == 2)
            gantt->setView(z[0] * end, z[1] * end, false);
    }
    parallax::ui::RankMapView* rankMap = window.rankMapView();
    if (parser.isSet(mapZoomOption))
        rankMap->setZoom(parser.value(mapZoomOption).toDouble());
    if (parser.isSet(gpuOption))
        rankMap->clickGpu(parser.value(gpuOption).toInt());
    if (parser.isSet(findOption))
        rankMap->find(parser.value(findOption));
    if (parser.isSet(cursorOption) && gantt->model())
        gantt->setCursorTime(parser.value(cursorOption).toDouble() * gantt->model()->endTime());
    if (parser.isSet(searchOption)) {
        if (!waitUntil([recommendations] { return !recommendations->isSearching(); }, 300000)) {
            std::fprintf(stderr, "parallax: the search did not finish in time\n");
            return 1;
        }
    }
    if (parser.isSet(runProbeOption)) {
        if (!waitUntil([probe] { return !probe->isRunning(); }, 600000) || !probe->calibration()) {
            std::fprintf(stderr, "parallax: the probe did not run: %s\n", qPrintable(probe->statusText()));
            return 1;
        }
        probe->setApplied(probe->calibration() != nullptr);
        window.document()->waitForEvaluation(120000);
    }
    if (matrix && !waitUntil([matrix] { return !matrix->running(); }, 600000)) {
        std::fprintf(stderr, "parallax: the decision matrix did not fill in time\n");
        return 1;
    }
    QApplication::processEvents();
    const QString out = parser.value(screenshotOption);
    QWidget* shown = matrix ? static_cast<QWidget*>(matrix) : &window;
    if (!shown->grab().save(out)) {
        std::fprintf(stderr, "parallax: cannot write %s\n", qPrintable(out));
        return 1;
    }
    std::printf("%s\n", qPrintable(QDir::toNativeSeparators(out)));
    return 0;
}
