// SPDX-License-Identifier: Apache-2.0
#include "ui/TopologyEditor.h"

#include "core/io/PresetLibrary.h"
#include "ui/Format.h"
#include "ui/ScenarioDocument.h"
#include "ui/Theme.h"
#include "ui/TopologyEdits.h"
#include "ui/TopologyItems.h"

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGraphicsScene>
#include <QInputDialog>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMimeData>
#include <QPainter>
#include <QSpinBox>
#include <QToolBar>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace parallax::ui {

namespace {
using Kind = TopologyDrag::Kind;

int gpuTypeIndex(const std::string& id)
{
    const auto& gpus = core::PresetLibrary::instance().gpus();
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        if (gpus[i].id == id)
            return static_cast<int>(i);
    }
    return static_cast<int>(std::hash<std::string> {}(id) % 97);
}

QIcon paletteIcon(Kind kind, const QColor& color, qreal dpr)
{
    const int size = 18;
    QPixmap pm(QSize(size, size) * dpr);
    pm.setDevicePixelRatio(dpr);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    switch (kind) {
    case Kind::PaletteGpu:
        p.setPen(QPen(color.darker(170), 1));
        p.setBrush(color);
        p.drawRoundedRect(QRectF(3.5, 3.5, 11, 11), 2, 2);
        break;
    case Kind::PaletteDomain:
        p.setPen(QPen(QColor(0x66, 0x66, 0x66), 1));
        p.setBrush(QColor(0xdd, 0xdd, 0xdd));
        p.drawRoundedRect(QRectF(1.5, 4.5, 15, 10), 2, 2);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0x77, 0xaa, 0xdd));
        for (int i = 0; i < 4; ++i)
            p.drawRect(QRectF(3 + i * 3.2, 9, 2.4, 3.5));
        break;
    default: {
        QPen pen(QColor(0x66, 0x66, 0x66), 1.2);
        p.setPen(pen);
        p.setBrush(Qt::NoBrush);
        p.drawRoundedRect(QRectF(1.5, 1.5, 15, 15), 3, 3);
        p.drawLine(QPointF(4, 9), QPointF(14, 9));
        p.drawLine(QPointF(9, 4), QPointF(9, 14));
        break;
    }
    }
    return QIcon(pm);
}

// The palette: drags carry a TopologyDrag as mime data (a drag between widgets needs QDrag; the
// drop lands in TopologyEditor::drop like every in-scene drag).
class PaletteList : public QListWidget {
public:
    using QListWidget::QListWidget;

protected:
    QStringList mimeTypes() const override { return { TopologyDrag::mimeType() }; }
    QMimeData* mimeData(const QList<QListWidgetItem*>& items) const override
    {
        if (items.isEmpty())
            return nullptr;
        auto* data = new QMimeData;
        data->setData(TopologyDrag::mimeType(), items.front()->data(Qt::UserRole).toByteArray());
        return data;
    }
};

constexpr double kDomainGap = 12;
constexpr double kFabricGap = 28;
} // namespace

