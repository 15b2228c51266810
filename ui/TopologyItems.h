// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>
#include <QGraphicsItem>
#include <QString>
#include <vector>

namespace parallax::ui {

// Graphics items of the topology editor. A domain paints its GPUs itself (no item per GPU), so a
// 1024-GPU cluster is ~130 items; level of detail follows the zoom.
class DomainItem : public QGraphicsItem {
public:
    enum { Type = UserType + 101 };
    static constexpr double kCell = 12;
    static constexpr double kPadding = 6;
    static constexpr double kHeader = 32;
    static constexpr double kMinWidth = 180;
    static QSizeF sizeFor(int gpus);

    struct Info {
        int index = -1;
        QString name;
        QString gpuName;
        int gpuCount = 0;
        double nvlinkBytesPerSecond = 0;
        QColor color;
    };
    explicit DomainItem(Info info);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    const Info& info() const { return m_info; }
    int domainIndex() const { return m_info.index; }
    // GPU index (0-based inside the domain) under a point in item coordinates, or -1.
    int gpuAt(QPointF local) const;
    QPointF gpuCenter(int index) const; // item coordinates
    void setHighlightedGpus(std::vector<bool> highlighted);
    void setDropTarget(bool on);
    bool isDropTarget() const { return m_dropTarget; }

private:
    Info m_info;
    QSizeF m_size;
    int m_columns = 1;
    std::vector<bool> m_highlighted;
    bool m_dropTarget = false;
};

class FabricItem : public QGraphicsItem {
public:
    enum { Type = UserType + 102 };
    static constexpr double kHeader = 40;
    static constexpr double kPadding = 10;

    struct Info {
        int index = -1; // -1: the area of domains on no fabric
        QString name;
        double nicGbps = 0;
        int domainCount = 0;
        int gpuCount = 0;
        bool railOptimized = false;
        bool pxn = true;
        double oversubscription = 1;
        int sharedDomains = 0; // members drawn in another fabric (a spine above leaves)
    };
    FabricItem(Info info, QSizeF size);

    int type() const override { return Type; }
    QRectF boundingRect() const override { return QRectF(QPointF(0, 0), m_size); }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    const Info& info() const { return m_info; }
    int fabricIndex() const { return m_info.index; }
    void setDropTarget(bool on);
    bool isDropTarget() const { return m_dropTarget; }
    QString title() const; // the header line

private:
    Info m_info;
    QSizeF m_size;
    bool m_dropTarget = false;
};

// What follows the mouse during a drag inside the scene.
class DragGhostItem : public QGraphicsItem {
public:
    enum { Type = UserType + 103 };
    DragGhostItem(QSizeF size, QColor color, QString label);
    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    QSizeF m_size;
    QColor m_color;
    QString m_label;
};

} // namespace parallax::ui
