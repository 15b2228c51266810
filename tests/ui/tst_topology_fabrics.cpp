// SPDX-License-Identifier: Apache-2.0
// Several fabrics and rail-optimised fabrics in the editor and the rank map: leaf fabrics under a
// spine load and render, a domain dragged to another leaf keeps its spine, marking a fabric
// rail-optimised is one undo step and moves the pipeline's times, and the rank map names the groups
// that cross a fabric boundary or change rail.
#include "TestSupport.h"

#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "ui/RankMapView.h"
#include "ui/TopologyEditor.h"
#include "ui/TopologyItems.h"

#include <QGraphicsScene>
#include <QUndoStack>

using namespace parallax;
using namespace parallax::ui;
using Kind = TopologyDrag::Kind;

namespace {
core::Scenario preset(const char* id)
{
    const core::ScenarioPresetInfo* info = core::PresetLibrary::instance().scenario(id);
    if (!info)
        return {};
    core::LoadError error;
    auto s = core::parseScenario(info->json, error);
    return s ? *s : core::Scenario {};
}

std::vector<const FabricItem*> fabricItems(QGraphicsScene* scene)
{
    std::vector<const FabricItem*> out;
    for (QGraphicsItem* item : scene->items()) {
        if (item->type() == FabricItem::Type)
            out.push_back(static_cast<const FabricItem*>(item));
    }
    std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->fabricIndex() < b->fabricIndex(); });
    return out;
}
} // namespace

class TopologyFabricsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::initApplication(); }

    void leavesUnderASpineRenderAndKeepTheSpineOnADrag()
    {
        test::Window w;
        w.load(preset("llama3-70b-leaves-64xh100"));
        QVERIFY(w.doc()->evaluation()->report.valid);
        TopologyEditor* editor = w.window.topologyEditor();
        const auto fabrics = fabricItems(editor->scene());
        QCOMPARE(fabrics.size(), std::size_t(3));
        QCOMPARE(fabrics[0]->info().domainCount, 4);
        QCOMPARE(fabrics[1]->info().domainCount, 4);
        // The spine draws no domain of its own; it says it joins the eight drawn in the leaves.
        QCOMPARE(fabrics[2]->info().domainCount, 0);
        QCOMPARE(fabrics[2]->info().sharedDomains, 8);
        QCOMPARE(fabrics[2]->info().oversubscription, 2.0);

        // The rank map draws every domain and says which pipeline groups cross the leaves.
        const RankMapView* map = w.window.rankMapView();
        QCOMPARE(map->mapLayout().domains.size(), 8);
        const QStringList lines = map->info().fabricCrossings(core::Dim::Pp);
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.front().startsWith(QStringLiteral("32 of 32 PP groups cross a fabric boundary")),
            qPrintable(lines.front()));
        QVERIFY(map->info().fabricCrossings(core::Dim::Dp).isEmpty());

        // Drag node3 from leaf0 onto leaf1: it changes leaf and stays on the spine.
        const QString original = test::serialized(w.doc()->scenario());
        QVERIFY(editor->drop({ Kind::Domain, {}, 3, -1 }, editor->fabricScenePos(1)));
        QCOMPARE(w.doc()->scenario().topology.fabricsOfDomain(3), (std::vector<int> { 1, 2 }));
        QCOMPARE(w.doc()->undoStack()->count(), 1);
        QVERIFY(w.doc()->waitForEvaluation());
        // PP pair (node3, node7) now shares leaf1: three of the four pipeline node pairs still cross.
        QCOMPARE(w.doc()->evaluation()->report.groupsCrossingFabrics[static_cast<int>(core::Dim::Pp)], 24);
        w.doc()->undoStack()->undo();
        QCOMPARE(test::serialized(w.doc()->scenario()), original);

        // A further fabric from the context-menu action, undoable too.
        editor->leaveFabric(0, 2);
        QCOMPARE(w.doc()->scenario().topology.fabricsOfDomain(0), (std::vector<int> { 0 }));
        editor->alsoAttachDomain(0, 2);
        QCOMPARE(w.doc()->scenario().topology.fabricsOfDomain(0), (std::vector<int> { 0, 2 }));
        QCOMPARE(w.doc()->undoStack()->count(), 2);
        w.doc()->undoStack()->undo();
        w.doc()->undoStack()->undo();
        QCOMPARE(test::serialized(w.doc()->scenario()), original);
    }

    void markingAFabricRailOptimisedIsUndoable()
    {
        test::Window w;
        w.load(preset("llama3-8b-rails-32xh100"));
        TopologyEditor* editor = w.window.topologyEditor();
        const core::Report railed = w.doc()->evaluation()->report;
        QVERIFY(railed.valid);
        QCOMPARE(railed.groupsCrossingRails[static_cast<int>(core::Dim::Pp)], 8);
        QVERIFY(fabricItems(editor->scene()).front()->info().railOptimized);
        const QString original = test::serialized(w.doc()->scenario());

        editor->setFabricRailOptimized(0, false);
        QCOMPARE(w.doc()->undoStack()->count(), 1);
        QVERIFY(!w.doc()->scenario().topology.fabrics.front().railOptimized);
        QVERIFY(!fabricItems(editor->scene()).front()->info().railOptimized);
        QVERIFY(w.doc()->waitForEvaluation());
        const core::Report fatTree = w.doc()->evaluation()->report;
        // On a 2:1 fat tree every cross-node flow gets half the NIC: the pipeline and DP slow down.
        QCOMPARE(fatTree.groupsCrossingRails[static_cast<int>(core::Dim::Pp)], 0);
        QVERIFY(fatTree.comm.ppSeconds > railed.comm.ppSeconds);
        QVERIFY(fatTree.comm.dpTotalSeconds > railed.comm.dpTotalSeconds);

        w.doc()->undoStack()->undo();
        QCOMPARE(test::serialized(w.doc()->scenario()), original);
        QVERIFY(w.doc()->waitForEvaluation());
        QCOMPARE(w.doc()->evaluation()->report.comm.ppSeconds, railed.comm.ppSeconds);
        QVERIFY(w.window.rankMapView()->info().fabricCrossings(core::Dim::Pp).front().contains(QStringLiteral("rail")));

        // PXN off and oversubscription are undoable edits as well.
        editor->setFabricPxn(0, false);
        editor->setFabricOversubscription(0, 4);
        QCOMPARE(w.doc()->undoStack()->count(), 2);
        QVERIFY(!w.doc()->scenario().topology.fabrics.front().pxn);
        QCOMPARE(w.doc()->scenario().topology.fabrics.front().oversubscription, 4.0);
        w.doc()->undoStack()->undo();
        w.doc()->undoStack()->undo();
        QCOMPARE(test::serialized(w.doc()->scenario()), original);
    }
};

QTEST_MAIN(TopologyFabricsTest)
#include "tst_topology_fabrics.moc"
