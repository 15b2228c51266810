// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/TopologyView.h"

#include <QWidget>
#include <functional>
#include <vector>

class QGraphicsScene;
class QLabel;
class QListWidget;

namespace parallax::ui {

class DomainItem;
class DragGhostItem;
class FabricItem;
class ScenarioDocument;

// The topology dock: a palette (GPU types, NVLink domain, IB fabric), a toolbar and the canvas.
// Every change is one ScenarioDocument::edit (one undo step) and re-runs the engine.
class TopologyEditor : public QWidget {
public:
    explicit TopologyEditor(ScenarioDocument* document, QWidget* parent = nullptr);
    ~TopologyEditor() override;

    TopologyView* view() const { return m_view; }
    QGraphicsScene* scene() const { return m_scene; }
    QListWidget* palette() const { return m_palette; }

    // Drag and drop, shared by the mouse and tests: what a press at a scene point would pick up,
    // drop feedback while moving, and the drop itself (true when the topology changed).
    TopologyDrag dragAt(QPointF scenePos) const;
    void hoverDrop(const TopologyDrag& drag, QPointF scenePos);
    bool drop(const TopologyDrag& drag, QPointF scenePos);
    DragGhostItem* createGhost(const TopologyDrag& drag);

    // Scene positions of things, for tests and keyboard actions.
    QPointF gpuScenePos(int domain, int index) const;
    QPointF domainScenePos(int domain) const; // on its header
    QPointF fabricScenePos(int fabric) const; // on its header, outside any domain
    QString lastMessage() const { return m_lastMessage; } // why the last drop was refused, or what it did

    void generateCluster(const QString& gpuId, int nodes, int gpusPerNode, double nicGbps);
    void showGenerateDialog();
    void renameDomain(int domain, const QString& name);
    void renameFabric(int fabric, const QString& name);
    void setDomainNvlink(int domain, double gigabytesPerSecond); // per GPU per direction; 0 = datasheet
    void setFabricNic(int fabric, double gigabitsPerSecond);
    void setFabricRailOptimized(int fabric, bool on);
    void setFabricPxn(int fabric, bool on);
    void setFabricOversubscription(int fabric, double ratio); // >= 1
    void alsoAttachDomain(int domain, int fabric); // a further fabric: leaves under a spine
    void leaveFabric(int domain, int fabric);
    void deleteDomain(int domain);
    void deleteFabric(int fabric);
    void removeGpu(int domain);

    // Selection-based actions (keyboard, context menu, toolbar).
    void selectAt(QPointF scenePos);
    void deleteSelection();
    void renameSelection();
    void setBandwidthOfSelection();
    void showContextMenu(QPoint globalPos, QPointF scenePos);

    // GPUs to highlight (the rank map's selected group), by global GPU index.
    void setHighlightedGpus(const std::vector<int>& gpus);
    // Called with the global index of a GPU cell clicked in the editor.
    void setGpuClickedCallback(std::function<void(int)> callback) { m_gpuClicked = std::move(callback); }
    void fitAll();
    void viewportResized(); // while fitting: re-flow the domains to the view's shape

private:
    void rebuild();
    void applyHighlights();
    void showMessage(const QString& text, bool problem);
    void refreshMessage(); // the last action (if the scenario has not changed since) and live counts
    DomainItem* domainItemAt(QPointF scenePos) const;
    FabricItem* fabricItemAt(QPointF scenePos) const;
    int selectedDomain() const;
    int selectedFabric() const;
    QString currentGpuId() const; // the palette's selected GPU type, else the first domain's

    ScenarioDocument* m_document;
    QGraphicsScene* m_scene;
    TopologyView* m_view;
    QListWidget* m_palette;
    QLabel* m_message;
    QString m_lastMessage;
    bool m_lastProblem = false;
    std::function<void(int)> m_gpuClicked;
    std::vector<DomainItem*> m_domainItems;
    std::vector<FabricItem*> m_fabricItems; // by fabric index; the no-fabric area is separate
    FabricItem* m_orphanArea = nullptr;
    std::vector<int> m_highlighted;
    bool m_fitPending = true;
    double m_layoutAspect = 0.6; // width / height of the view the layout was made for
};

} // namespace parallax::ui
