// SPDX-License-Identifier: Apache-2.0
#include "ui/RankMapView.h"

#include "ui/ElidedLabel.h"
#include "ui/GpuDetailPanel.h"
#include "ui/RankMapSearch.h"
#include "ui/Theme.h"
#include "ui/ToolTipEvent.h"
#include "ui/render/Exporter.h"
#include "ui/render/RenderStyle.h"
#include "ui/render/ReportPictures.h"
#include "ui/render/TitleBlock.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace parallax::ui {

namespace {
constexpr core::Dim kDims[]
    = { core::Dim::Tp, core::Dim::Cp, core::Dim::Dp, core::Dim::Pp, core::Dim::Ep, core::Dim::Edp };
constexpr double kMinCell = 8; // below this the map scrolls rather than shrinking further
constexpr double kMargin = 8;
} // namespace

// The drawing surface inside the scroll area: fits the map to the visible area, scrolls when even
// small cells do not fit. The renderer paints; this adds only the selection veil on top.
class RankMapCanvas : public QWidget {
public:
    RankMapCanvas(RankMapView* view, QScrollArea* scroll)
        : QWidget(scroll)
        , m_view(view)
        , m_scroll(scroll)
    {
        setMouseTracking(true);
        setAttribute(Qt::WA_OpaquePaintEvent);
    }

    void relayout()
    {
        auto& v = *m_view;
        if (!v.m_renderer) {
            v.m_layout = {};
            setMinimumSize(0, 0);
            update();
            return;
        }
        // The fitted map (scrolling down when even small cells do not fit the view), then, zoomed,
        // the same map on a canvas `zoom` times larger in both directions: cells grow with the zoom
        // (up to the renderer's largest) and the scroll area pans.
        const QSize available = m_scroll->viewport()->size();
        QRectF area(kMargin, kMargin, std::max(100.0, available.width() - 2 * kMargin),
            std::max(100.0, available.height() - 2 * kMargin));
        v.m_layout = v.m_renderer->layout(area, v.m_options);
        const bool scrolls = v.m_layout.cellSize < kMinCell;
        if (scrolls)
            area.setHeight(v.m_renderer->preferredHeight(area.width(), v.m_options, 20000));
        const double z = v.m_zoom;
        if (scrolls || z > 1) {
            area.setSize(QSizeF(area.width() * z, area.height() * z));
            v.m_layout = v.m_renderer->layout(area, v.m_options);
        }
        if (scrolls || z > 1)
            setMinimumSize(z > 1 ? static_cast<int>(area.width() + 2 * kMargin) : 0,
                static_cast<int>(area.height() + 2 * kMargin));
        else
            setMinimumSize(0, 0);
        update();
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.fillRect(rect(), render::style::background());
        const auto& v = *m_view;
        if (!v.m_renderer)
            return;
        v.m_renderer->paint(p, v.m_layout, v.m_options);
        paintSelection(p);
        paintFound(p);
    }

    // What the search box found: a thick outline, visible at any zoom (at least 4 px).
    void paintFound(QPainter& p) const
    {
        const auto& v = *m_view;
        if (v.m_found.empty())
            return;
        QRectF box;
        for (int gpu : v.m_found) {
            if (gpu < static_cast<int>(v.m_layout.cells.size()))
                box = box.isNull() ? v.m_layout.cells[static_cast<std::size_t>(gpu)]
                                   : box.united(v.m_layout.cells[static_cast<std::size_t>(gpu)]);
        }
        if (box.isNull())
            return;
        if (box.width() < 4)
            box.adjust(-(4 - box.width()) / 2, 0, (4 - box.width()) / 2, 0);
        if (box.height() < 4)
            box.adjust(0, -(4 - box.height()) / 2, 0, (4 - box.height()) / 2);
        p.setPen(QPen(render::style::cursor(), 3));
        p.setBrush(Qt::NoBrush);
        p.drawRect(box.adjusted(-2, -2, 2, 2));
    }

