#include "ui/RankMapView.h"

#include "ui/Theme.h"

#include <QBuffer>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QSaveFile>
#include <QScrollArea>
#include <QScrollBar>
#include <QSvgGenerator>
#include <QToolTip>
#include <QVBoxLayout>

namespace parallax::ui {

namespace {
constexpr core::Dim kDims[]
    = { core::Dim::Tp, core::Dim::Cp, core::Dim::Dp, core::Dim::Pp, core::Dim::Ep, core::Dim::Edp };
}

// The drawing surface inside the scroll area: fits the map to the visible area, scrolls when even
// the smallest cells do not fit.
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
        const QSize available = m_scroll->viewport()->size();
        m_view->m_renderer.layout(QSizeF(available));
        const QSize content = m_view->m_renderer.clusterLayout().contentSize().toSize();
        setMinimumSize(
            content.width() > available.width() || content.height() > available.height() ? content : QSize(0, 0));
        update();
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.fillRect(rect(), m_view->m_style.background);
        m_view->m_renderer.paint(p, m_view->m_style);
    }
    void resizeEvent(QResizeEvent*) override { relayout(); }
    void mouseMoveEvent(QMouseEvent* e) override
    {
        const int gpu = m_view->m_renderer.clusterLayout().gpuAt(e->position());
        if (gpu != m_view->m_style.hoveredGpu) {
            m_view->m_style.hoveredGpu = gpu;
            update();
        }
        if (gpu >= 0)
            QToolTip::showText(
                e->globalPosition().toPoint(), m_view->m_renderer.toolTip(gpu, m_view->m_style.dim), this);
        else
            QToolTip::hideText();
    }
    void leaveEvent(QEvent*) override
    {
        m_view->m_style.hoveredGpu = -1;
        update();
    }
    void mousePressEvent(QMouseEvent* e) override
    {
        if (e->button() == Qt::LeftButton)
            m_view->clickGpu(m_view->m_renderer.clusterLayout().gpuAt(e->position()));
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
        m_dimCombo->addItem(RankMapRenderer::dimName(d), static_cast<int>(d));
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
    m_summary = new QLabel(this);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bar->addWidget(m_summary, 1);
    layout->addLayout(bar);

    m_banner = new QLabel(this);
    m_banner->setObjectName(QStringLiteral("rankMapProblems"));
    m_banner->setWordWrap(true);
    m_banner->setVisible(false);
    layout->addWidget(m_banner);

    m_scroll = new QScrollArea(this);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_canvas = new RankMapCanvas(this, m_scroll);
    m_canvas->setObjectName(QStringLiteral("rankMapCanvas"));
    m_scroll->setWidget(m_canvas);
    layout->addWidget(m_scroll, 1);

    m_legend = new QLabel(this);
    m_legend->setWordWrap(true);
    QFont small = m_legend->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    m_legend->setFont(small);
    layout->addWidget(m_legend);

    connect(m_dimCombo, &QComboBox::currentIndexChanged, this,
        [this](int index) { setDimension(static_cast<core::Dim>(m_dimCombo->itemData(index).toInt())); });
    connect(m_colorCombo, &QComboBox::currentIndexChanged, this, [this](int index) {
        setColorBy(index == 0 ? RankMapRenderer::ColorBy::Group : RankMapRenderer::ColorBy::Position);
    });
    updateStyleColors();
    refresh();
}

RankMapView::~RankMapView() = default;

QWidget* RankMapView::canvas() const
{
    return m_canvas;
}

void RankMapView::setEvaluation(EvaluationPtr evaluation)
{
    const int previousGroup = m_style.selectedGroup;
    m_renderer.setEvaluation(std::move(evaluation));
    m_canvas->relayout();
    // Keep a selection while the group still exists (edits of the model keep the rank map).
    const auto& e = m_renderer.evaluation();
    if (previousGroup >= 0
        && (!m_renderer.hasRankMap()
            || previousGroup >= static_cast<int>(e->report.rankMap.groups(m_style.dim).size()))) {
        m_style.selectedGroup = -1;
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
    if (m_style.dim == dim)
        return;
    m_style.dim = dim;
    m_style.colorBy = RankMapRenderer::defaultColorBy(dim);
    m_colorCombo->setCurrentIndex(m_style.colorBy == RankMapRenderer::ColorBy::Group ? 0 : 1);
    if (m_style.selectedGroup >= 0) {
        m_style.selectedGroup = -1;
        selectionChanged();
    }
    refresh();
}

void RankMapView::setColorBy(RankMapRenderer::ColorBy colorBy)
{
    m_style.colorBy = colorBy;
    m_colorCombo->setCurrentIndex(colorBy == RankMapRenderer::ColorBy::Group ? 0 : 1);
    refresh();
}

void RankMapView::clickGpu(int gpu)
{
    const int group = m_renderer.groupOfGpu(m_style.dim, gpu);
    m_style.selectedGroup = (group < 0 || group == m_style.selectedGroup) ? -1 : group;
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
        m_highlight(m_renderer.groupMembers(m_style.dim, m_style.selectedGroup));
}

QStringList RankMapView::problemLines() const
{
    QStringList lines = m_renderer.problems(m_style.dim);
    const auto& e = m_renderer.evaluation();
    if (e && !m_renderer.hasRankMap() && !e->report.errors.empty())
        lines.prepend(tr("No rank map until the configuration is valid: %1")
                          .arg(QString::fromStdString(e->report.errors.front().text)));
    return lines;
}

void RankMapView::refresh()
{
    const auto& e = m_renderer.evaluation();
    if (e && m_renderer.hasRankMap()) {
        const auto& p = e->scenario.parallel;
        m_summary->setText(tr("%1 ranks on %2 GPUs · tp %3 × cp %4 × pp %5 × dp %6%7")
                               .arg(e->report.rankMap.worldSize())
                               .arg(m_renderer.clusterLayout().gpuCount())
                               .arg(p.tp)
                               .arg(p.cp)
                               .arg(p.pp)
                               .arg(p.dp)
                               .arg(e->scenario.model.isMoe() ? tr(" · ep %1").arg(p.ep) : QString()));
    } else {
        m_summary->setText(e ? tr("%1 GPUs").arg(m_renderer.clusterLayout().gpuCount()) : QString());
    }
    const QStringList lines = problemLines();
    const QStringList info = m_renderer.information(m_style.dim);
    m_banner->setVisible(!lines.isEmpty() || !info.isEmpty());
    QString html;
    for (const QString& line : lines)
        html += QStringLiteral("<div style='color:%1'>⚠ %2</div>")
                    .arg(theme::problemColor().name(), line.toHtmlEscaped());
    for (const QString& line : info)
        html += QStringLiteral("<div>ℹ %1</div>").arg(line.toHtmlEscaped());
    m_banner->setText(html);
    m_legend->setText(m_renderer.legend(m_style));
    m_canvas->update();
}

void RankMapView::updateStyleColors()
{
    const QPalette pal = palette();
    m_style.background = pal.color(QPalette::Base);
    m_style.text = pal.color(QPalette::Text);
    const bool dark = m_style.background.lightness() < 128;
    m_style.domainFill = dark ? m_style.background.lighter(140) : QColor(0xee, 0xee, 0xee);
    m_style.domainBorder = dark ? QColor(0x70, 0x70, 0x70) : QColor(0xb0, 0xb0, 0xb0);
}

void RankMapView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange) {
        updateStyleColors();
        if (m_canvas)
            m_canvas->update();
    }
    QWidget::changeEvent(event);
}

