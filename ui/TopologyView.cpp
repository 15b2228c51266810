// SPDX-License-Identifier: Apache-2.0
#include "ui/TopologyView.h"

#include "ui/TopologyEditor.h"
#include "ui/TopologyItems.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QDataStream>
#include <QKeyEvent>
#include <QMimeData>
#include <QMouseEvent>
#include <QScrollBar>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace parallax::ui {

QByteArray TopologyDrag::encode() const
{
    QByteArray data;
    QDataStream out(&data, QIODevice::WriteOnly);
    out << static_cast<qint32>(kind) << gpuId << static_cast<qint32>(domain) << static_cast<qint32>(index);
    return data;
}

TopologyDrag TopologyDrag::decode(const QByteArray& data)
{
    QDataStream in(data);
    qint32 kind = 0;
    qint32 domain = -1;
    qint32 index = -1;
    TopologyDrag d;
    in >> kind >> d.gpuId >> domain >> index;
    if (in.status() != QDataStream::Ok || kind < 0 || kind > static_cast<qint32>(Kind::Domain))
        return {};
    d.kind = static_cast<Kind>(kind);
    d.domain = domain;
    d.index = index;
    return d;
}

TopologyView::TopologyView(TopologyEditor* editor, QGraphicsScene* scene, QWidget* parent)
    : QGraphicsView(scene, parent)
    , m_editor(editor)
{
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setOptimizationFlags(QGraphicsView::DontSavePainterState);
    setTransformationAnchor(QGraphicsView::NoAnchor);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setDragMode(QGraphicsView::NoDrag);
    setAcceptDrops(true);
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    // Pan by dragging the background (or Shift/middle button); the scroll bars only cost room.
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
}

double TopologyView::zoom() const
{
    return transform().m11();
}

void TopologyView::setZoom(double z)
{
    const double target = std::clamp(z, kMinZoom, kMaxZoom);
    const QPointF centre = mapToScene(viewport()->rect().center());
    setTransform(QTransform::fromScale(target, target));
    centerOn(centre);
}

void TopologyView::zoomBy(double factor, QPoint anchor)
{
    const double target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
    if (target == zoom())
        return;
    // Keep the scene point under the mouse fixed (Qt's elasticnodes / diagramscene behaviour).
    const QPointF before = mapToScene(anchor);
    setTransform(QTransform::fromScale(target, target));
    const QPointF after = mapToScene(anchor);
    const QPointF delta = (after - before) * target;
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() - static_cast<int>(std::lround(delta.x())));
    verticalScrollBar()->setValue(verticalScrollBar()->value() - static_cast<int>(std::lround(delta.y())));
    m_fitting = false;
}

void TopologyView::fitAll()
{
    if (!scene() || scene()->itemsBoundingRect().isEmpty())
        return;
    const QRectF bounds = scene()->itemsBoundingRect().adjusted(-12, -12, 12, 12);
    fitInView(bounds, Qt::KeepAspectRatio);
    const double z = std::clamp(zoom(), kMinZoom, 1.6); // a small cluster does not need to fill the dock
    setTransform(QTransform::fromScale(z, z));
    // Top-aligned: the cluster starts under the palette rather than floating mid-dock.
    const double visibleHeight = viewport()->height() / z;
    centerOn(QPointF(bounds.center().x(), std::max(bounds.center().y(), bounds.top() + visibleHeight / 2)));
    m_fitting = true;
}

void TopologyView::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0) {
        QGraphicsView::wheelEvent(event);
        return;
    }
    zoomBy(std::pow(1.2, steps), event->position().toPoint());
    event->accept();
}

void TopologyView::mousePressEvent(QMouseEvent* event)
{
    setFocus(Qt::MouseFocusReason);
    if (event->button() == Qt::MiddleButton
        || (event->button() == Qt::LeftButton && event->modifiers().testFlag(Qt::ShiftModifier))) {
        m_panning = true;
        m_lastPanPos = event->position().toPoint();
        viewport()->setCursor(Qt::ClosedHandCursor);
        event->accept();
        return;
    }
    if (event->button() != Qt::LeftButton) {
        QGraphicsView::mousePressEvent(event);
        return;
    }
    const QPointF scenePos = mapToScene(event->position().toPoint());
    m_editor->selectAt(scenePos);
    m_pending = m_editor->dragAt(scenePos);
    m_pressPos = event->position().toPoint();
    m_dragging = false;
    if (m_pending.kind == TopologyDrag::Kind::None) {
        // Empty canvas: the left button pans.
        m_panning = true;
        m_lastPanPos = m_pressPos;
        viewport()->setCursor(Qt::ClosedHandCursor);
    }
    event->accept();
}