TopologyEditor::TopologyEditor(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_scene(new QGraphicsScene(this))
{
    m_scene->setItemIndexMethod(QGraphicsScene::NoIndex); // rebuilt on every edit; ~130 items at 1024 GPUs
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);

    auto* bar = new QToolBar(this);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->setIconSize(QSize(16, 16));
    QAction* generate = bar->addAction(tr("Generate cluster…"), this, &TopologyEditor::showGenerateDialog);
    generate->setToolTip(tr("Replace the topology by N nodes × G GPUs of one type on one fabric"));
    bar->addAction(tr("Fit"), this, &TopologyEditor::fitAll)->setToolTip(tr("Show the whole cluster (0)"));
    bar->addAction(tr("Delete"), this, &TopologyEditor::deleteSelection)
        ->setToolTip(tr("Delete the selected domain or fabric (Del)"));
    layout->addWidget(bar);

    m_palette = new PaletteList(this);
    m_palette->setObjectName(QStringLiteral("topologyPalette"));
    m_palette->setViewMode(QListView::ListMode);
    m_palette->setFlow(QListView::LeftToRight);
    m_palette->setWrapping(true);
    m_palette->setResizeMode(QListView::Adjust);
    m_palette->setSpacing(1);
    m_palette->setDragDropMode(QAbstractItemView::DragOnly);
    m_palette->setSelectionMode(QAbstractItemView::SingleSelection);
    m_palette->setToolTip(tr("Drag a GPU onto a domain, a domain onto a fabric; double-click to add to the selection"));
    const qreal dpr = devicePixelRatioF();
    auto addPaletteItem = [&](const QString& text, const TopologyDrag& drag, const QColor& color, const QString& tip) {
        auto* item = new QListWidgetItem(paletteIcon(drag.kind, color, dpr), text, m_palette);
        item->setData(Qt::UserRole, drag.encode());
        item->setToolTip(tip);
    };
    addPaletteItem(tr("NVLink domain"), { Kind::PaletteDomain, {}, -1, -1 }, {},
        tr("A node (HGX) or rack (NVL72) of the selected GPU type"));
    addPaletteItem(tr("IB fabric"), { Kind::PaletteFabric, {}, -1, -1 }, {}, tr("A scale-out network joining domains"));
    for (const auto& gpu : core::PresetLibrary::instance().gpus()) {
        addPaletteItem(format::gpuShortName(QString::fromStdString(gpu.name)),
            { Kind::PaletteGpu, QString::fromStdString(gpu.id), -1, -1 }, theme::gpuTypeColor(gpuTypeIndex(gpu.id)),
            tr("%1: %2 HBM, %3 bf16, NVLink %4 per direction")
                .arg(QString::fromStdString(gpu.name), format::bytes(gpu.hbmBytes),
                    format::flopsPerSecond(gpu.bf16FlopsPerSecond), format::bytesPerSecond(gpu.nvlinkBytesPerSecond)));
    }
    const int rowHeight = m_palette->sizeHintForRow(0) + 2;
    m_palette->setFixedHeight(rowHeight * 3 + 2 * m_palette->frameWidth() + 4);
    layout->addWidget(m_palette);
    connect(m_palette, &QListWidget::itemDoubleClicked, this, [this](QListWidgetItem* item) {
        const TopologyDrag drag = TopologyDrag::decode(item->data(Qt::UserRole).toByteArray());
        const int d = selectedDomain();
        const int f = selectedFabric();
        // Into the selected domain or fabric; without a selection, onto the first fabric.
        QPointF target(-1e9, -1e9);
        if (d >= 0)
            target = domainScenePos(d);
        else if (f >= 0 || !m_fabricItems.empty())
            target = fabricScenePos(std::max(f, 0));
        drop(drag, target);
    });

    m_view = new TopologyView(this, m_scene, this);
    m_view->setObjectName(QStringLiteral("topologyView"));
    layout->addWidget(m_view, 1);

    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("topologyStatus"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_message);

    connect(m_document, &ScenarioDocument::scenarioChanged, this, &TopologyEditor::rebuild);
    rebuild();
}

TopologyEditor::~TopologyEditor() = default;

void TopologyEditor::rebuild()
{
    // The scenario changed (undo, rename, delete, File > New, another panel): the last action's
    // text no longer describes it; the counts are recomputed.
    m_lastMessage.clear();
    m_lastProblem = false;
    refreshMessage();
    const int keepDomain = selectedDomain();
    const int keepFabric = selectedFabric();
    m_view->cancelDrag();
    m_scene->clear();
    m_domainItems.clear();
    m_fabricItems.clear();
    m_orphanArea = nullptr;

    const core::Topology& topo = m_document->scenario().topology;
    const int domainCount = static_cast<int>(topo.domains.size());
    const QSize viewport = m_view->viewport()->size();
    m_layoutAspect = viewport.height() > 50 && viewport.width() > 50
        ? static_cast<double>(viewport.width()) / viewport.height()
        : 0.6;
    for (int d = 0; d < domainCount; ++d) {
        const auto& dom = topo.domains[static_cast<std::size_t>(d)];
        DomainItem::Info info;
        info.index = d;
        info.name = QString::fromStdString(dom.name);
        info.gpuName = format::gpuShortName(QString::fromStdString(dom.gpu.name));
        info.gpuCount = dom.gpuCount;
        info.nvlinkBytesPerSecond = topo.nvlinkBytesPerSecond(d);
        info.color = theme::gpuTypeColor(gpuTypeIndex(dom.gpu.id));
        auto* item = new DomainItem(info);
        m_domainItems.push_back(item);
        m_scene->addItem(item);
    }

    // Fabrics stacked vertically, their domains in a grid; then the domains on no fabric.
    double y = 0;
    auto placeGroup = [&](const std::vector<int>& members, FabricItem::Info info) {
        QSizeF slot(DomainItem::kMinWidth, DomainItem::sizeFor(8).height());
        for (int d : members)
            slot = slot.expandedTo(DomainItem::sizeFor(topo.domains[static_cast<std::size_t>(d)].gpuCount));
        const int n = static_cast<int>(members.size());
        // As many domains per row as make the fabric's shape match the view's (fills the dock).
        const double perRow
            = std::sqrt(n * (slot.height() + kDomainGap) / (slot.width() + kDomainGap) * m_layoutAspect);
        const int cols = std::clamp(static_cast<int>(std::lround(perRow)), 1, std::max(1, n));
        const int rows = std::max(1, (n + cols - 1) / cols);
        const double width = std::max(2 * FabricItem::kPadding + cols * slot.width() + (cols - 1) * kDomainGap, 380.0);
        const double height
            = FabricItem::kHeader + rows * slot.height() + (rows - 1) * kDomainGap + FabricItem::kPadding;
        info.domainCount = n;
        for (int d : members)
            info.gpuCount += topo.domains[static_cast<std::size_t>(d)].gpuCount;
        auto* fabric = new FabricItem(info, QSizeF(width, height));
        fabric->setPos(0, y);
        m_scene->addItem(fabric);
        for (int i = 0; i < n; ++i) {
            m_domainItems[static_cast<std::size_t>(members[static_cast<std::size_t>(i)])]->setPos(
                FabricItem::kPadding + (i % cols) * (slot.width() + kDomainGap),
                y + FabricItem::kHeader + (i / cols) * (slot.height() + kDomainGap));
        }
        y += height + kFabricGap;
        return fabric;
    };
    std::vector<bool> attached(static_cast<std::size_t>(domainCount), false);
    for (std::size_t f = 0; f < topo.fabrics.size(); ++f) {
        const auto& fab = topo.fabrics[f];
        std::vector<int> members;
        for (int d : fab.domains) {
            if (d >= 0 && d < domainCount && !attached[static_cast<std::size_t>(d)]) {
                attached[static_cast<std::size_t>(d)] = true;
                members.push_back(d);
            }
        }
        FabricItem::Info info;
        info.index = static_cast<int>(f);
        info.name = QString::fromStdString(fab.name);
        info.nicGbps = fab.nicGbps;
        info.railOptimized = fab.railOptimized;
        info.pxn = fab.pxn;
        info.oversubscription = fab.oversubscription;
        info.sharedDomains = static_cast<int>(fab.domains.size() - members.size());
        m_fabricItems.push_back(placeGroup(members, info));
    }
    std::vector<int> orphans;
    for (int d = 0; d < domainCount; ++d) {
        if (!attached[static_cast<std::size_t>(d)])
            orphans.push_back(d);
    }
    if (!orphans.empty())
        m_orphanArea = placeGroup(orphans, FabricItem::Info {});

    const QRectF bounds = m_scene->itemsBoundingRect();
    const double margin = std::max(bounds.width(), bounds.height()) + 1000; // room to pan and to top-align
    m_scene->setSceneRect(bounds.adjusted(-margin, -margin, margin, margin));

    if (keepDomain >= 0 && keepDomain < domainCount)
        m_domainItems[static_cast<std::size_t>(keepDomain)]->setSelected(true);
    else if (keepFabric >= 0 && keepFabric < static_cast<int>(m_fabricItems.size()))
        m_fabricItems[static_cast<std::size_t>(keepFabric)]->setSelected(true);
    applyHighlights();
    if (m_fitPending || m_view->fitting()) {
        m_fitPending = false;
        m_view->fitAll();
    }
}

