// SPDX-License-Identifier: Apache-2.0
// The topology editor: drags with the mouse and through the drop handler, undo, refusals, the
// 1024-GPU generator, zoom limits, and the pure topology edits behind them.
#include "TestSupport.h"

#include "ui/RankMapView.h"
#include "ui/TopologyEditor.h"
#include "ui/TopologyItems.h"

#include <QGraphicsScene>
#include <QUndoStack>

using namespace parallax;
using namespace parallax::ui;
using Kind = TopologyDrag::Kind;

class TopologyEditorTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::initApplication(); }

    void dragGpuIntoDomainWithTheMouse()
    {
        test::Window w;
        w.load(test::smallCluster(2, 4, 4));
        TopologyEditor* editor = w.window.topologyEditor();
        const auto& before = w.doc()->evaluation()->report.rankMap;
        QCOMPARE(before.worldSize(), 8);
        QCOMPARE(before.domainOfRank(4), 1);
        const QString original = test::serialized(w.doc()->scenario());

        // Press on GPU 0 of node1, move past the drag distance, release over node0.
        QWidget* viewport = editor->view()->viewport();
        const QPoint from = editor->view()->mapFromScene(editor->gpuScenePos(1, 0));
        const QPoint to = editor->view()->mapFromScene(editor->gpuScenePos(0, 2));
        QVERIFY(viewport->rect().contains(from));
        QVERIFY(viewport->rect().contains(to));
        QTest::mousePress(viewport, Qt::LeftButton, {}, from);
        QTest::mouseMove(viewport, from + QPoint(12, 6));
        QTest::mouseMove(viewport, to);
        QTest::mouseRelease(viewport, Qt::LeftButton, {}, to);

        const auto& topo = w.doc()->scenario().topology;
        QCOMPARE(topo.domains[0].gpuCount, 5);
        QCOMPARE(topo.domains[1].gpuCount, 3);
        QCOMPARE(w.doc()->undoStack()->count(), 1); // the drag is one undo step
        QVERIFY(w.doc()->isModified());
        QVERIFY(w.doc()->waitForEvaluation());
        // The rank map follows: rank 4 now runs in node0, and the TP group 4..7 leaves its domain.
        const auto& after = w.doc()->evaluation()->report.rankMap;
        QCOMPARE(after.domainOfRank(4), 0);
        QCOMPARE(after.groupsCrossingDomains(core::Dim::Tp), 1);
        const RankMapView* map = w.window.rankMapView();
        QVERIFY(map->mapLayout().domains.at(0).contains(map->cellRect(4))); // drawn in node0 now

        w.doc()->undoStack()->undo();
        QCOMPARE(test::serialized(w.doc()->scenario()), original);
        QVERIFY(!w.doc()->isModified());
        QVERIFY(w.doc()->waitForEvaluation());
        QCOMPARE(w.doc()->evaluation()->report.rankMap.domainOfRank(4), 1);
        QCOMPARE(w.doc()->evaluation()->report.rankMap.groupsCrossingDomains(core::Dim::Tp), 0);

        w.doc()->undoStack()->redo();
        QCOMPARE(w.doc()->scenario().topology.domains[0].gpuCount, 5);
    }

    void paletteDropsGoThroughTheSameHandler()
    {
        test::Window w;
        w.load(test::smallCluster(2, 4, 4));
        TopologyEditor* editor = w.window.topologyEditor();
        QVERIFY(editor->drop({ Kind::PaletteGpu, QStringLiteral("h100-sxm"), -1, -1 }, editor->domainScenePos(1)));
        QCOMPARE(w.doc()->scenario().topology.domains[1].gpuCount, 5);
        QCOMPARE(w.doc()->scenario().topology.gpuCount(), 9);

        // A new domain dropped on the fabric joins it, with the GPU type's usual domain size.
        QVERIFY(editor->drop({ Kind::PaletteDomain, QStringLiteral("h100-sxm"), -1, -1 }, editor->fabricScenePos(0)));
        const auto& topo = w.doc()->scenario().topology;
        QCOMPARE(topo.domains.size(), std::size_t(3));
        QCOMPARE(topo.domains[2].gpuCount, 8);
        QCOMPARE(topo.fabricOfDomain(2), 0);
        QVERIFY(!w.doc()->scenario().regularCluster); // saved in the explicit form now
        QCOMPARE(w.doc()->undoStack()->count(), 2);
    }

    void mixedGpuTypesAreRefused()
    {
        test::Window w;
        w.load(test::smallCluster(2, 4, 4));
        TopologyEditor* editor = w.window.topologyEditor();
        const QString original = test::serialized(w.doc()->scenario());
        QVERIFY(!editor->drop({ Kind::PaletteGpu, QStringLiteral("h200"), -1, -1 }, editor->domainScenePos(0)));
        QVERIFY(editor->lastMessage().contains(QStringLiteral("one GPU type")));
        QCOMPARE(test::serialized(w.doc()->scenario()), original);
        QCOMPARE(w.doc()->undoStack()->count(), 0);
    }

    void domainDragsOntoAFabric()
    {
        test::Window w;
        w.load(test::smallCluster(2, 4, 4));
        TopologyEditor* editor = w.window.topologyEditor();
        // Detach node1 (dropped outside every fabric): the engine says the domains cannot talk.
        QVERIFY(editor->drop({ Kind::Domain, {}, 1, -1 }, QPointF(-5000, -5000)));
        QCOMPARE(w.doc()->scenario().topology.fabricOfDomain(1), -1);
        QVERIFY(w.doc()->waitForEvaluation());
        bool fabricError = false;
        for (const auto& e : w.doc()->evaluation()->report.errors)
            fabricError = fabricError || e.field.rfind("cluster", 0) == 0;
        QVERIFY(fabricError);

        // Drag it back with the mouse, by its header, onto the fabric's title.
        QWidget* viewport = editor->view()->viewport();
        editor->fitAll();
        const QPoint from = editor->view()->mapFromScene(editor->domainScenePos(1));
        const QPoint to = editor->view()->mapFromScene(editor->fabricScenePos(0) + QPointF(30, 0));
        QTest::mousePress(viewport, Qt::LeftButton, {}, from);
        QTest::mouseMove(viewport, from + QPoint(10, 10));
        QTest::mouseMove(viewport, to);
        QTest::mouseRelease(viewport, Qt::LeftButton, {}, to);
        QCOMPARE(w.doc()->scenario().topology.fabricOfDomain(1), 0);
        QVERIFY(w.doc()->scenario().regularCluster); // back to the compact form
        QCOMPARE(w.doc()->undoStack()->count(), 2);
    }

    void generateClusterOf1024Gpus()
    {
        test::Window w;
        w.load(test::smallCluster(2, 4, 4));
        TopologyEditor* editor = w.window.topologyEditor();
        editor->generateCluster(QStringLiteral("h100-sxm"), 128, 8, 400);
        const auto& s = w.doc()->scenario();
        QCOMPARE(s.topology.gpuCount(), 1024);
        QCOMPARE(s.nodes, 128);
        QVERIFY(s.regularCluster);
        QCOMPARE(s.parallel.dp, 1024 / 4); // dp follows the cluster
        QCOMPARE(w.doc()->undoStack()->count(), 1);
        int domains = 0;
        int fabrics = 0;
        for (QGraphicsItem* item : editor->scene()->items()) {
            domains += item->type() == DomainItem::Type;
            fabrics += item->type() == FabricItem::Type;
        }
        QCOMPARE(domains, 128); // one item per domain, not per GPU
        QCOMPARE(fabrics, 1);
        QVERIFY(w.doc()->waitForEvaluation());
        QCOMPARE(w.doc()->evaluation()->report.rankMap.worldSize(), 1024);
    }

    void zoomIsClampedAndAnchored()
    {
        test::Window w;
        w.load(test::smallCluster(2, 4, 4));
        TopologyView* view = w.window.topologyEditor()->view();
        const QPoint anchor(view->viewport()->width() / 3, view->viewport()->height() / 3);
        const QPointF under = view->mapToScene(anchor);
        view->zoomBy(1.5, anchor);
        QVERIFY(QLineF(view->mapToScene(anchor), under).length() < 2.0 / view->zoom());
        view->zoomBy(1000, anchor);
        QCOMPARE(view->zoom(), TopologyView::kMaxZoom);
        view->zoomBy(1e-6, anchor);
        QCOMPARE(view->zoom(), TopologyView::kMinZoom);
        QVERIFY(!view->fitting());
        view->fitAll();
        QVERIFY(view->fitting());
    }

    void renameAndBandwidthAreUndoable()
    {
        test::Window w;
        w.load(test::smallCluster(2, 4, 4));
        TopologyEditor* editor = w.window.topologyEditor();
        editor->renameDomain(0, QStringLiteral("rack-a"));
        QCOMPARE(w.doc()->scenario().topology.domains[0].name, std::string("rack-a"));
        editor->renameDomain(1, QStringLiteral("rack-a")); // duplicate: refused
        QCOMPARE(w.doc()->scenario().topology.domains[1].name, std::string("node1"));
        QVERIFY(editor->lastMessage().contains(QStringLiteral("unique")));
        editor->setDomainNvlink(1, 200);
        QCOMPARE(w.doc()->scenario().topology.nvlinkBytesPerSecond(1), 200e9);
        editor->setFabricNic(0, 200);
        QCOMPARE(w.doc()->scenario().topology.fabrics[0].nicGbps, 200.0);
        QCOMPARE(w.doc()->undoStack()->count(), 3);
        w.doc()->undoStack()->setIndex(0);
        QCOMPARE(w.doc()->scenario().topology.domains[0].name, std::string("node0"));
        QVERIFY(w.doc()->scenario().regularCluster);
    }

    void pureEdits()
    {
        const core::GpuSpec h100 = *core::PresetLibrary::instance().gpu("h100-sxm");
        const core::GpuSpec h200 = *core::PresetLibrary::instance().gpu("h200");
        core::Topology t = core::Topology::regular(h100, 3, 4, 400);
        QVERIFY(edits::moveGpu(t, 0, 2).isEmpty());
        QCOMPARE(t.domains[0].gpuCount, 3);
        QCOMPARE(t.domains[2].gpuCount, 5);
        QCOMPARE(t.locate(3).domain, 1); // caches follow the edit
        QVERIFY(!edits::addGpu(t, 0, h200).isEmpty());
        // Emptying a domain removes it and renumbers the fabric's members.
        for (int i = 0; i < 4; ++i)
            edits::removeGpu(t, 1);
        QCOMPARE(t.domains.size(), std::size_t(2));
        QCOMPARE(t.fabrics[0].domains, (std::vector<int> { 0, 1 }));
        const int d = edits::addDomain(t, h200, 4, -1);
        QCOMPARE(t.fabricOfDomain(d), -1);
        QVERIFY(!t.connected());
        edits::attachDomain(t, d, 0);
        QVERIFY(t.connected());
        QCOMPARE(edits::uniqueDomainName(t), QStringLiteral("node4")); // node0, node2, node3 exist

        core::Scenario s = test::smallCluster(2, 4, 4);
        QVERIFY(s.regularCluster);
        edits::moveGpu(s.topology, 1, 0);
        edits::normalizeCluster(s);
        QVERIFY(!s.regularCluster);
        edits::moveGpu(s.topology, 0, 1);
        edits::normalizeCluster(s);
        QVERIFY(s.regularCluster);
        QCOMPARE(s.gpuPreset, std::string("h100-sxm"));
        s.parallel.tp = 2;
        QVERIFY(edits::fitDataParallel(s));
        QCOMPARE(s.parallel.dp, 4);
    }
};

QTEST_MAIN(TopologyEditorTest)
#include "tst_topology_editor.moc"
