// parallax: the desktop application. Thin: options, then the main window (ui/).
#include "ui/MainWindow.h"
#include "ui/RankMapView.h"
#include "ui/ScenarioDocument.h"
#include "ui/Theme.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <cstdio>
#include <cstring>

namespace {
bool hasArg(int argc, char** argv, const char* name)
{
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], name) == 0 || std::strncmp(argv[i], name, std::strlen(name)) == 0)
            return true;
    }
    return false;
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
        QStringLiteral("Tab to show first: 1 rank map, 2 memory, 3 schedule, 4 recommendations."), QStringLiteral("N"));
    const QCommandLineOption dimOption(
        QStringLiteral("dim"), QStringLiteral("Rank map dimension: tp, cp, dp, pp, ep, edp."), QStringLiteral("DIM"));
    const QCommandLineOption darkOption(QStringLiteral("dark"), QStringLiteral("Use the dark palette."));
    parser.addOptions({ screenshotOption, sizeOption, tabOption, dimOption, darkOption });
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
    if (parser.isSet(tabOption))
        window.tabs()->setCurrentIndex(std::clamp(parser.value(tabOption).toInt() - 1, 0, window.tabs()->count() - 1));
    if (parser.isSet(dimOption)) {
        static const std::pair<const char*, parallax::core::Dim> kDims[] = { { "tp", parallax::core::Dim::Tp },
            { "cp", parallax::core::Dim::Cp }, { "dp", parallax::core::Dim::Dp }, { "pp", parallax::core::Dim::Pp },
            { "ep", parallax::core::Dim::Ep }, { "edp", parallax::core::Dim::Edp } };
        for (const auto& [name, dim] : kDims) {
            if (parser.value(dimOption) == QLatin1String(name))
                window.rankMapView()->setDimension(dim);
        }
    }
    if (!screenshot)
        return QApplication::exec();

    if (!window.document()->waitForEvaluation(120000)) {
        std::fprintf(stderr, "parallax: the engine did not answer in time\n");
        return 1;
    }
    QApplication::processEvents();
    const QString out = parser.value(screenshotOption);
    if (!window.grab().save(out)) {
        std::fprintf(stderr, "parallax: cannot write %s\n", qPrintable(out));
        return 1;
    }
    std::printf("%s\n", qPrintable(QDir::toNativeSeparators(out)));
    return 0;
}