void TopologyEditor::fitAll()
{
    m_view->fitAll();
}

void TopologyEditor::viewportResized()
{
    const QSize viewport = m_view->viewport()->size();
    if (viewport.height() <= 50 || viewport.width() <= 50)
        return;
    const double aspect = static_cast<double>(viewport.width()) / viewport.height();
    if (std::abs(aspect - m_layoutAspect) > 0.15 * m_layoutAspect)
        rebuild(); // re-flows the domains for the new shape, then fits
    else
        m_view->fitAll();
}

void TopologyEditor::showMessage(const QString& text, bool problem)
{
    m_lastMessage = text;
    m_lastProblem = problem;
    refreshMessage();
}

void TopologyEditor::refreshMessage()
{
    const core::Topology& t = m_document->scenario().topology;
    const QString counts = tr("%1 GPUs in %2")
                               .arg(t.gpuCount())
                               .arg(format::plural(static_cast<int>(t.domains.size()), tr("domain"), tr("domains")));
    if (m_lastMessage.isEmpty()) {
        m_message->setText(counts.toHtmlEscaped() + QStringLiteral(" · ")
            + tr("Drag GPUs between domains, domains onto fabrics. Wheel: zoom; drag the background: pan.")
                  .toHtmlEscaped());
        return;
    }
    const QString text = m_lastMessage + QStringLiteral(" · ") + counts;
    m_message->setText(m_lastProblem
            ? QStringLiteral("<span style='color:%1'>%2</span>").arg(theme::problemColor().name(), text.toHtmlEscaped())
            : text.toHtmlEscaped());
}

DomainItem* TopologyEditor::domainItemAt(QPointF pos) const
{
    for (QGraphicsItem* item : m_scene->items(pos)) {
        if (item->type() == DomainItem::Type)
            return static_cast<DomainItem*>(item);
    }
    return nullptr;
}

FabricItem* TopologyEditor::fabricItemAt(QPointF pos) const
{
    for (QGraphicsItem* item : m_scene->items(pos)) {
        if (item->type() == FabricItem::Type)
            return static_cast<FabricItem*>(item);
    }
    return nullptr;
}

int TopologyEditor::selectedDomain() const
{
    for (QGraphicsItem* item : m_scene->selectedItems()) {
        if (item->type() == DomainItem::Type)
            return static_cast<DomainItem*>(item)->domainIndex();
    }
    return -1;
}