    void wheelEvent(QWheelEvent* e) override
    {
        if (!(e->modifiers() & Qt::ControlModifier)) {
            e->ignore(); // the scroll area pans
            return;
        }
        const double steps = e->angleDelta().y() / 120.0;
        m_view->setZoom(
            m_view->m_zoom * std::pow(1.25, steps), m_scroll->viewport()->mapFromGlobal(e->globalPosition()));
        e->accept();
    }

    // The selected group stays as painted; every other GPU is veiled, so the group stands out.
    void paintSelection(QPainter& p) const
    {
        const auto& v = *m_view;
        if (v.m_selectedGroup < 0)
            return;
        const auto members = v.m_info.groupMembers(v.m_options.dim, v.m_selectedGroup);
        const std::unordered_set<int> selected(members.begin(), members.end());
        const QColor veil = render::style::backing(170);
        for (int gpu = 0; gpu < static_cast<int>(v.m_layout.cells.size()); ++gpu) {
            if (!selected.count(gpu))
                p.fillRect(v.m_layout.cells[static_cast<std::size_t>(gpu)], veil);
        }
        p.setPen(QPen(render::style::highlight(), 2));
        p.setBrush(Qt::NoBrush);
        for (int gpu : members) {
            if (gpu < static_cast<int>(v.m_layout.cells.size()))
                p.drawRect(v.m_layout.cells[static_cast<std::size_t>(gpu)].adjusted(1, 1, -1, -1));
        }
    }

    void resizeEvent(QResizeEvent*) override { relayout(); }
    void mouseMoveEvent(QMouseEvent* e) override
    {
        const int gpu = m_view->m_layout.gpuAt(e->position());
        if (gpu != m_view->m_options.hoveredGpu) {
            m_view->m_options.hoveredGpu = gpu;
            update();
        }
    }
    bool event(QEvent* e) override
    {
        const auto textAt = [this](QPointF p) {
            const int gpu = m_view->m_layout.gpuAt(p);
            return gpu >= 0 ? m_view->m_info.toolTip(gpu, m_view->m_options.dim) : QString();
        };
        return answerToolTip(this, e, textAt) || QWidget::event(e);
    }
    void leaveEvent(QEvent*) override
    {
        m_view->m_options.hoveredGpu = -1;
        update();
    }
    void mousePressEvent(QMouseEvent* e) override
    {
        if (e->button() == Qt::LeftButton) {
            const int gpu = m_view->m_layout.gpuAt(e->position());
            m_view->clickGpu(gpu);
            if (gpu >= 0 && m_view->m_gpuClicked)
                m_view->m_gpuClicked(gpu);
        }
    }

private:
    RankMapView* m_view;
    QScrollArea* m_scroll;
};