bool RankMapView::exportTo(const QString& path, QString* error) const
{
    const auto fail = [error](const QString& why) {
        if (error)
            *error = why;
        return false;
    };
    const EvaluationPtr& e = m_renderer.evaluation();
    if (!e)
        return fail(tr("nothing to export yet"));
    const bool svg = path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive);
    if (!svg && !path.endsWith(QLatin1String(".png"), Qt::CaseInsensitive))
        return fail(tr("unknown format: use .svg or .png"));

    // Same renderer as the screen, in light colors, with a title that makes the picture stand alone.
    RankMapRenderer renderer = m_renderer;
    RankMapRenderer::Style style = m_style;
    style.hoveredGpu = -1;
    style.background = Qt::white;
    style.text = QColor(0x1a, 0x1a, 0x1a);
    style.domainFill = QColor(0xee, 0xee, 0xee);
    style.domainBorder = QColor(0xb0, 0xb0, 0xb0);
    const double margin = 20;
    const double titleHeight = 64;
    const double legendHeight = 36;
    renderer.layout(QSizeF(1600 - 2 * margin, 1000 - titleHeight - legendHeight));
    const QSizeF content = renderer.clusterLayout().contentSize();
    const QSize size(static_cast<int>(content.width() + 2 * margin),
        static_cast<int>(content.height() + titleHeight + legendHeight));
    const QStringList problems = problemLines();
    const QString title = tr("%1 · rank map, %2 groups")
                              .arg(QString::fromStdString(e->scenario.name), RankMapRenderer::dimName(style.dim));
    const auto& p = e->scenario.parallel;
    const QString subtitle = tr("%1 GPUs · tp %2 · cp %3 · pp %4 · dp %5 · ep %6 · %7")
                                 .arg(renderer.clusterLayout().gpuCount())
                                 .arg(p.tp)
                                 .arg(p.cp)
                                 .arg(p.pp)
                                 .arg(p.dp)
                                 .arg(p.ep)
                                 .arg(QString::fromStdString(e->scenario.model.name));
    const auto paintAll = [&](QPainter& painter) {
        painter.fillRect(QRectF(QPointF(0, 0), QSizeF(size)), style.background);
        QFont f = painter.font();
        f.setPixelSize(20);
        f.setBold(true);
        painter.setFont(f);
        painter.setPen(style.text);
        painter.drawText(QRectF(margin, 8, size.width() - 2 * margin, 26), Qt::AlignLeft | Qt::AlignVCenter, title);
        f.setPixelSize(13);
        f.setBold(false);
        painter.setFont(f);
        painter.drawText(QRectF(margin, 34, size.width() - 2 * margin, 20), Qt::AlignLeft | Qt::AlignVCenter,
            problems.isEmpty() ? subtitle : subtitle + QStringLiteral("   ⚠ ") + problems.front());
        painter.save();
        painter.translate(margin, titleHeight);
        renderer.paint(painter, style);
        painter.restore();
        f.setPixelSize(12);
        painter.setFont(f);
        painter.drawText(QRectF(margin, size.height() - legendHeight + 6, size.width() - 2 * margin, legendHeight - 10),
            Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, renderer.legend(style));
    };

    QByteArray bytes;
    if (svg) {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator generator;
        generator.setOutputDevice(&buffer);
        generator.setSize(size);
        generator.setViewBox(QRect(QPoint(0, 0), size));
        generator.setTitle(title);
        generator.setDescription(subtitle);
        QPainter painter(&generator);
        paintAll(painter);
        painter.end();
    } else {
        QImage image(size * 2, QImage::Format_ARGB32_Premultiplied);
        image.setDevicePixelRatio(2);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::TextAntialiasing);
        paintAll(painter);
        painter.end();
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        if (!image.save(&buffer, "PNG"))
            return fail(tr("PNG encoding failed"));
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
        return fail(file.errorString());
    return true;
}

} // namespace parallax::ui
