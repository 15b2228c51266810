// The rank map: TP groups that leave their NVLink domain, layout at 8 and 1024 GPUs, selection
// highlighting everywhere, tooltips and exports.
#include "TestSupport.h"

#include "ui/ClusterLayout.h"
#include "ui/ConfigPanel.h"
#include "ui/RankMapView.h"
#include "ui/TopologyEditor.h"
#include "ui/TopologyItems.h"

#include <QGraphicsScene>
#include <QLabel>
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

    void layoutIsLegibleAt8And1024Gpus_data()
    {
        QTest::addColumn<int>("domains");
        QTest::addColumn<int>("gpusPerDomain");
        QTest::addColumn<QSize>("area");
        QTest::addColumn<int>("minCell");
        QTest::addColumn<bool>("labels");
        QTest::newRow("1 x 8 HGX") << 1 << 8 << QSize(700, 700) << 40 << true;
        QTest::newRow("2 x 4") << 2 << 4 << QSize(700, 700) << 40 << true;
        QTest::newRow("128 x 8 (1024)") << 128 << 8 << QSize(690, 880) << 12 << true;
        QTest::newRow("128 x 8 small window") << 128 << 8 << QSize(500, 500) << 7 << false;
        QTest::newRow("14 x NVL72") << 14 << 72 << QSize(800, 800) << 12 << true;
    }

    void layoutIsLegibleAt8And1024Gpus()
    {
        QFETCH(int, domains);
        QFETCH(int, gpusPerDomain);
        QFETCH(QSize, area);
        QFETCH(int, minCell);
        QFETCH(bool, labels);
        const ClusterLayout l
            = ClusterLayout::compute(std::vector<int>(static_cast<std::size_t>(domains), gpusPerDomain), QSizeF(area));
        QCOMPARE(l.gpuCount(), domains * gpusPerDomain);
        QVERIFY2(l.cellSize() >= minCell, qPrintable(QString::number(l.cellSize())));
        QCOMPARE(l.hasHeaders(), labels);
        for (int gpu = 0; gpu < l.gpuCount(); ++gpu) {
            QCOMPARE(l.gpuAt(l.cellRect(gpu).center()), gpu); // hit testing agrees with drawing
            QVERIFY(l.domainRect(l.domainOfGpu(gpu)).contains(l.cellRect(gpu)));
        }
        for (int a = 0; a < l.domainCount(); ++a) {
            for (int b = a + 1; b < l.domainCount(); ++b)
                QVERIFY(!l.domainRect(a).intersects(l.domainRect(b))); // nothing overlaps
        }
        if (l.cellSize() > 7) // it fits without scrolling unless cells are at their minimum
            QVERIFY(l.contentSize().width() <= area.width() && l.contentSize().height() <= area.height());
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
        const QPoint at = map->renderer().clusterLayout().cellRect(5).center().toPoint();
        QTest::mouseClick(canvas, Qt::LeftButton, {}, at);
        QCOMPARE(map->selectedGroup(), w.doc()->evaluation()->report.rankMap.groupOf(core::Dim::Dp, 5));
        QCOMPARE(highlighted, (std::vector<int> { 1, 3, 5, 7 }));
        const QString tip = map->renderer().toolTip(5, core::Dim::Dp);
        QVERIFY(tip.contains(QStringLiteral("Rank 5")));
        QVERIFY(tip.contains(QStringLiteral("DP group")));
        QVERIFY(tip.contains(QStringLiteral("node1")));
        QTest::mouseClick(canvas, Qt::LeftButton, {}, at); // again: cleared
        QCOMPARE(map->selectedGroup(), -1);
        QVERIFY(highlighted.empty());
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