RankMapView::RankMapView(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(4);

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Dimension:"), this));
    m_dimCombo = new QComboBox(this);
    m_dimCombo->setObjectName(QStringLiteral("rankMapDimension"));
    const char* tips[] = { "tensor parallel", "context parallel", "data parallel", "pipeline parallel",
        "expert parallel", "expert data parallel" };
    int i = 0;
    for (core::Dim d : kDims) {
        m_dimCombo->addItem(render::RankMapRenderer::dimName(d), static_cast<int>(d));
        m_dimCombo->setItemData(i, QString::fromLatin1(tips[i]), Qt::ToolTipRole);
        ++i;
    }
    bar->addWidget(m_dimCombo);
    bar->addSpacing(12);
    bar->addWidget(new QLabel(tr("Color by:"), this));
    m_colorCombo = new QComboBox(this);
    m_colorCombo->addItem(tr("group"));
    m_colorCombo->addItem(tr("position in group"));
    bar->addWidget(m_colorCombo);
    bar->addSpacing(12);
    auto addButton = [&](const QString& text, const QString& tip, auto slot) {
        auto* b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(tip);
        connect(b, &QToolButton::clicked, this, slot);
        bar->addWidget(b);
        return b;
    };
    addButton(QStringLiteral("−"), tr("Zoom out (Ctrl+wheel)"), [this] {
        setZoom(m_zoom / 1.5);
    })->setObjectName(QStringLiteral("rankMapZoomOut"));
    addButton(QStringLiteral("+"), tr("Zoom in (Ctrl+wheel); cells show their ranks as they grow"), [this] {
        setZoom(m_zoom * 1.5);
    })->setObjectName(QStringLiteral("rankMapZoomIn"));
    addButton(tr("Fit"), tr("Fit the whole map in the view"), [this] { setZoom(1); });
    m_search = new QLineEdit(this);
    m_search->setObjectName(QStringLiteral("rankMapSearch"));
    m_search->setPlaceholderText(tr("Find: rank 517, gpu 12, node77"));
    m_search->setClearButtonEnabled(true);
    m_search->setMinimumWidth(150);
    m_search->setMaximumWidth(220);
    bar->addWidget(m_search);
    connect(m_search, &QLineEdit::returnPressed, this, [this] { find(m_search->text()); });
    bar->addSpacing(12);
    m_summary = new ElidedLabel(this); // never widens the window (1366x768): elided, whole text as tooltip
    m_summary->setObjectName(QStringLiteral("rankMapSummary"));
    bar->addWidget(m_summary, 1);
    layout->addLayout(bar);

    m_banner = new QLabel(this);
    m_banner->setObjectName(QStringLiteral("rankMapProblems"));
    m_banner->setWordWrap(true);
    m_banner->setVisible(false);
    layout->addWidget(m_banner);
    m_searchStatus = new QLabel(this);
    m_searchStatus->setObjectName(QStringLiteral("rankMapSearchStatus"));
    m_searchStatus->setWordWrap(true);
    m_searchStatus->setVisible(false);
    layout->addWidget(m_searchStatus);

    m_scroll = new QScrollArea(this);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_canvas = new RankMapCanvas(this, m_scroll);
    m_canvas->setObjectName(QStringLiteral("rankMapCanvas"));
    m_scroll->setWidget(m_canvas);
    m_detail = new GpuDetailPanel(this);
    m_detail->setMinimumWidth(230);
    auto* detailScroll = new QScrollArea(this);
    detailScroll->setWidgetResizable(true);
    detailScroll->setFrameShape(QFrame::NoFrame);
    detailScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    detailScroll->setWidget(m_detail);
    detailScroll->setMinimumWidth(240);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setChildrenCollapsible(true);
    split->addWidget(m_scroll);
    split->addWidget(detailScroll);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setSizes({ 700, 260 });
    layout->addWidget(split, 1);

    connect(m_dimCombo, &QComboBox::currentIndexChanged, this,
        [this](int index) { setDimension(static_cast<core::Dim>(m_dimCombo->itemData(index).toInt())); });
    connect(m_colorCombo, &QComboBox::currentIndexChanged, this,
        [this](int index) { setColorBy(index == 0 ? ColorBy::Group : ColorBy::Position); });
    refresh();
}

RankMapView::~RankMapView() = default;

QWidget* RankMapView::canvas() const
{
    return m_canvas;
}

QRectF RankMapView::cellRect(int gpu) const
{
    return gpu >= 0 && gpu < static_cast<int>(m_layout.cells.size()) ? m_layout.cells[static_cast<std::size_t>(gpu)]
                                                                     : QRectF();
}

