// SPDX-License-Identifier: Apache-2.0
#include "ui/render/GuiSession.h"

#include <QFontDatabase>
#include <QGuiApplication>
#include <cstdio>

namespace parallax::render {

namespace {
QtMessageHandler g_previousHandler = nullptr;

// The offscreen platform's notice about XDG_RUNTIME_DIR says nothing to a CLI user.
void quietHandler(QtMsgType type, const QMessageLogContext& context, const QString& message)
{
    if (type <= QtWarningMsg && message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR")))
        return;
    if (g_previousHandler)
        g_previousHandler(type, context, message);
    else
        std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, message)));
}
} // namespace

GuiSession::GuiSession()
{
    if (QCoreApplication::instance())
        return;
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    g_previousHandler = qInstallMessageHandler(quietHandler);
    m_app = std::make_unique<QGuiApplication>(m_argc, m_argv);
}

GuiSession::~GuiSession()
{
    if (m_app) {
        m_app.reset();
        qInstallMessageHandler(g_previousHandler);
    }
}

QString GuiSession::fontProblem()
{
    if (QFontDatabase::families().contains(QStringLiteral("DejaVu Sans")))
        return {};
    return QStringLiteral("the font \"DejaVu Sans\" is not installed (Debian: fonts-dejavu-core); text uses a fallback "
                          "font and may render as empty boxes");
}

} // namespace parallax::render
