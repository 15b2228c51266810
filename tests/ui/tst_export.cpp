// SPDX-License-Identifier: Apache-2.0
// File > Export: the Gantt, rank map and memory chart in SVG, PNG (at a scale) and PDF, the
// Chrome trace and the Markdown report, written from what is on screen; unwritable paths are errors.
#include "TestSupport.h"

#include "ui/ExportDialog.h"
#include "ui/ReportExport.h"
#include "ui/ScheduleTab.h"
#include "ui/render/GanttModel.h"

#include <QCheckBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QXmlStreamReader>

using namespace parallax;
using namespace parallax::ui;

namespace {
QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Elements of an SVG with the given class attribute (each counting its data-ops when `weighted`);
// -1 when it does not parse.
int svgElementsOfClass(const QString& path, const QString& cssClass, bool weighted = false)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    QXmlStreamReader xml(&f);
    int n = 0;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.attributes().value(QStringLiteral("class")) == cssClass)
            n += weighted ? xml.attributes().value(QStringLiteral("data-ops")).toInt() : 1;
    }
    return xml.hasError() ? -1 : n;
}

// Distinct colors on a 16 x 16 grid of samples: a blank picture has one.
int sampledColors(const QImage& image)
{
    QSet<QRgb> colors;
    for (int i = 1; i < 16; ++i) {
        for (int j = 1; j < 16; ++j)
            colors.insert(image.pixel(image.width() * i / 16, image.height() * j / 16));
    }
    return static_cast<int>(colors.size());
}
} // namespace

class ExportTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::initApplication(); }

    void writesEveryFormat_data()
    {
        QTest::addColumn<int>("format");
        QTest::addColumn<QString>("extension");
        QTest::newRow("svg") << static_cast<int>(render::ExportFormat::Svg) << QStringLiteral("svg");
        QTest::newRow("png") << static_cast<int>(render::ExportFormat::Png) << QStringLiteral("png");
        QTest::newRow("pdf") << static_cast<int>(render::ExportFormat::Pdf) << QStringLiteral("pdf");
    }

    void writesEveryFormat()
    {
        QFETCH(int, format);
        QFETCH(QString, extension);
        test::Window w;
        w.load(test::presetScenario()); // 64 GPUs, pp 8: a few hundred ops
        QTemporaryDir dir;
        ExportRequest request;
        request.folder = dir.path();
        request.baseName = QStringLiteral("review");
        request.format = static_cast<render::ExportFormat>(format);
        request.scale = 1.5;
        QVERIFY2(w.window.exportFiles(request), qPrintable(w.errors.join(u'\n')));
        QVERIFY(w.errors.isEmpty());
        const QStringList charts { QStringLiteral("gantt"), QStringLiteral("rank-map"), QStringLiteral("memory") };
        for (const QString& chart : charts) {
            const QString path = request.pathOf(u'-' + chart, extension);
            const QByteArray bytes = readAll(path);
            QVERIFY2(!bytes.isEmpty(), qPrintable(path));
            if (extension == QLatin1String("svg")) {
                const QString cls = chart == QLatin1String("gantt") ? QStringLiteral("op")
                    : chart == QLatin1String("memory")              ? QStringLiteral("memory")
                                                                    : QStringLiteral("gpu");
                const int n = svgElementsOfClass(path, cls);
                QVERIFY2(n >= 0, qPrintable(path));
                if (chart == QLatin1String("gantt")) {
                    // One element per op, or a fold that says how many ops it stands for.
                    const int folded = svgElementsOfClass(path, QStringLiteral("fold"), true);
                    QCOMPARE(static_cast<std::size_t>(n + folded), w.doc()->evaluation()->report.schedule.ops.size());
                } else {
                    QVERIFY2(n > 0, qPrintable(path));
                }
                if (chart == QLatin1String("rank-map"))
                    QCOMPARE(n, 64);
            } else if (extension == QLatin1String("png")) {
                QImage image;
                QVERIFY(image.loadFromData(bytes, "PNG"));
                QVERIFY(image.width() >= 1000);
                QVERIFY2(sampledColors(image) >= 4, qPrintable(path)); // not blank
            } else {
                QVERIFY(bytes.startsWith("%PDF"));
                QVERIFY(bytes.contains("/Page"));
            }
        }
        // The trace: one complete event per op.
        const QJsonDocument trace
            = QJsonDocument::fromJson(readAll(request.pathOf(QStringLiteral("-trace"), QStringLiteral("json"))));
        QVERIFY(trace.isObject());
        int complete = 0;
        for (const QJsonValue& e : trace.object().value(QStringLiteral("traceEvents")).toArray())
            complete += e.toObject().value(QStringLiteral("ph")).toString() == QLatin1String("X");
        QCOMPARE(static_cast<std::size_t>(complete), w.doc()->evaluation()->report.schedule.ops.size());
        // The report embeds the pictures by their file names.
        const QString md = QString::fromUtf8(readAll(request.pathOf(QString(), QStringLiteral("md"))));
        QVERIFY(md.contains(QStringLiteral("review-gantt.") + extension));
        QVERIFY(md.contains(QStringLiteral("review-trace.json")));
    }

    void pngHasTheRequestedScale()
    {
        test::Window w;
        w.load(test::presetScenario());
        QTemporaryDir dir;
        ExportRequest request;
        request.folder = dir.path();
        request.gantt = request.rankMap = request.trace = request.markdown = false;
        request.format = render::ExportFormat::Png;
        for (double scale : { 1.0, 2.0 }) {
            request.scale = scale;
            request.baseName = QStringLiteral("x%1").arg(scale);
            QVERIFY(w.window.exportFiles(request));
        }
        const QImage one(dir.filePath(QStringLiteral("x1-memory.png")));
        const QImage two(dir.filePath(QStringLiteral("x2-memory.png")));
        QVERIFY(!one.isNull() && !two.isNull());
        QCOMPARE(two.width(), 2 * one.width());
        QVERIFY(std::abs(two.height() - 2 * one.height()) <= 1);
    }

    void comparisonIsExportedAsOnScreen()
    {
        test::Window w;
        w.load(test::presetScenario());
        ScheduleTab* tab = w.window.scheduleTab();
        tab->setComparedSchedules({ core::ScheduleKind::OneFOneB, core::ScheduleKind::DualPipe });
        tab->setCompareMode(true);
        QTRY_VERIFY_WITH_TIMEOUT(!tab->comparisonPending(), 60000);
        QTemporaryDir dir;
        ExportRequest request;
        request.folder = dir.path();
        request.rankMap = request.memory = false;
        QVERIFY2(w.window.exportFiles(request), qPrintable(w.errors.join(u'\n')));
        QFile svg(request.pathOf(QStringLiteral("-gantt"), QStringLiteral("svg")));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray text = svg.readAll();
        QVERIFY(text.contains("data-track=\"1\"")); // the second lane's ops
        const QJsonDocument trace
            = QJsonDocument::fromJson(readAll(request.pathOf(QStringLiteral("-trace"), QStringLiteral("json"))));
        int complete = 0;
        for (const QJsonValue& e : trace.object().value(QStringLiteral("traceEvents")).toArray())
            complete += e.toObject().value(QStringLiteral("ph")).toString() == QLatin1String("X");
        std::size_t ops = 0;
        for (const ComparedSchedule& c : tab->comparison())
            ops += c.report.schedule.ops.size();
        QCOMPARE(static_cast<std::size_t>(complete), ops);
    }

    void unwritablePathIsReported()
    {
        test::Window w;
        w.load(test::presetScenario());
        ExportRequest request;
        request.folder = QStringLiteral("/nonexistent-parallax-folder/sub");
        QVERIFY(!w.window.exportFiles(request));
        QCOMPARE(w.errors.size(), 1); // one message box, listing every file
        QVERIFY2(w.errors.front().contains(QStringLiteral("does not exist")), qPrintable(w.errors.front()));
        QVERIFY(!w.window.exportRankMap(QStringLiteral("/nonexistent-parallax-folder/map.svg")));
        QCOMPARE(w.errors.size(), 2);
    }

    void dialogReturnsTheRequest()
    {
        ExportRequest initial;
        initial.folder = QStringLiteral("/tmp");
        initial.baseName = QStringLiteral("base");
        initial.format = render::ExportFormat::Pdf;
        initial.trace = false;
        ExportDialog dialog(initial);
        const ExportRequest r = dialog.request();
        QCOMPARE(r.folder, initial.folder);
        QCOMPARE(r.baseName, initial.baseName);
        QCOMPARE(r.format, render::ExportFormat::Pdf);
        QVERIFY(!r.trace);
        QVERIFY(r.gantt && r.rankMap && r.memory && r.markdown);
    }

    // A serving design: the dialog offers no Gantt and no trace, and File > Export writes its rank map,
    // the fullest GPU's memory bar (KV cache pool included) and its serving report.
    void servingDesignExportsItsMemoryAndReport()
    {
        test::Window w;
        w.load(test::presetScenario("serve-dsv3-dpattn-8xh200"));
        QTemporaryDir dir;
        ExportRequest initial = w.window.initialExportRequest();
        QVERIFY(initial.serving);
        initial.folder = dir.path();
        initial.baseName = QStringLiteral("serve");
        {
            ExportDialog dialog(initial);
            const ExportRequest r = dialog.request();
            QVERIFY(!r.gantt && !r.trace);
            QVERIFY(r.rankMap && r.memory && r.markdown && r.serving);
            const auto boxes = dialog.findChildren<QCheckBox*>();
            int disabled = 0;
            for (const QCheckBox* box : boxes)
                disabled += box->isEnabled() ? 0 : 1;
            QCOMPARE(disabled, 2);
        }
        initial.gantt = false;
        initial.trace = false;
        const ExportOutcome outcome = exportReport(initial, w.window.exportSources());
        QVERIFY2(outcome.ok(), qPrintable(outcome.errors.join(u'\n')));
        QCOMPARE(outcome.written.size(), 3);
        const QString memory = QString::fromUtf8(readAll(dir.filePath(QStringLiteral("serve-memory.svg"))));
        QVERIFY(memory.contains(QStringLiteral("fullest GPU: KV cache pool")));
        QVERIFY(QString::fromUtf8(readAll(dir.filePath(QStringLiteral("serve.md"))))
                    .contains(QStringLiteral("![Memory of the fullest GPU](serve-memory.svg)")));

        // Asked for anyway (a script, an old request), the Gantt and the trace are error lines naming the file.
        initial.gantt = true;
        initial.trace = true;
        const ExportOutcome asked = exportReport(initial, w.window.exportSources());
        QCOMPARE(asked.errors.size(), 2);
        QVERIFY2(
            asked.errors.front().contains(QStringLiteral("serve-gantt.svg: a serving design has no training step")),
            qPrintable(asked.errors.front()));
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("serve-trace.json"))));
    }
};

QTEST_MAIN(ExportTest)
#include "tst_export.moc"