void TopologyView::mouseMoveEvent(QMouseEvent* event)
{
    const QPoint pos = event->position().toPoint();
    if (m_panning) {
        const QPoint delta = pos - m_lastPanPos;
        m_lastPanPos = pos;
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
        event->accept();
        return;
    }
    if (m_pending.kind == TopologyDrag::Kind::None) {
        QGraphicsView::mouseMoveEvent(event);
        return;
    }
    if (!m_dragging && (pos - m_pressPos).manhattanLength() >= QApplication::startDragDistance()) {
        m_dragging = true;
        m_ghost = m_editor->createGhost(m_pending);
        viewport()->setCursor(Qt::DragMoveCursor);
    }
    if (m_dragging) {
        const QPointF scenePos = mapToScene(pos);
        if (m_ghost)
            m_ghost->setPos(scenePos);
        m_editor->hoverDrop(m_pending, scenePos);
    }
    event->accept();
}

void TopologyView::mouseReleaseEvent(QMouseEvent* event)
{
    if (m_panning && (event->button() == Qt::LeftButton || event->button() == Qt::MiddleButton)) {
        m_panning = false;
        viewport()->unsetCursor();
        m_pending = {};
        event->accept();
        return;
    }
    if (event->button() == Qt::LeftButton && m_dragging) {
        const TopologyDrag drag = m_pending;
        const QPointF scenePos = mapToScene(event->position().toPoint());
        endDrag();
        m_editor->drop(drag, scenePos); // rebuilds the scene: nothing of the old items is used after
        event->accept();
        return;
    }
    endDrag();
    QGraphicsView::mouseReleaseEvent(event);
}

void TopologyView::endDrag()
{
    if (m_ghost) {
        scene()->removeItem(m_ghost);
        delete m_ghost;
        m_ghost = nullptr;
    }
    m_editor->hoverDrop({}, {});
    m_pending = {};
    m_dragging = false;
    viewport()->unsetCursor();
}

void TopologyView::mouseDoubleClickEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        m_editor->selectAt(mapToScene(event->position().toPoint()));
        m_editor->renameSelection();
        event->accept();
        return;
    }
    QGraphicsView::mouseDoubleClickEvent(event);
}

void TopologyView::keyPressEvent(QKeyEvent* event)
{
    if (event->matches(QKeySequence::Delete) || event->key() == Qt::Key_Backspace) {
        m_editor->deleteSelection();
    } else if (event->key() == Qt::Key_F2) {
        m_editor->renameSelection();
    } else if (event->matches(QKeySequence::ZoomIn) || event->key() == Qt::Key_Plus) {
        zoomBy(1.25, viewport()->rect().center());
    } else if (event->matches(QKeySequence::ZoomOut) || event->key() == Qt::Key_Minus) {
        zoomBy(0.8, viewport()->rect().center());
    } else if (event->key() == Qt::Key_0 || event->key() == Qt::Key_Home) {
        fitAll();
    } else if (event->key() == Qt::Key_Escape && m_dragging) {
        endDrag();
    } else {
        QGraphicsView::keyPressEvent(event);
        return;
    }
    event->accept();
}

void TopologyView::contextMenuEvent(QContextMenuEvent* event)
{
    const QPointF scenePos = mapToScene(event->pos());
    m_editor->selectAt(scenePos);
    m_editor->showContextMenu(event->globalPos(), scenePos);
    event->accept();
}

void TopologyView::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    if (m_fitting)
        m_editor->viewportResized();
}

void TopologyView::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasFormat(TopologyDrag::mimeType()))
        event->acceptProposedAction();
    else
        event->ignore();
}

void TopologyView::dragMoveEvent(QDragMoveEvent* event)
{
    if (!event->mimeData()->hasFormat(TopologyDrag::mimeType())) {
        event->ignore();
        return;
    }
    m_editor->hoverDrop(TopologyDrag::decode(event->mimeData()->data(TopologyDrag::mimeType())),
        mapToScene(event->position().toPoint()));
    event->acceptProposedAction();
}

void TopologyView::dragLeaveEvent(QDragLeaveEvent* event)
{
    m_editor->hoverDrop({}, {});
    event->accept();
}

void TopologyView::dropEvent(QDropEvent* event)
{
    const TopologyDrag drag = TopologyDrag::decode(event->mimeData()->data(TopologyDrag::mimeType()));
    m_editor->hoverDrop({}, {});
    if (drag.kind == TopologyDrag::Kind::None) {
        event->ignore();
        return;
    }
    event->acceptProposedAction();
    m_editor->drop(drag, mapToScene(event->position().toPoint()));
}

} // namespace parallax::ui
