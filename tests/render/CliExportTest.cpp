// SPDX-License-Identifier: Apache-2.0
#include "RenderTestSupport.h"

#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

struct CliRun {
    int exitCode = -1;
    QString out, err;
};

CliRun cli(const QStringList& args)
{
    QProcess p;
    p.setWorkingDirectory(QStringLiteral(PARALLAX_SOURCE_DIR));
    p.start(QStringLiteral(PARALLAX_CLI_PATH), args);
    p.waitForFinished(120000);
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
        QString::fromUtf8(p.readAllStandardError()) };
}

const QString kScenario = QStringLiteral("presets/scenarios/llama3-70b-64xh100.parallax.json");

} // namespace

// `parallax-cli export` writes every kind of output in one run.
TEST(CliExport, WritesPicturesTraceAndMarkdown)
{
    QTemporaryDir dir;
    const CliRun r = cli(
        { QStringLiteral("export"), kScenario, QStringLiteral("--gantt"), dir.filePath(QStringLiteral("gantt.svg")),
            QStringLiteral("--rankmap"), dir.filePath(QStringLiteral("rankmap.png")), QStringLiteral("--memory"),
            dir.filePath(QStringLiteral("memory.pdf")), QStringLiteral("--trace"),
            dir.filePath(QStringLiteral("trace.json")), QStringLiteral("--markdown"),
            dir.filePath(QStringLiteral("report.md")), QStringLiteral("--scale"), QStringLiteral("2") });
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    EXPECT_FALSE(r.err.contains(QStringLiteral("XDG_RUNTIME_DIR")));

    QFile svg(dir.filePath(QStringLiteral("gantt.svg")));
    ASSERT_TRUE(svg.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&svg);
    while (!xml.atEnd())
        xml.readNext();
    EXPECT_FALSE(xml.hasError());

    const QImage png(dir.filePath(QStringLiteral("rankmap.png")));
    EXPECT_EQ(png.width(), 2 * 1400);
    EXPECT_GE(parallax::render::test::distinctColors(png), 10);

    QFile pdf(dir.filePath(QStringLiteral("memory.pdf")));
    ASSERT_TRUE(pdf.open(QIODevice::ReadOnly));
    EXPECT_TRUE(pdf.readAll().startsWith("%PDF"));

    QFile trace(dir.filePath(QStringLiteral("trace.json")));
    ASSERT_TRUE(trace.open(QIODevice::ReadOnly));
    const auto j = nlohmann::json::parse(trace.readAll().toStdString());
    EXPECT_GT(j["traceEvents"].size(), 16384u);

    QFile md(dir.filePath(QStringLiteral("report.md")));
    ASSERT_TRUE(md.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(md.readAll());
    EXPECT_TRUE(text.contains(QStringLiteral("![Pipeline schedule](gantt.svg)"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("![Rank map](rankmap.png)")));
}

TEST(CliExport, CompareStacksSchedulesAndScheduleOutWritesAPicture)
{
    QTemporaryDir dir;
    CliRun r = cli({ QStringLiteral("export"), kScenario, QStringLiteral("--global-batch"), QStringLiteral("16"),
        QStringLiteral("--compare"), QStringLiteral("1f1b,interleaved-1f1b,dualpipe"), QStringLiteral("--gantt"),
        dir.filePath(QStringLiteral("compare.svg")) });
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    QFile svg(dir.filePath(QStringLiteral("compare.svg")));
    ASSERT_TRUE(svg.open(QIODevice::ReadOnly));
    const QByteArray bytes = svg.readAll();
    EXPECT_TRUE(bytes.contains("op-t2-r7")); // the third lane's last rank
    EXPECT_TRUE(bytes.contains("DualPipe"));

    r = cli({ QStringLiteral("schedule"), QStringLiteral("--pp"), QStringLiteral("4"), QStringLiteral("--microbatches"),
        QStringLiteral("8"), QStringLiteral("--schedule"), QStringLiteral("zb-h1"), QStringLiteral("--out"),
        dir.filePath(QStringLiteral("zb.png")), QStringLiteral("--scale"), QStringLiteral("2") });
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    EXPECT_TRUE(r.out.contains(QStringLiteral("bubble"))); // the table still prints
    const QImage png(dir.filePath(QStringLiteral("zb.png")));
    EXPECT_EQ(png.width(), 2 * 1600);

    r = cli({ QStringLiteral("export"), kScenario, QStringLiteral("--compare"), QStringLiteral("1f1b,nope"),
        QStringLiteral("--gantt"), dir.filePath(QStringLiteral("x.svg")) });
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.err.contains(QStringLiteral("unknown schedule")));
}

// A serving design's --memory is its fullest GPU's bar (weights to reserve against the HBM), and the
// Markdown report embeds it under that name.
TEST(CliExport, ServingMemoryPictureIsTheFullestGpu)
{
    QTemporaryDir dir;
    const CliRun r
        = cli({ QStringLiteral("export"), QStringLiteral("presets/scenarios/serve-dsv3-dpattn-8xh200.parallax.json"),
            QStringLiteral("--memory"), dir.filePath(QStringLiteral("memory.svg")), QStringLiteral("--markdown"),
            dir.filePath(QStringLiteral("report.md")) });
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    QFile svg(dir.filePath(QStringLiteral("memory.svg")));
    ASSERT_TRUE(svg.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(svg.readAll());
    EXPECT_TRUE(text.contains(QStringLiteral("fullest GPU: KV cache pool"))) << "no KV cache segment";
    EXPECT_TRUE(text.contains(QStringLiteral("fullest GPU: weights")));
    EXPECT_FALSE(text.contains(QStringLiteral("optimizer states")));
    QFile md(dir.filePath(QStringLiteral("report.md")));
    ASSERT_TRUE(md.open(QIODevice::ReadOnly));
    EXPECT_TRUE(QString::fromUtf8(md.readAll()).contains(QStringLiteral("![Memory of the fullest GPU](memory.svg)")));
}