int TopologyEditor::selectedFabric() const
{
    for (QGraphicsItem* item : m_scene->selectedItems()) {
        if (item->type() == FabricItem::Type)
            return static_cast<FabricItem*>(item)->fabricIndex();
    }
    return -1;
}

QString TopologyEditor::currentGpuId() const
{
    if (QListWidgetItem* item = m_palette->currentItem()) {
        const TopologyDrag d = TopologyDrag::decode(item->data(Qt::UserRole).toByteArray());
        if (d.kind == Kind::PaletteGpu)
            return d.gpuId;
    }
    const auto& topo = m_document->scenario().topology;
    if (!topo.domains.empty())
        return QString::fromStdString(topo.domains.front().gpu.id);
    const auto& gpus = core::PresetLibrary::instance().gpus();
    return gpus.empty() ? QString() : QString::fromStdString(gpus.front().id);
}

TopologyDrag TopologyEditor::dragAt(QPointF scenePos) const
{
    if (DomainItem* item = domainItemAt(scenePos)) {
        const int gpu = item->gpuAt(item->mapFromScene(scenePos));
        if (gpu >= 0)
            return { Kind::Gpu, {}, item->domainIndex(), gpu };
        return { Kind::Domain, {}, item->domainIndex(), -1 };
    }
    return {};
}

QPointF TopologyEditor::gpuScenePos(int domain, int index) const
{
    const DomainItem* item = m_domainItems.at(static_cast<std::size_t>(domain));
    return item->mapToScene(item->gpuCenter(index));
}

QPointF TopologyEditor::domainScenePos(int domain) const
{
    const DomainItem* item = m_domainItems.at(static_cast<std::size_t>(domain));
    return item->mapToScene(QPointF(DomainItem::kPadding + 4, 8));
}

QPointF TopologyEditor::fabricScenePos(int fabric) const
{
    const FabricItem* item = fabric < 0 ? m_orphanArea : m_fabricItems.at(static_cast<std::size_t>(fabric));
    return item ? item->mapToScene(QPointF(FabricItem::kPadding, FabricItem::kHeader / 2)) : QPointF(-1e9, -1e9);
}

void TopologyEditor::selectAt(QPointF scenePos)
{
    m_scene->clearSelection();
    if (DomainItem* d = domainItemAt(scenePos)) {
        d->setSelected(true);
        // A click on a GPU cell names that GPU (global index, topology order) for its detail panel.
        const int inDomain = d->gpuAt(d->mapFromScene(scenePos));
        const auto& domains = m_document->scenario().topology.domains;
        if (inDomain >= 0 && m_gpuClicked && d->domainIndex() < static_cast<int>(domains.size())) {
            int gpu = inDomain;
            for (int i = 0; i < d->domainIndex(); ++i)
                gpu += domains[static_cast<std::size_t>(i)].gpuCount;
            m_gpuClicked(gpu);
        }
    } else if (FabricItem* f = fabricItemAt(scenePos); f && f->fabricIndex() >= 0)
        f->setSelected(true);
}

DragGhostItem* TopologyEditor::createGhost(const TopologyDrag& drag)
{
    const auto& topo = m_document->scenario().topology;
    DragGhostItem* ghost = nullptr;
    if (drag.kind == Kind::Domain && drag.domain >= 0 && drag.domain < static_cast<int>(topo.domains.size())) {
        const auto& d = topo.domains[static_cast<std::size_t>(drag.domain)];
        ghost = new DragGhostItem(DomainItem::sizeFor(d.gpuCount), theme::gpuTypeColor(gpuTypeIndex(d.gpu.id)),
            QString::fromStdString(d.name));
    } else if (drag.kind == Kind::Gpu && drag.domain >= 0 && drag.domain < static_cast<int>(topo.domains.size())) {
        const auto& d = topo.domains[static_cast<std::size_t>(drag.domain)];
        ghost = new DragGhostItem(QSizeF(DomainItem::kCell, DomainItem::kCell),
            theme::gpuTypeColor(gpuTypeIndex(d.gpu.id)),
            tr("%1 GPU %2").arg(QString::fromStdString(d.name)).arg(drag.index));
    }
    if (ghost)
        m_scene->addItem(ghost);
    return ghost;
}

void TopologyEditor::hoverDrop(const TopologyDrag& drag, QPointF scenePos)
{
    for (DomainItem* d : m_domainItems)
        d->setDropTarget(false);
    for (FabricItem* f : m_fabricItems)
        f->setDropTarget(false);
    if (m_orphanArea)
        m_orphanArea->setDropTarget(false);
    switch (drag.kind) {
    case Kind::Gpu:
    case Kind::PaletteGpu:
        // Only a target that would accept the drop lights up (a domain holds one GPU type).
        if (DomainItem* d = domainItemAt(scenePos); d && d->domainIndex() != drag.domain) {
            core::Topology t = m_document->scenario().topology;
            QString refusal;
            if (drag.kind == Kind::Gpu && drag.domain >= 0 && drag.domain < static_cast<int>(t.domains.size()))
                refusal = edits::moveGpu(t, drag.domain, d->domainIndex());
            else if (const auto gpu = core::PresetLibrary::instance().gpu(drag.gpuId.toStdString()))
                refusal = edits::addGpu(t, d->domainIndex(), *gpu);
            d->setDropTarget(refusal.isEmpty());
        }
        break;
    case Kind::Domain:
    case Kind::PaletteDomain:
        if (FabricItem* f = fabricItemAt(scenePos))
            f->setDropTarget(true);
        break;
    default:
        break;
    }
}