void RankMapView::setEvaluation(EvaluationPtr evaluation)
{
    const int previousGroup = m_selectedGroup;
    m_info.setEvaluation(evaluation);
    m_detail->setEvaluation(evaluation);
    m_renderer.reset();
    if (evaluation && evaluation->scenario.topology.gpuCount() > 0) {
        // Without a valid rank map every GPU is drawn idle, in its domain.
        m_renderer = std::make_shared<const render::RankMapRenderer>(
            m_info.hasRankMap() ? evaluation->report.rankMap : core::RankMap {}, evaluation->scenario.topology);
    }
    m_options.showLegend = m_info.hasRankMap();
    m_options.hoveredGpu = -1;
    m_canvas->relayout();
    // Keep a selection while the group still exists (edits of the model keep the rank map).
    if (previousGroup >= 0
        && (!m_info.hasRankMap()
            || previousGroup >= static_cast<int>(evaluation->report.rankMap.groups(m_options.dim).size()))) {
        m_selectedGroup = -1;
        selectionChanged();
    } else if (previousGroup >= 0) {
        selectionChanged();
    }
    refresh();
}

void RankMapView::setDimension(core::Dim dim)
{
    const int index = m_dimCombo->findData(static_cast<int>(dim));
    if (index >= 0 && index != m_dimCombo->currentIndex()) {
        m_dimCombo->setCurrentIndex(index); // re-enters through the signal
        return;
    }
    if (m_options.dim == dim)
        return;
    m_options.dim = dim;
    m_options.colorBy = render::RankMapRenderer::defaultColorBy(dim);
    m_colorCombo->setCurrentIndex(m_options.colorBy == ColorBy::Group ? 0 : 1);
    if (m_selectedGroup >= 0) {
        m_selectedGroup = -1;
        selectionChanged();
    }
    m_canvas->relayout(); // the legend's height depends on the dimension
    refresh();
}

void RankMapView::setColorBy(ColorBy colorBy)
{
    m_options.colorBy = colorBy;
    m_colorCombo->setCurrentIndex(colorBy == ColorBy::Group ? 0 : 1);
    m_canvas->relayout();
    refresh();
}

void RankMapView::setZoom(double zoom, std::optional<QPointF> anchor)
{
    zoom = std::clamp(zoom, 1.0, kMaxZoom);
    if (zoom == m_zoom)
        return;
    QScrollBar* h = m_scroll->horizontalScrollBar();
    QScrollBar* v = m_scroll->verticalScrollBar();
    const QPointF a
        = anchor.value_or(QPointF(m_scroll->viewport()->width() / 2.0, m_scroll->viewport()->height() / 2.0));
    // The fraction of the canvas under the anchor stays under it.
    const QSizeF before = m_canvas->size();
    const double fx = before.width() > 0 ? (h->value() + a.x()) / before.width() : 0.5;
    const double fy = before.height() > 0 ? (v->value() + a.y()) / before.height() : 0.5;
    m_zoom = zoom;
    m_canvas->relayout();
    m_scroll->widget()->resize(m_scroll->widget()->minimumSize().expandedTo(m_scroll->viewport()->size()));
    h->setValue(static_cast<int>(fx * m_canvas->width() - a.x()));
    v->setValue(static_cast<int>(fy * m_canvas->height() - a.y()));
}

bool RankMapView::find(const QString& query)
{
    const EvaluationPtr& e = m_info.evaluation();
    RankMapMatch match;
    if (e)
        match = findInRankMap(query, e->scenario.topology, m_info.hasRankMap() ? e->report.rankMap.worldSize() : 0);
    else
        match.error = tr("no cluster to search");
    m_found = match.gpus;
    m_searchStatus->setVisible(!query.trimmed().isEmpty());
    m_searchStatus->setText(match.found() ? match.description
                                          : QStringLiteral("<span style='color:%1'>%2</span>")
                                                .arg(theme::problemColor().name(), match.error.toHtmlEscaped()));
    if (match.found()) {
        // Big enough to see one GPU: zoom until its cell is at least 16 px, then scroll to it.
        // (The grid re-packs as it grows, so the cell size is not exactly proportional to the zoom.)
        for (int i = 0; i < 6 && m_found.size() == 1 && m_zoom < kMaxZoom; ++i) {
            const double cell = cellRect(m_found.front()).width();
            if (!(cell > 0 && cell < 16))
                break;
            setZoom(m_zoom * std::max(1.1, 16.5 / cell));
        }
        const QRectF r = cellRect(m_found.front());
        m_scroll->ensureVisible(static_cast<int>(r.center().x()), static_cast<int>(r.center().y()),
            static_cast<int>(r.width() * 4 + 40), static_cast<int>(r.height() * 4 + 40));
        m_detail->showGpu(m_found.front());
    }
    m_canvas->update();
    return match.found();
}

