// SPDX-License-Identifier: Apache-2.0
// The rank map: TP groups that leave their NVLink domain, layout at 8 and 1024 GPUs, selection
// highlighting everywhere, tooltips and exports.
#include "TestSupport.h"

#include "core/Engine.h"
#include "ui/ConfigPanel.h"
#include "ui/RankMapView.h"
#include "ui/TopologyEditor.h"
#include "ui/TopologyItems.h"

#include <QApplication>
#include <QGraphicsScene>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QXmlStreamReader>

using namespace parallax;
using namespace parallax::ui;

class RankMapTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::initApplication(); }

    // On 2 x 4 GPUs, tp = 8 puts the one TP group across both domains; tp = 4 keeps each inside one.
    void tpCrossingDomainsIsFlaggedAndCleared()
    {
        test::Window w;
        w.load(test::smallCluster(2, 4, 4));
        RankMapView* map = w.window.rankMapView();
        QVERIFY(map->problemLines().isEmpty());
        auto* tp = qobject_cast<QSpinBox*>(w.window.configPanel()->fieldEditor(QStringLiteral("parallel.tp")));
        QVERIFY(tp);

        tp->setValue(8); // as the user does; dp follows the cluster (8 / 8 = 1)
        QVERIFY(w.doc()->waitForEvaluation());
        const auto& report = w.doc()->evaluation()->report;
        QVERIFY2(report.errors.empty(), report.errors.empty() ? "" : report.errors.front().text.c_str());
        QCOMPARE(w.doc()->scenario().parallel.dp, 1);
        QCOMPARE(report.rankMap.groupsCrossingDomains(core::Dim::Tp), 1);
        const QStringList lines = map->problemLines();
        QVERIFY(!lines.isEmpty());
        QVERIFY(lines.front().contains(QStringLiteral("1 of 1 TP groups leave their NVLink domain")));
        bool engineWarning = false;
        for (const QString& line : lines)
            engineWarning = engineWarning || line.contains(QStringLiteral("keep tp within one NVLink domain"));
        QVERIFY(engineWarning); // the engine's own warning text is shown too
        QVERIFY(map->findChild<QLabel*>(QStringLiteral("rankMapProblems"))->isVisible());
        QVERIFY(w.window.statusText().contains(QStringLiteral("warning")));

        tp->setValue(4);
        QVERIFY(w.doc()->waitForEvaluation());
        QCOMPARE(w.doc()->evaluation()->report.rankMap.groupsCrossingDomains(core::Dim::Tp), 0);
        QVERIFY(map->problemLines().isEmpty());
        QVERIFY(!map->findChild<QLabel*>(QStringLiteral("rankMapProblems"))->isVisible());
    }

    // The render library's layout, as the view and the exports use it.
    void layoutIsLegibleAt8And1024Gpus_data()
    {
        QTest::addColumn<int>("domains");
        QTest::addColumn<int>("gpusPerDomain");
        QTest::addColumn<QSize>("area");
        QTest::addColumn<int>("minCell");
        QTest::newRow("1 x 8 HGX") << 1 << 8 << QSize(700, 700) << 40;
        QTest::newRow("2 x 4") << 2 << 4 << QSize(700, 700) << 40;
        QTest::newRow("128 x 8 (1024)") << 128 << 8 << QSize(690, 880) << 10;
        QTest::newRow("128 x 8 small window") << 128 << 8 << QSize(500, 500) << 4;
        QTest::newRow("14 x NVL72") << 14 << 72 << QSize(800, 800) << 10;
    }

    void layoutIsLegibleAt8And1024Gpus()
    {
        QFETCH(int, domains);
        QFETCH(int, gpusPerDomain);
        QFETCH(QSize, area);
        QFETCH(int, minCell);
        const core::Topology topology
            = core::Topology::regular(*core::PresetLibrary::instance().gpu("h100-sxm"), domains, gpusPerDomain, 400);
        const render::RankMapRenderer renderer(core::RankMap {}, topology);
        render::RankMapRenderer::Options options;
        options.showLegend = false;
        const auto l = renderer.layout(QRectF(QPointF(0, 0), QSizeF(area)), options);
        QCOMPARE(static_cast<int>(l.cells.size()), domains * gpusPerDomain);
        QVERIFY2(l.cellSize >= minCell, qPrintable(QString::number(l.cellSize)));
        for (int gpu = 0; gpu < static_cast<int>(l.cells.size()); ++gpu) {
            const QRectF cell = l.cells[static_cast<std::size_t>(gpu)];
            QCOMPARE(l.gpuAt(cell.center()), gpu); // hit testing agrees with drawing
            QVERIFY(l.domains[static_cast<std::size_t>(topology.domainOf(gpu))].contains(cell));
            QVERIFY(QRectF(QPointF(0, 0), QSizeF(area)).contains(cell)); // nothing clipped
        }
        for (std::size_t a = 0; a < l.domains.size(); ++a) {
            for (std::size_t b = a + 1; b < l.domains.size(); ++b)
                QVERIFY(!l.domains[a].intersects(l.domains[b])); // nothing overlaps
        }
    }

    // At the 1366-px screenshot size the canvas is about 420 px wide: the legend's closing sentence wraps
    // inside the legend rather than running past the canvas edge, and the toolbar summary elides.
    void legendAndSummaryStayInsideANarrowView()
    {
        const core::Scenario s = test::smallCluster(8, 8, 8);
        const core::Report report = core::evaluate(s);
        QVERIFY(report.valid);
        const render::RankMapRenderer renderer(report.rankMap, s.topology);
        render::RankMapRenderer::Options options;
        const QRectF area(0, 0, 420, 640);
        const auto l = renderer.layout(area, options);
        QImage image(840, 640, QImage::Format_ARGB32);
        image.fill(Qt::transparent);
        {
            QPainter p(&image);
            renderer.paint(p, l, options);
        }
        for (int y = 0; y < image.height(); ++y) {
            for (int x = static_cast<int>(area.right()) + 2; x < image.width(); ++x)
                QVERIFY2(
                    image.pixelColor(x, y).alpha() == 0, qPrintable(QStringLiteral("painted at %1,%2").arg(x).arg(y)));
        }

        test::Window w;
        w.window.resize(1366, 768);
        w.load(test::presetScenario());
        auto* summary = w.window.rankMapView()->findChild<QLabel*>(QStringLiteral("rankMapSummary"));
        QVERIFY(summary);
        QVERIFY(summary->toolTip().contains(QStringLiteral("64 ranks on 64 GPUs")));
        QVERIFY(summary->minimumSizeHint().width() == 0); // never widens the window
        QVERIFY(summary->fontMetrics().horizontalAdvance(summary->text()) <= summary->contentsRect().width());
    }

    void clickHighlightsTheGroupEverywhere()
    {
        test::Window w;
        w.load(test::smallCluster(2, 4, 2));
        RankMapView* map = w.window.rankMapView();
        map->setDimension(core::Dim::Dp);
        std::vector<int> highlighted;
        map->setHighlightCallback([&](const std::vector<int>& gpus) {
            highlighted = gpus;
            w.window.topologyEditor()->setHighlightedGpus(gpus);
        });
        // Click GPU 5 with the mouse: tp = 2, dp = 4, so its DP group is ranks {1, 3, 5, 7}.
        QWidget* canvas = map->canvas();
        const QPoint at = map->cellRect(5).center().toPoint();
        QTest::mouseClick(canvas, Qt::LeftButton, {}, at);
        QCOMPARE(map->selectedGroup(), w.doc()->evaluation()->report.rankMap.groupOf(core::Dim::Dp, 5));
        QCOMPARE(highlighted, (std::vector<int> { 1, 3, 5, 7 }));
        const QString tip = map->info().toolTip(5, core::Dim::Dp);
        QVERIFY(tip.contains(QStringLiteral("Rank 5")));
        QVERIFY(tip.contains(QStringLiteral("DP group")));
        QVERIFY(tip.contains(QStringLiteral("node1")));
        QTest::mouseClick(canvas, Qt::LeftButton, {}, at); // again: cleared
        QCOMPARE(map->selectedGroup(), -1);
        QVERIFY(highlighted.empty());
    }

    // The view paints with the export's renderer: at 1024 GPUs the cells stay legible (or scroll),
    // every cell hit-tests to its GPU, and hover outlines the group in the renderer's options.
    void viewUsesTheSharedRendererAt1024Gpus()
    {
        test::Window w;
        w.load(test::presetScenario("guide-70b-1024xh100"));
        RankMapView* map = w.window.rankMapView();
        QVERIFY(map->renderer());
        QCOMPARE(map->renderer()->gpuCount(), 1024);
        const auto& layout = map->mapLayout();
        QCOMPARE(static_cast<int>(layout.cells.size()), 1024);
        QVERIFY2(layout.cellSize >= 8, qPrintable(QString::number(layout.cellSize)));
        for (int gpu : { 0, 7, 8, 511, 1023 })
            QCOMPARE(layout.gpuAt(map->cellRect(gpu).center()), gpu);
        QWidget* canvas = map->canvas();
        QMouseEvent move(QEvent::MouseMove, map->cellRect(9).center(), canvas->mapToGlobal(map->cellRect(9).center()),
            Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(canvas, &move);
        QCOMPARE(map->options().hoveredGpu, 9);
        const QImage image = canvas->grab().toImage();
        QVERIFY(!image.isNull());
        // The cell is painted in its TP group's color, not left blank.
        const QColor inCell = image.pixelColor((map->cellRect(20).topLeft() + QPointF(3, 3)).toPoint());
        QCOMPARE(inCell, map->renderer()->cellColor(20, map->options()));
    }

    void exportsSvgAndPng()
    {
        test::Window w;
        w.load(test::smallCluster(2, 4, 8));
        QTemporaryDir dir;
        const QString svg = dir.filePath(QStringLiteral("map.svg"));
        const QString png = dir.filePath(QStringLiteral("map.png"));
        QVERIFY(w.window.exportRankMap(svg));
        QVERIFY(w.window.exportRankMap(png));
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&file);
        int rects = 0;
        while (!xml.atEnd()) {
            xml.readNext();
            rects
                += xml.isStartElement() && (xml.name() == QLatin1String("rect") || xml.name() == QLatin1String("path"));
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(rects >= 8);
        const QImage image(png);
        QVERIFY(!image.isNull());
        QVERIFY(image.width() >= 1000);
        QVERIFY(!w.window.exportRankMap(dir.filePath(QStringLiteral("map.bmp"))));
        QCOMPARE(w.errors.size(), 1);
    }
};

QTEST_MAIN(RankMapTest)
#include "tst_rank_map.moc"