bool TopologyEditor::drop(const TopologyDrag& drag, QPointF scenePos)
{
    const core::Scenario& s = m_document->scenario();
    core::Topology t = s.topology;
    DomainItem* targetDomain = domainItemAt(scenePos);
    FabricItem* targetFabric = fabricItemAt(scenePos);
    const int toDomain = targetDomain ? targetDomain->domainIndex() : -1;
    const int toFabric = toDomain >= 0 ? t.fabricOfDomain(toDomain) : (targetFabric ? targetFabric->fabricIndex() : -1);
    const auto& library = core::PresetLibrary::instance();
    auto domainName = [&](int d) { return QString::fromStdString(t.domains[static_cast<std::size_t>(d)].name); };
    QString text;
    QString refusal;

    switch (drag.kind) {
    case Kind::PaletteGpu: {
        const auto gpu = library.gpu(drag.gpuId.toStdString());
        if (!gpu) {
            refusal = tr("unknown GPU type %1").arg(drag.gpuId);
        } else if (toDomain >= 0) {
            refusal = edits::addGpu(t, toDomain, *gpu);
            text = tr("Add a %1 to %2").arg(QString::fromStdString(gpu->name), domainName(toDomain));
        } else {
            const int d = edits::addDomain(t, *gpu, 1, toFabric);
            text = tr("New domain %1 with one %2").arg(domainName(d), QString::fromStdString(gpu->name));
        }
        break;
    }
    case Kind::PaletteDomain: {
        const QString id = drag.gpuId.isEmpty() ? currentGpuId() : drag.gpuId;
        const auto gpu = library.gpu(id.toStdString());
        if (!gpu) {
            refusal = tr("choose a GPU type in the palette first");
            break;
        }
        const int d = edits::addDomain(t, *gpu, std::max(1, gpu->nvlinkDomainSize), toFabric);
        text = tr("Add domain %1 (%2 × %3)")
                   .arg(domainName(d))
                   .arg(t.domains[static_cast<std::size_t>(d)].gpuCount)
                   .arg(QString::fromStdString(gpu->name));
        break;
    }
    case Kind::PaletteFabric: {
        const double nic = t.domains.empty() ? 400.0 : t.domains.front().gpu.nicGbps;
        const int f = edits::addFabric(t, nic > 0 ? nic : 400.0);
        text = tr("Add fabric %1").arg(QString::fromStdString(t.fabrics[static_cast<std::size_t>(f)].name));
        break;
    }
    case Kind::Gpu: {
        if (drag.domain < 0 || drag.domain >= static_cast<int>(t.domains.size())) {
            refusal = tr("no such domain");
            break;
        }
        if (toDomain == drag.domain)
            return false; // dropped where it was
        const QString from = domainName(drag.domain);
        if (toDomain >= 0) {
            const QString to = domainName(toDomain);
            refusal = edits::moveGpu(t, drag.domain, toDomain);
            text = tr("Move a GPU from %1 to %2").arg(from, to);
        } else {
            // Dropped outside every domain: the GPU starts a domain of its own there.
            const core::GpuSpec gpu = t.domains[static_cast<std::size_t>(drag.domain)].gpu;
            edits::removeGpu(t, drag.domain);
            const int d = edits::addDomain(t, gpu, 1, toFabric);
            text = tr("Move a GPU from %1 to a new domain %2").arg(from, domainName(d));
        }
        break;
    }
    case Kind::Domain: {
        if (drag.domain < 0 || drag.domain >= static_cast<int>(t.domains.size())) {
            refusal = tr("no such domain");
            break;
        }
        if (toFabric == t.fabricOfDomain(drag.domain))
            return false;
        edits::attachDomain(t, drag.domain, toFabric);
        text = toFabric >= 0 ? tr("Attach %1 to %2")
                                   .arg(domainName(drag.domain),
                                       QString::fromStdString(t.fabrics[static_cast<std::size_t>(toFabric)].name))
                             : tr("Detach %1 from its fabric").arg(domainName(drag.domain));
        break;
    }
    case Kind::None:
        return false;
    }

    if (!refusal.isEmpty()) {
        showMessage(tr("Not done: %1.").arg(refusal), true);
        return false;
    }
    m_document->edit(text, [t](core::Scenario& s) {
        s.topology = t;
        edits::normalizeCluster(s);
    });
    showMessage(text, false);
    return true;
}

