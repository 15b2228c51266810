// SPDX-License-Identifier: Apache-2.0
#include "ui/TopologyItems.h"

#include "ui/Format.h"
#include "ui/Theme.h"

#include <QApplication>
#include <QPainter>
#include <QPalette>
#include <QStyleOptionGraphicsItem>
#include <algorithm>
#include <cmath>

namespace parallax::ui {

namespace {
QColor textColorOn(const QColor& fill)
{
    return fill.lightness() > 140 ? QColor(0x1a, 0x1a, 0x1a) : Qt::white;
}

// Cells per row inside a domain: one row up to 16 GPUs (HGX), near 2:1 blocks beyond (NVL72: 12 x 6).
int domainColumns(int gpus)
{
    if (gpus <= 16)
        return std::max(1, gpus);
    return static_cast<int>(std::ceil(std::sqrt(2.0 * gpus)));
}
} // namespace

QSizeF DomainItem::sizeFor(int gpus)
{
    const int cols = domainColumns(gpus);
    const int rows = (std::max(1, gpus) + cols - 1) / cols;
    return QSizeF(std::max(kMinWidth, cols * kCell + 2 * kPadding), kHeader + rows * kCell + kPadding);
}

DomainItem::DomainItem(Info info)
    : m_info(std::move(info))
    , m_size(sizeFor(m_info.gpuCount))
    , m_columns(domainColumns(m_info.gpuCount))
{
    setFlag(ItemIsSelectable);
    setAcceptHoverEvents(false);
    setZValue(1);
    setToolTip(QObject::tr("<b>%1</b>: NVLink domain of %2 × %3<br>NVLink %4 per GPU per direction<br>"
                           "Drag a GPU cell to another domain, or the domain onto a fabric.")
                   .arg(m_info.name.toHtmlEscaped())
                   .arg(m_info.gpuCount)
                   .arg(m_info.gpuName.toHtmlEscaped())
                   .arg(format::bytesPerSecond(m_info.nvlinkBytesPerSecond)));
}

QRectF DomainItem::boundingRect() const
{
    return QRectF(QPointF(0, 0), m_size).adjusted(-2, -2, 2, 2);
}

int DomainItem::gpuAt(QPointF local) const
{
    const double x = local.x() - kPadding;
    const double y = local.y() - kHeader;
    if (x < 0 || y < 0)
        return -1;
    const int col = static_cast<int>(x / kCell);
    const int row = static_cast<int>(y / kCell);
    if (col >= m_columns)
        return -1;
    const int i = row * m_columns + col;
    return i < m_info.gpuCount ? i : -1;
}

QPointF DomainItem::gpuCenter(int index) const
{
    return QPointF(kPadding + (index % m_columns + 0.5) * kCell, kHeader + (index / m_columns + 0.5) * kCell);
}

void DomainItem::setHighlightedGpus(std::vector<bool> highlighted)
{
    m_highlighted = std::move(highlighted);
    update();
}

void DomainItem::setDropTarget(bool on)
{
    if (m_dropTarget != on) {
        m_dropTarget = on;
        update();
    }
}

void DomainItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const double lod = option->levelOfDetailFromTransform(p->worldTransform());
    const QPalette pal = QApplication::palette();
    const bool dark = pal.color(QPalette::Base).lightness() < 128;
    const QRectF box(QPointF(0, 0), m_size);
    const QColor accent = pal.color(QPalette::Highlight);
    QPen border(isSelected() || m_dropTarget ? accent : m_info.color.darker(dark ? 100 : 150),
        (isSelected() || m_dropTarget ? 2.5 : 1.0) / std::max(lod, 0.3));
    const QColor fill = dark ? m_info.color.darker(300) : QColor(m_info.color).lighter(165);
    p->setPen(border);
    p->setBrush(fill);
    p->drawRoundedRect(box, 4, 4);

