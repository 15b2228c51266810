// SPDX-License-Identifier: Apache-2.0
// TopologyEditor's fabric edits (rails, PXN, oversubscription, several fabrics per domain), kept
// apart from the drag-and-drop code of TopologyEditor.cpp.
#include "ui/TopologyEditor.h"

#include "ui/ScenarioDocument.h"
#include "ui/TopologyEdits.h"

namespace parallax::ui {

void TopologyEditor::setFabricRailOptimized(int fabric, bool on)
{
    const auto& topo = m_document->scenario().topology;
    if (fabric < 0 || fabric >= static_cast<int>(topo.fabrics.size())
        || topo.fabrics[static_cast<std::size_t>(fabric)].railOptimized == on)
        return;
    const QString name = QString::fromStdString(topo.fabrics[static_cast<std::size_t>(fabric)].name);
    m_document->edit(on ? tr("Mark %1 rail-optimised").arg(name) : tr("Mark %1 not rail-optimised").arg(name),
        [fabric, on](core::Scenario& s) {
            s.topology.fabrics[static_cast<std::size_t>(fabric)].railOptimized = on;
            edits::normalizeCluster(s);
        });
}

void TopologyEditor::setFabricPxn(int fabric, bool on)
{
    const auto& topo = m_document->scenario().topology;
    if (fabric < 0 || fabric >= static_cast<int>(topo.fabrics.size())
        || topo.fabrics[static_cast<std::size_t>(fabric)].pxn == on)
        return;
    const QString name = QString::fromStdString(topo.fabrics[static_cast<std::size_t>(fabric)].name);
    m_document->edit(
        on ? tr("Use PXN on %1").arg(name) : tr("Disable PXN on %1").arg(name), [fabric, on](core::Scenario& s) {
            s.topology.fabrics[static_cast<std::size_t>(fabric)].pxn = on;
            edits::normalizeCluster(s);
        });
}

void TopologyEditor::setFabricOversubscription(int fabric, double ratio)
{
    const auto& topo = m_document->scenario().topology;
    if (fabric < 0 || fabric >= static_cast<int>(topo.fabrics.size()) || ratio < 1)
        return;
    m_document->edit(tr("Set oversubscription of %1 to %2:1")
                         .arg(QString::fromStdString(topo.fabrics[static_cast<std::size_t>(fabric)].name))
                         .arg(ratio),
        [fabric, ratio](core::Scenario& s) {
            s.topology.fabrics[static_cast<std::size_t>(fabric)].oversubscription = ratio;
            edits::normalizeCluster(s);
        });
}

void TopologyEditor::alsoAttachDomain(int domain, int fabric)
{
    core::Topology t = m_document->scenario().topology;
    if (domain < 0 || domain >= static_cast<int>(t.domains.size()) || fabric < 0
        || fabric >= static_cast<int>(t.fabrics.size()))
        return;
    const std::vector<int> before = t.fabricsOfDomain(domain);
    edits::alsoAttachDomain(t, domain, fabric);
    if (t.fabricsOfDomain(domain) == before)
        return;
    m_document->edit(tr("Also attach %1 to %2")
                         .arg(QString::fromStdString(t.domains[static_cast<std::size_t>(domain)].name),
                             QString::fromStdString(t.fabrics[static_cast<std::size_t>(fabric)].name)),
        [t](core::Scenario& s) {
            s.topology = t;
            edits::normalizeCluster(s);
        });
}

void TopologyEditor::leaveFabric(int domain, int fabric)
{
    core::Topology t = m_document->scenario().topology;
    if (domain < 0 || domain >= static_cast<int>(t.domains.size()) || fabric < 0
        || fabric >= static_cast<int>(t.fabrics.size()))
        return;
    const std::vector<int> before = t.fabricsOfDomain(domain);
    edits::leaveFabric(t, domain, fabric);
    if (t.fabricsOfDomain(domain) == before)
        return;
    m_document->edit(tr("Take %1 off %2")
                         .arg(QString::fromStdString(t.domains[static_cast<std::size_t>(domain)].name),
                             QString::fromStdString(t.fabrics[static_cast<std::size_t>(fabric)].name)),
        [t](core::Scenario& s) {
            s.topology = t;
            edits::normalizeCluster(s);
        });
}

} // namespace parallax::ui