void TopologyEditor::generateCluster(const QString& gpuId, int nodes, int gpusPerNode, double nicGbps)
{
    const auto gpu = core::PresetLibrary::instance().gpu(gpuId.toStdString());
    if (!gpu) {
        showMessage(tr("Not done: unknown GPU type %1.").arg(gpuId), true);
        return;
    }
    const core::Topology t = edits::generateCluster(*gpu, nodes, gpusPerNode, nicGbps);
    m_fitPending = true;
    const QString text = tr("Generate %1 × %2 %3").arg(nodes).arg(gpusPerNode).arg(QString::fromStdString(gpu->name));
    m_document->edit(text, [t](core::Scenario& s) {
        s.topology = t;
        edits::normalizeCluster(s);
    });
    showMessage(text, false);
}

void TopologyEditor::showGenerateDialog()
{
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Generate cluster"));
    auto* form = new QFormLayout(&dialog);
    auto* gpu = new QComboBox(&dialog);
    for (const auto& g : core::PresetLibrary::instance().gpus())
        gpu->addItem(QString::fromStdString(g.name), QString::fromStdString(g.id));
    gpu->setCurrentIndex(std::max(0, gpu->findData(currentGpuId())));
    auto* nodes = new QSpinBox(&dialog);
    nodes->setRange(1, 8192);
    nodes->setValue(std::max<int>(1, static_cast<int>(m_document->scenario().topology.domains.size())));
    auto* perNode = new QSpinBox(&dialog);
    perNode->setRange(1, 576);
    auto* nic = new QDoubleSpinBox(&dialog);
    nic->setRange(1, 10000);
    nic->setDecimals(0);
    nic->setSuffix(tr(" Gb/s"));
    auto* total = new QLabel(&dialog);
    auto defaults = [&] {
        if (const auto g = core::PresetLibrary::instance().gpu(gpu->currentData().toString().toStdString())) {
            perNode->setValue(std::max(1, g->nvlinkDomainSize));
            nic->setValue(g->nicGbps > 0 ? g->nicGbps : 400);
        }
    };
    auto updateTotal = [&] { total->setText(tr("%1 GPUs").arg(nodes->value() * perNode->value())); };
    defaults();
    updateTotal();
    connect(gpu, &QComboBox::currentIndexChanged, &dialog, defaults);
    connect(nodes, &QSpinBox::valueChanged, &dialog, updateTotal);
    connect(perNode, &QSpinBox::valueChanged, &dialog, updateTotal);
    form->addRow(tr("GPU type:"), gpu);
    form->addRow(tr("Nodes (NVLink domains):"), nodes);
    form->addRow(tr("GPUs per node:"), perNode);
    form->addRow(tr("NIC bandwidth per GPU:"), nic);
    form->addRow(tr("Total:"), total);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    form->addRow(buttons);
    if (dialog.exec() == QDialog::Accepted)
        generateCluster(gpu->currentData().toString(), nodes->value(), perNode->value(), nic->value());
}

void TopologyEditor::renameDomain(int domain, const QString& name)
{
    core::Topology t = m_document->scenario().topology;
    const QString old = domain >= 0 && domain < static_cast<int>(t.domains.size())
        ? QString::fromStdString(t.domains[static_cast<std::size_t>(domain)].name)
        : QString();
    const QString refusal = edits::renameDomain(t, domain, name);
    if (!refusal.isEmpty()) {
        showMessage(tr("Not renamed: %1.").arg(refusal), true);
        return;
    }
    m_document->edit(tr("Rename %1 to %2").arg(old, name.trimmed()), [t](core::Scenario& s) {
        s.topology = t;
        edits::normalizeCluster(s);
    });
}

void TopologyEditor::renameFabric(int fabric, const QString& name)
{
    core::Topology t = m_document->scenario().topology;
    const QString refusal = edits::renameFabric(t, fabric, name);
    if (!refusal.isEmpty()) {
        showMessage(tr("Not renamed: %1.").arg(refusal), true);
        return;
    }
    m_document->edit(tr("Rename fabric to %1").arg(name.trimmed()), [t](core::Scenario& s) {
        s.topology = t;
        edits::normalizeCluster(s);
    });
}

void TopologyEditor::setDomainNvlink(int domain, double gigabytesPerSecond)
{
    const auto& topo = m_document->scenario().topology;
    if (domain < 0 || domain >= static_cast<int>(topo.domains.size()))
        return;
    m_document->edit(tr("Set NVLink bandwidth of %1")
                         .arg(QString::fromStdString(topo.domains[static_cast<std::size_t>(domain)].name)),
        [domain, gigabytesPerSecond](core::Scenario& s) {
            s.topology.domains[static_cast<std::size_t>(domain)].nvlinkBytesPerSecond
                = std::max(0.0, gigabytesPerSecond) * 1e9;
            edits::normalizeCluster(s);
        });
}