    const bool anyHighlight = std::find(m_highlighted.begin(), m_highlighted.end(), true) != m_highlighted.end();
    if (lod < 0.25) {
        // Far away: a block per domain in the GPU type's color.
        p->fillRect(box.adjusted(kPadding, kHeader * 0.5, -kPadding, -kPadding),
            anyHighlight ? pal.color(QPalette::Text) : m_info.color);
        return;
    }

    // Header: the name, scaled up when zoomed out so that it stays about 9 px on screen; the
    // "8 × H100 SXM5 · 450 GB/s" line only when it is legible.
    QFont f = p->font();
    f.setBold(true);
    p->setPen(pal.color(QPalette::Text));
    if (lod < 0.7) {
        f.setPixelSize(static_cast<int>(std::clamp(9.5 / lod, 11.0, 26.0)));
        p->setFont(f);
        const QRectF line(kPadding, 1, m_size.width() - 2 * kPadding, kHeader - 3);
        p->drawText(line, Qt::AlignLeft | Qt::AlignVCenter,
            QFontMetricsF(f).elidedText(m_info.name, Qt::ElideRight, line.width()));
    } else {
        f.setPixelSize(11);
        p->setFont(f);
        const QRectF line1(kPadding, 2, m_size.width() - 2 * kPadding, 14);
        p->drawText(line1, Qt::AlignLeft | Qt::AlignVCenter,
            QFontMetricsF(f).elidedText(m_info.name, Qt::ElideRight, line1.width()));
        f.setBold(false);
        f.setPixelSize(10);
        p->setFont(f);
        const QRectF line2(kPadding, 15, m_size.width() - 2 * kPadding, 13);
        const QString detail = QStringLiteral("%1 × %2 · %3")
                                   .arg(m_info.gpuCount)
                                   .arg(m_info.gpuName)
                                   .arg(format::bytesPerSecond(m_info.nvlinkBytesPerSecond));
        p->drawText(line2, Qt::AlignLeft | Qt::AlignVCenter,
            QFontMetricsF(f).elidedText(detail, Qt::ElideRight, line2.width()));
    }

    // GPUs as chips.
    const QColor chipBorder = m_info.color.darker(170);
    const QColor highlight = pal.color(QPalette::Text);
    p->setPen(lod >= 1.0 ? QPen(chipBorder, 0) : Qt::NoPen);
    const bool labels = lod * kCell >= 22;
    QFont small = p->font();
    small.setPixelSize(7);
    for (int i = 0; i < m_info.gpuCount; ++i) {
        const QPointF c = gpuCenter(i);
        const QRectF chip(c.x() - kCell / 2 + 1, c.y() - kCell / 2 + 1, kCell - 2, kCell - 2);
        const bool hl = i < static_cast<int>(m_highlighted.size()) && m_highlighted[static_cast<std::size_t>(i)];
        p->setBrush(hl ? highlight : m_info.color);
        if (lod >= 1.0)
            p->drawRoundedRect(chip, 1.5, 1.5);
        else
            p->fillRect(chip, hl ? highlight : m_info.color);
        if (labels) {
            p->setFont(small);
            p->setPen(textColorOn(hl ? highlight : m_info.color));
            p->drawText(chip, Qt::AlignCenter, QString::number(i));
            p->setPen(QPen(chipBorder, 0));
        }
    }
}

FabricItem::FabricItem(Info info, QSizeF size)
    : m_info(std::move(info))
    , m_size(size)
{
    setFlag(ItemIsSelectable, m_info.index >= 0);
    setZValue(0);
    if (m_info.index >= 0)
        setToolTip(QObject::tr("<b>%1</b>: scale-out fabric, %2 Gb/s per NIC<br>Drop a domain here to attach it.")
                       .arg(m_info.name.toHtmlEscaped())
                       .arg(m_info.nicGbps));
    else
        setToolTip(QObject::tr("Domains on no fabric cannot talk to the others: drag them onto a fabric."));
}

