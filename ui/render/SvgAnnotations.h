// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <utility>
#include <vector>

namespace parallax::render {

// Named, titled elements that an SVG export carries on top of the painted picture: QSvgGenerator
// writes anonymous paths, so a renderer lists what it drew (one element per Gantt op, per folded
// bar, per GPU, per memory segment) and the exporter appends them as a transparent layer
// <g id="parallax-annotations">: each a <rect> with an id, a class, data-* attributes and a <title>
// (a tooltip in browsers, a handle for scripts and tests).
class SvgAnnotations {
public:
    struct Item {
        QRectF rect;
        QString id; // unique in the document, or empty
        QString cssClass; // "op", "fold", "gpu", "memory"
        QString title;
        std::vector<std::pair<QString, QString>> data; // data-KEY="VALUE"
    };

    // Added to every rect: where the renderer's area sits in the picture.
    void setOrigin(QPointF origin) { m_origin = origin; }
    QPointF origin() const { return m_origin; }

    void add(Item item);
    const std::vector<Item>& items() const { return m_items; }
    bool isEmpty() const { return m_items.empty(); }

    // The layer as SVG text, to insert before the closing </svg>.
    QByteArray toSvgGroup() const;

private:
    QPointF m_origin;
    std::vector<Item> m_items;
};

} // namespace parallax::render