void TopologyEditor::setFabricNic(int fabric, double gigabitsPerSecond)
{
    const auto& topo = m_document->scenario().topology;
    if (fabric < 0 || fabric >= static_cast<int>(topo.fabrics.size()) || gigabitsPerSecond <= 0)
        return;
    m_document->edit(
        tr("Set NIC bandwidth of %1").arg(QString::fromStdString(topo.fabrics[static_cast<std::size_t>(fabric)].name)),
        [fabric, gigabitsPerSecond](core::Scenario& s) {
            s.topology.fabrics[static_cast<std::size_t>(fabric)].nicGbps = gigabitsPerSecond;
            edits::normalizeCluster(s);
        });
}

void TopologyEditor::deleteDomain(int domain)
{
    core::Topology t = m_document->scenario().topology;
    if (domain < 0 || domain >= static_cast<int>(t.domains.size()))
        return;
    if (t.domains.size() == 1) {
        showMessage(tr("Not deleted: a cluster needs at least one domain."), true);
        return;
    }
    const QString name = QString::fromStdString(t.domains[static_cast<std::size_t>(domain)].name);
    edits::removeDomain(t, domain);
    m_document->edit(tr("Delete %1").arg(name), [t](core::Scenario& s) {
        s.topology = t;
        edits::normalizeCluster(s);
    });
}

void TopologyEditor::deleteFabric(int fabric)
{
    core::Topology t = m_document->scenario().topology;
    if (fabric < 0 || fabric >= static_cast<int>(t.fabrics.size()))
        return;
    const QString name = QString::fromStdString(t.fabrics[static_cast<std::size_t>(fabric)].name);
    edits::removeFabric(t, fabric);
    m_document->edit(tr("Delete fabric %1").arg(name), [t](core::Scenario& s) {
        s.topology = t;
        edits::normalizeCluster(s);
    });
}

void TopologyEditor::removeGpu(int domain)
{
    core::Topology t = m_document->scenario().topology;
    if (domain < 0 || domain >= static_cast<int>(t.domains.size()))
        return;
    if (t.gpuCount() <= 1) {
        showMessage(tr("Not removed: a cluster needs at least one GPU."), true);
        return;
    }
    const QString name = QString::fromStdString(t.domains[static_cast<std::size_t>(domain)].name);
    edits::removeGpu(t, domain);
    m_document->edit(tr("Remove a GPU from %1").arg(name), [t](core::Scenario& s) {
        s.topology = t;
        edits::normalizeCluster(s);
    });
}

void TopologyEditor::deleteSelection()
{
    if (const int d = selectedDomain(); d >= 0)
        deleteDomain(d);
    else if (const int f = selectedFabric(); f >= 0)
        deleteFabric(f);
}

void TopologyEditor::renameSelection()
{
    const auto& topo = m_document->scenario().topology;
    bool ok = false;
    if (const int d = selectedDomain(); d >= 0) {
        const QString name = QInputDialog::getText(this, tr("Rename domain"), tr("Name:"), QLineEdit::Normal,
            QString::fromStdString(topo.domains[static_cast<std::size_t>(d)].name), &ok);
        if (ok)
            renameDomain(d, name);
    } else if (const int f = selectedFabric(); f >= 0) {
        const QString name = QInputDialog::getText(this, tr("Rename fabric"), tr("Name:"), QLineEdit::Normal,
            QString::fromStdString(topo.fabrics[static_cast<std::size_t>(f)].name), &ok);
        if (ok)
            renameFabric(f, name);
    }
}

void TopologyEditor::setBandwidthOfSelection()
{
    const auto& topo = m_document->scenario().topology;
    bool ok = false;
    if (const int d = selectedDomain(); d >= 0) {
        const double value = QInputDialog::getDouble(this, tr("NVLink bandwidth"),
            tr("Per GPU per direction (GB/s); 0 = the GPU's datasheet value:"),
            topo.domains[static_cast<std::size_t>(d)].nvlinkBytesPerSecond / 1e9, 0, 10000, 0, &ok);
        if (ok)
            setDomainNvlink(d, value);
    } else if (const int f = selectedFabric(); f >= 0) {
        const double value = QInputDialog::getDouble(this, tr("NIC bandwidth"), tr("Per NIC (Gb/s):"),
            topo.fabrics[static_cast<std::size_t>(f)].nicGbps, 1, 100000, 0, &ok);
        if (ok)
            setFabricNic(f, value);
    }
}