void FabricItem::setDropTarget(bool on)
{
    if (m_dropTarget != on) {
        m_dropTarget = on;
        update();
    }
}

namespace {
// " · rail-optimised (PXN) · 2:1 · also joins 8 domains drawn above", or empty for a plain fabric.
QString fabricTraits(const FabricItem::Info& info)
{
    QString text;
    if (info.railOptimized)
        text += QObject::tr(" · rail-optimised") + (info.pxn ? QObject::tr(" (PXN)") : QString());
    if (info.oversubscription > 1)
        text += QStringLiteral(" · %1:1").arg(info.oversubscription);
    if (info.sharedDomains > 0)
        text += QObject::tr(" · also joins %1 domains drawn in other fabrics").arg(info.sharedDomains);
    return text;
}
} // namespace

QString FabricItem::title() const
{
    if (m_info.index < 0)
        return m_info.domainCount == 1 ? QObject::tr("Not on a fabric (1 domain)")
                                       : QObject::tr("Not on a fabric (%1 domains)").arg(m_info.domainCount);
    return QObject::tr("%1 · IB %2 Gb/s per NIC · %3 GPUs").arg(m_info.name).arg(m_info.nicGbps).arg(m_info.gpuCount)
        + fabricTraits(m_info);
}

void FabricItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const double lod = option->levelOfDetailFromTransform(p->worldTransform());
    const QPalette pal = QApplication::palette();
    const QRectF box(QPointF(0, 0), m_size);
    const bool orphan = m_info.index < 0;
    QPen pen(isSelected() || m_dropTarget ? pal.color(QPalette::Highlight) : pal.color(QPalette::Mid),
        (isSelected() || m_dropTarget ? 3.0 : 1.5) / std::max(lod, 0.2));
    if (orphan)
        pen.setStyle(Qt::DashLine);
    p->setPen(pen);
    p->setBrush(orphan ? Qt::NoBrush : QBrush(pal.color(QPalette::AlternateBase)));
    p->drawRoundedRect(box, 8, 8);
    // The title grows as the view zooms out so that it stays readable over a large cluster.
    const double fontPx = std::clamp(11.0 / std::max(lod, 0.05), 13.0, 30.0);
    if (lod * fontPx < 5)
        return;
    QFont f = p->font();
    f.setPixelSize(static_cast<int>(fontPx));
    f.setBold(true);
    p->setFont(f);
    p->setPen(orphan ? theme::problemColor() : pal.color(QPalette::Text));
    const QString title = this->title();
    const QRectF header(kPadding, 4, m_size.width() - 2 * kPadding, kHeader - 6);
    p->drawText(
        header, Qt::AlignLeft | Qt::AlignVCenter, QFontMetricsF(f).elidedText(title, Qt::ElideRight, header.width()));
}

DragGhostItem::DragGhostItem(QSizeF size, QColor color, QString label)
    : m_size(size)
    , m_color(std::move(color))
    , m_label(std::move(label))
{
    setZValue(100);
    setOpacity(0.75);
    setAcceptedMouseButtons(Qt::NoButton);
}

QRectF DragGhostItem::boundingRect() const
{
    return QRectF(-m_size.width() / 2, -m_size.height() / 2, m_size.width(), m_size.height()).adjusted(-1, -16, 200, 1);
}

void DragGhostItem::paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*)
{
    const QRectF r(-m_size.width() / 2, -m_size.height() / 2, m_size.width(), m_size.height());
    p->setPen(QPen(m_color.darker(160), 0));
    p->setBrush(m_color);
    p->drawRoundedRect(r, 2, 2);
    if (!m_label.isEmpty()) {
        QFont f = p->font();
        f.setPixelSize(11);
        p->setFont(f);
        p->setPen(QApplication::palette().color(QPalette::Text));
        p->drawText(QPointF(r.right() + 4, r.top() - 3), m_label);
    }
}

} // namespace parallax::ui