void RankMapView::showGpuDetail(int gpu)
{
    m_detail->showGpu(gpu);
}

void RankMapView::clickGpu(int gpu)
{
    if (gpu >= 0)
        m_detail->showGpu(gpu);
    const int group = m_info.groupOfGpu(m_options.dim, gpu);
    m_selectedGroup = (group < 0 || group == m_selectedGroup) ? -1 : group;
    selectionChanged();
    m_canvas->update();
}

void RankMapView::setHighlightCallback(std::function<void(const std::vector<int>&)> callback)
{
    m_highlight = std::move(callback);
}

void RankMapView::selectionChanged()
{
    if (m_highlight)
        m_highlight(m_info.groupMembers(m_options.dim, m_selectedGroup));
}

QStringList RankMapView::problemLines() const
{
    QStringList lines = m_info.problems(m_options.dim);
    const auto& e = m_info.evaluation();
    if (e && !m_info.hasRankMap() && !e->report.errors.empty())
        lines.prepend(tr("No rank map until the configuration is valid: %1")
                          .arg(QString::fromStdString(e->report.errors.front().text)));
    return lines;
}

void RankMapView::refresh()
{
    const auto& e = m_info.evaluation();
    if (e && m_info.hasRankMap()) {
        const auto& p = e->scenario.parallel;
        m_summary->setFullText(tr("%1 ranks on %2 GPUs · tp %3 × cp %4 × pp %5 × dp %6%7")
                                   .arg(e->report.rankMap.worldSize())
                                   .arg(m_info.gpuCount())
                                   .arg(p.tp)
                                   .arg(p.cp)
                                   .arg(p.pp)
                                   .arg(p.dp)
                                   .arg(e->scenario.model.isMoe() ? tr(" · ep %1").arg(p.ep) : QString()));
    } else {
        m_summary->setFullText(e ? tr("%1 GPUs").arg(m_info.gpuCount()) : QString());
    }
    const QStringList lines = problemLines();
    const QStringList info = m_info.information(m_options.dim);
    m_banner->setVisible(!lines.isEmpty() || !info.isEmpty());
    QString html;
    for (const QString& line : lines)
        html += QStringLiteral("<div style='color:%1'>⚠ %2</div>")
                    .arg(theme::problemColor().name(), line.toHtmlEscaped());
    for (const QString& line : info)
        html += QStringLiteral("<div>ℹ %1</div>").arg(line.toHtmlEscaped());
    m_banner->setText(html);
    m_canvas->update();
}

std::optional<render::Picture> RankMapView::picture() const
{
    const EvaluationPtr& e = m_info.evaluation();
    if (!e || !m_renderer || !m_info.hasRankMap())
        return std::nullopt;
    render::RankMapRenderer::Options options = m_options;
    options.hoveredGpu = -1;
    options.showLegend = true;
    const QString chart = tr("rank map: %1 %2")
                              .arg(render::RankMapRenderer::dimName(options.dim),
                                  options.colorBy == ColorBy::Group ? tr("groups") : tr("coordinates"));
    return render::rankMapPicture(m_renderer, render::TitleBlock::forReport(e->scenario, e->report, chart), options);
}

bool RankMapView::exportTo(const QString& path, QString* error) const
{
    const auto pic = picture();
    if (!pic) {
        if (error)
            *error = tr("no rank map to export: the configuration is not valid yet");
        return false;
    }
    return render::exportPicture(*pic, path, render::exportFormatFor(path) == render::ExportFormat::Png ? 2 : 1, error);
}

} // namespace parallax::ui