void TopologyEditor::showContextMenu(QPoint globalPos, QPointF scenePos)
{
    QMenu menu(this);
    if (DomainItem* item = domainItemAt(scenePos)) {
        const int d = item->domainIndex();
        menu.addAction(tr("Rename…"), this, &TopologyEditor::renameSelection);
        menu.addAction(tr("NVLink bandwidth…"), this, &TopologyEditor::setBandwidthOfSelection);
        menu.addSeparator();
        const std::string gpuId = m_document->scenario().topology.domains[static_cast<std::size_t>(d)].gpu.id;
        menu.addAction(tr("Add a GPU"), this, [this, d, gpuId] {
            drop({ Kind::PaletteGpu, QString::fromStdString(gpuId), -1, -1 }, domainScenePos(d));
        });
        menu.addAction(tr("Remove a GPU"), this, [this, d] { removeGpu(d); });
        if (m_document->scenario().topology.fabricOfDomain(d) >= 0)
            menu.addAction(tr("Detach from fabric"), this, [this, d] {
                drop({ Kind::Domain, {}, d, -1 }, { -1e9, -1e9 });
            });
        // Several fabrics per domain: leaf fabrics under a spine.
        const auto& topo = m_document->scenario().topology;
        const std::vector<int> on = topo.fabricsOfDomain(d);
        QMenu* also = menu.addMenu(tr("Also attach to"));
        QMenu* leave = menu.addMenu(tr("Take off"));
        for (int f = 0; f < static_cast<int>(topo.fabrics.size()); ++f) {
            const QString name = QString::fromStdString(topo.fabrics[static_cast<std::size_t>(f)].name);
            if (std::find(on.begin(), on.end(), f) == on.end())
                also->addAction(name, this, [this, d, f] { alsoAttachDomain(d, f); });
            else if (on.size() > 1)
                leave->addAction(name, this, [this, d, f] { leaveFabric(d, f); });
        }
        also->setEnabled(!also->isEmpty());
        leave->setEnabled(!leave->isEmpty());
        menu.addSeparator();
        menu.addAction(tr("Delete domain"), this, [this, d] { deleteDomain(d); });
    } else if (FabricItem* f = fabricItemAt(scenePos); f && f->fabricIndex() >= 0) {
        const int index = f->fabricIndex();
        menu.addAction(tr("Rename…"), this, &TopologyEditor::renameSelection);
        menu.addAction(tr("NIC bandwidth…"), this, &TopologyEditor::setBandwidthOfSelection);
        const core::Fabric& fab = m_document->scenario().topology.fabrics[static_cast<std::size_t>(index)];
        QAction* rail = menu.addAction(tr("Rail-optimised"));
        rail->setCheckable(true);
        rail->setChecked(fab.railOptimized);
        connect(rail, &QAction::toggled, this, [this, index](bool on) { setFabricRailOptimized(index, on); });
        QAction* pxn = menu.addAction(tr("PXN (NVLink before a rail change)"));
        pxn->setCheckable(true);
        pxn->setChecked(fab.pxn);
        pxn->setEnabled(fab.railOptimized);
        connect(pxn, &QAction::toggled, this, [this, index](bool on) { setFabricPxn(index, on); });
        menu.addAction(tr("Oversubscription…"), this, [this, index, ratio = fab.oversubscription] {
            bool ok = false;
            const double value = QInputDialog::getDouble(
                this, tr("Oversubscription"), tr("Downlinks per uplink (1 = non-blocking):"), ratio, 1, 64, 2, &ok);
            if (ok)
                setFabricOversubscription(index, value);
        });
        menu.addAction(tr("Add NVLink domain"), this, [this, scenePos] {
            drop({ Kind::PaletteDomain, {}, -1, -1 }, scenePos);
        });
        menu.addSeparator();
        menu.addAction(tr("Delete fabric"), this, [this, index] { deleteFabric(index); });
    } else {
        menu.addAction(tr("Add NVLink domain"), this, [this, scenePos] {
            drop({ Kind::PaletteDomain, {}, -1, -1 }, scenePos);
        });
        menu.addAction(tr("Add fabric"), this, [this, scenePos] {
            drop({ Kind::PaletteFabric, {}, -1, -1 }, scenePos);
        });
        menu.addAction(tr("Generate cluster…"), this, &TopologyEditor::showGenerateDialog);
        menu.addAction(tr("Fit"), this, &TopologyEditor::fitAll);
    }
    menu.exec(globalPos);
}

void TopologyEditor::setHighlightedGpus(const std::vector<int>& gpus)
{
    m_highlighted = gpus;
    applyHighlights();
}

void TopologyEditor::applyHighlights()
{
    const auto& topo = m_document->scenario().topology;
    std::vector<std::vector<bool>> perDomain(m_domainItems.size());
    for (std::size_t d = 0; d < m_domainItems.size(); ++d)
        perDomain[d].assign(static_cast<std::size_t>(std::max(0, topo.domains[d].gpuCount)), false);
    for (int gpu : m_highlighted) {
        const core::GpuLocation loc = topo.locate(gpu);
        if (loc.domain >= 0 && loc.domain < static_cast<int>(perDomain.size())
            && loc.indexInDomain < static_cast<int>(perDomain[static_cast<std::size_t>(loc.domain)].size()))
            perDomain[static_cast<std::size_t>(loc.domain)][static_cast<std::size_t>(loc.indexInDomain)] = true;
    }
    for (std::size_t d = 0; d < m_domainItems.size(); ++d)
        m_domainItems[d]->setHighlightedGpus(std::move(perDomain[d]));
}

} // namespace parallax::ui
