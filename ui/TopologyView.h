// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QGraphicsView>
#include <QPointer>
#include <QString>

namespace parallax::ui {

class TopologyEditor;
class DragGhostItem;

// What a drag carries: from the palette (a GPU type, a new domain, a new fabric) or from the scene
// (one GPU of a domain, a whole domain).
struct TopologyDrag {
    enum class Kind { None, PaletteGpu, PaletteDomain, PaletteFabric, Gpu, Domain };
    Kind kind = Kind::None;
    QString gpuId; // PaletteGpu, PaletteDomain: GPU preset id
    int domain = -1; // Gpu, Domain
    int index = -1; // Gpu: position inside the domain

    static QString mimeType() { return QStringLiteral("application/x-parallax-palette"); }
    QByteArray encode() const; // palette drags travel as mime data
    static TopologyDrag decode(const QByteArray& data);
};

// The editor's canvas: zoom under the mouse (clamped), pan, and drags. In-scene drags are plain
// mouse handling ending in TopologyEditor::drop(drag, scenePos), which a test can call or drive
// with QTest mouse events (no QDrag event loop); palette drags arrive as drop events.
class TopologyView : public QGraphicsView {
public:
    static constexpr double kMinZoom = 0.04;
    static constexpr double kMaxZoom = 6.0;

    TopologyView(TopologyEditor* editor, QGraphicsScene* scene, QWidget* parent = nullptr);

    double zoom() const;
    void setZoom(double zoom); // clamped, anchored at the view centre
    void zoomBy(double factor, QPoint anchor); // clamped, the scene point under `anchor` stays put
    void fitAll(); // the whole scene, clamped; the view then keeps fitting until the user zooms
    bool fitting() const { return m_fitting; }
    void cancelDrag() { endDrag(); }

protected:
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dragMoveEvent(QDragMoveEvent* event) override;
    void dragLeaveEvent(QDragLeaveEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void endDrag();

    TopologyEditor* m_editor;
    TopologyDrag m_pending; // pressed, not yet moved far enough
    QPoint m_pressPos;
    bool m_dragging = false;
    bool m_panning = false;
    QPoint m_lastPanPos;
    DragGhostItem* m_ghost = nullptr;
    bool m_fitting = true;
};

} // namespace parallax::ui
