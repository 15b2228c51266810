// SPDX-License-Identifier: Apache-2.0
#include "ui/GanttView.h"

#include "ui/ToolTipEvent.h"
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QRegion>
#include <QTimer>
#include <QToolTip>
#include <QVariantAnimation>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace parallax::ui {

namespace {
constexpr int kZoomAnimationMs = 180;
constexpr int kFrameMs = 16;
constexpr double kWheelNotch = 120; // angleDelta units of one wheel step
constexpr double kZoomPerNotch = 1.4142135623730951; // two notches double the magnification
} // namespace

GanttView::GanttView(QWidget* parent)
    : QWidget(parent)
    , m_zoomAnimation(new QVariantAnimation(this))
    , m_playTimer(new QTimer(this))
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    m_options.hideFuture = true;
    m_zoomAnimation->setDuration(kZoomAnimationMs);
    m_zoomAnimation->setEasingCurve(QEasingCurve::Linear); // TimeAxis::interpolate eases
    m_zoomAnimation->setStartValue(0.0);
    m_zoomAnimation->setEndValue(1.0);
    connect(m_zoomAnimation, &QVariantAnimation::valueChanged, this, [this](const QVariant& value) {
        m_axis = render::TimeAxis::interpolate(m_animationStart, m_target, value.toDouble());
        update();
    });
    m_playTimer->setInterval(kFrameMs);
    m_playTimer->setTimerType(Qt::PreciseTimer);
    connect(m_playTimer, &QTimer::timeout, this, &GanttView::tick);
}

GanttView::~GanttView() = default;

std::shared_ptr<const render::GanttModel> GanttView::modelPtr() const
{
    return m_renderer ? m_renderer->modelPtr() : nullptr;
}

void GanttView::setModel(std::shared_ptr<const render::GanttModel> model, const QString& emptyText)
{
    m_emptyText = emptyText;
    m_options.hovered = {};
    if (!model) {
        pause();
        m_renderer.reset();
        m_layout = {};
        update();
        return;
    }
    const bool keepView = m_renderer && !m_target.isFullyZoomedOut();
    const double start = m_target.viewStart(), end = m_target.viewEnd();
    m_zoomAnimation->stop();
    m_renderer = std::make_unique<render::GanttRenderer>(std::move(model));
    m_axis = m_target = render::TimeAxis();
    relayout();
    m_target.zoomToFit();
    if (keepView)
        m_target.setView(start, end);
    m_axis = m_target;
    if (m_options.cursorTime > m_renderer->model().endTime())
        m_options.cursorTime = m_renderer->model().endTime();
    update();
    notifyPlayback();
}

void GanttView::relayout()
{
    if (!m_renderer)
        return;
    m_layout = m_renderer->layout(QRectF(rect()), m_options);
    const double endTime = m_renderer->model().endTime();
    for (render::TimeAxis* a : { &m_axis, &m_target, &m_animationStart }) {
        a->setUnits(m_renderer->model().timeUnits());
        a->setFullRange(0, endTime);
        a->setPixelRange(m_layout.plot.left(), std::max(1.0, m_layout.plot.width()));
    }
}

int GanttView::naturalHeight() const
{
    if (!m_renderer)
        return 0;
    // Rows stop growing at the renderer's largest pitch: lay out in a tall area and see where it ends.
    const render::GanttLayout l = m_renderer->layout(QRectF(0, 0, std::max(300, width()), 100000), m_options);
    return static_cast<int>(std::ceil(std::max(l.axis.bottom(), l.legend.bottom()))) + 6;
}

void GanttView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    relayout();
}

void GanttView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    if (!m_renderer) {
        p.fillRect(rect(), palette().color(QPalette::Base));
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(20, 20, -20, -20), Qt::AlignCenter | Qt::TextWordWrap, m_emptyText);
        return;
    }
    // The renderer keeps the rows right of the cursor empty while playing (future ops hidden).
    m_renderer->paint(p, m_layout, m_axis, m_options);
}

// --- zoom and pan ---------------------------------------------------------------------------------

void GanttView::animateTo(const render::TimeAxis& target, bool animated)
{
    m_target = target;
    m_zoomAnimation->stop();
    if (!animated || !isVisible()) {
        m_axis = m_target;
        update();
        return;
    }
    m_animationStart = m_axis;
    m_zoomAnimation->start();
}

bool GanttView::isAnimatingZoom() const
{
    return m_zoomAnimation->state() == QAbstractAnimation::Running;
}

void GanttView::zoomAt(double x, double factor, bool animated)
{
    if (!m_renderer || !(factor > 0))
        return;
    render::TimeAxis target = m_target;
    target.zoomAt(std::clamp(x, m_layout.plot.left(), m_layout.plot.right()), factor);
    animateTo(target, animated);
}

void GanttView::zoomToFit(bool animated)
{
    render::TimeAxis target = m_target;
    target.zoomToFit();
    animateTo(target, animated);
}

void GanttView::setView(double start, double end, bool animated)
{
    render::TimeAxis target = m_target;
    target.setView(start, end);
    animateTo(target, animated);
}

void GanttView::panPixels(double dx)
{
    m_zoomAnimation->stop();
    m_target.panPixels(dx);
    m_axis = m_target;
    update();
}

void GanttView::wheelEvent(QWheelEvent* event)
{
    if (!m_renderer)
        return;
    const QPoint delta = event->angleDelta();
    const bool horizontal = std::abs(delta.x()) > std::abs(delta.y());
    if (horizontal || (event->modifiers() & Qt::ShiftModifier)) {
        panPixels((horizontal ? delta.x() : delta.y()) / kWheelNotch * 60);
    } else if (delta.y() != 0) {
        zoomAt(event->position().x(), std::pow(kZoomPerNotch, delta.y() / kWheelNotch));
    }
    event->accept();
}

void GanttView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton && m_renderer) {
        m_dragging = true;
        m_dragLast = event->position();
        setCursor(Qt::ClosedHandCursor);
    }
}

void GanttView::mouseMoveEvent(QMouseEvent* event)
{
    if (!m_renderer)
        return;
    if (m_dragging) {
        panPixels(event->position().x() - m_dragLast.x());
        m_dragLast = event->position();
        return;
    }
    render::OpRef ref = m_renderer->opAt(m_layout, m_axis, event->position());
    // An op the cursor has not reached yet is not on screen: nothing to hover.
    if (ref.valid() && m_options.cursorTime >= 0 && m_options.hideFuture
        && m_renderer->model().op(ref).start >= m_options.cursorTime)
        ref = {};
    setHovered(ref);
}

void GanttView::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        m_dragging = false;
        unsetCursor();
    }
}

void GanttView::mouseDoubleClickEvent(QMouseEvent* event)
{
    if (event->modifiers() & Qt::ShiftModifier)
        zoomAt(event->position().x(), 0.5);
    else if (m_target.isFullyZoomedOut())
        zoomAt(event->position().x(), 4);
    else
        zoomToFit();
}

void GanttView::leaveEvent(QEvent*)
{
    setHovered({});
}

void GanttView::setHovered(render::OpRef ref)
{
    if (ref == m_options.hovered)
        return;
    m_options.hovered = ref;
    update();
}

QString GanttView::toolTipAt(QPointF point) const
{
    if (!m_renderer)
        return {};
    const render::OpRef ref = m_renderer->opAt(m_layout, m_axis, point);
    if (ref.valid() && m_options.cursorTime >= 0 && m_options.hideFuture
        && m_renderer->model().op(ref).start >= m_options.cursorTime)
        return {};
    return m_renderer->toolTip(m_layout, m_axis, point, m_options);
}

bool GanttView::event(QEvent* event)
{
    if (answerToolTip(this, event, [this](QPointF p) { return toolTipAt(p); }))
        return true;
    return QWidget::event(event);
}

void GanttView::keyPressEvent(QKeyEvent* event)
{
    const double center = m_layout.plot.center().x();
    switch (event->key()) {
    case Qt::Key_Space:
        isPlaying() ? pause() : play();
        break;
    case Qt::Key_Right:
        stepForward();
        break;
    case Qt::Key_Left:
        stepBackward();
        break;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomAt(center, 2);
        break;
    case Qt::Key_Minus:
        zoomAt(center, 0.5);
        break;
    case Qt::Key_Home:
    case Qt::Key_0:
        zoomToFit();
        break;
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    event->accept();
}

// --- playback -------------------------------------------------------------------------------------

bool GanttView::isPlaying() const
{
    return m_playTimer->isActive();
}

void GanttView::play()
{
    if (!m_renderer)
        return;
    if (m_options.cursorTime < 0 || m_options.cursorTime >= m_renderer->model().endTime())
        setCursorTime(0);
    m_lastTick.start();
    m_playTimer->start();
    notifyPlayback();
}

void GanttView::pause()
{
    if (!m_playTimer->isActive())
        return;
    m_playTimer->stop();
    notifyPlayback();
}

void GanttView::setSpeed(double speed)
{
    m_speed = std::clamp(speed, 0.25, 8.0);
}

void GanttView::setCursorTime(double t)
{
    if (t >= 0 && m_renderer)
        t = std::min(t, m_renderer->model().endTime());
    if (t < 0)
        t = -1;
    if (t == m_options.cursorTime)
        return;
    m_options.cursorTime = t;
    update();
    notifyPlayback();
}

void GanttView::tick()
{
    advance(static_cast<double>(m_lastTick.restart()) / 1000.0);
}

void GanttView::advance(double wallSeconds)
{
    if (!m_renderer)
        return;
    const double end = m_renderer->model().endTime();
    const double t = std::max(0.0, m_options.cursorTime) + wallSeconds * m_speed * end / kSweepSeconds;
    setCursorTime(std::min(t, end));
    followCursor();
    if (t >= end)
        pause();
}

void GanttView::followCursor()
{
    const double t = m_options.cursorTime;
    if (t < 0 || m_target.isFullyZoomedOut())
        return;
    if (t >= m_target.viewStart() && t <= m_target.viewStart() + 0.9 * m_target.span())
        return;
    // Page along: the cursor comes back in at a tenth of the width.
    const double span = m_target.span();
    setView(t - 0.1 * span, t + 0.9 * span, false);
}

double GanttView::nextEvent(double t, bool forward) const
{
    const render::GanttModel& m = m_renderer->model();
    const double eps = 1e-12 * m.endTime();
    double best = forward ? m.endTime() : 0;
    for (int track = 0; track < m.trackCount(); ++track) {
        const auto& ops = m.ops(track);
        for (int rank = 0; rank < m.rankCount(track); ++rank) {
            const int begin = m.rankBegin(track, rank), end = m.rankBegin(track, rank + 1);
            // Ops of a rank do not overlap: those before i ended by t, op i runs at t or later.
            const int i = m.firstOpEndingAfter(track, rank, t);
            for (int j : { i - 1, i, i + 1 }) {
                if (j < begin || j >= end)
                    continue;
                const auto& op = ops[static_cast<std::size_t>(j)];
                for (double s : { op.start, op.end }) {
                    if (forward && s > t + eps)
                        best = std::min(best, s);
                    if (!forward && s < t - eps)
                        best = std::max(best, s);
                }
            }
        }
    }
    return best;
}

void GanttView::stepForward()
{
    if (!m_renderer)
        return;
    pause();
    setCursorTime(nextEvent(m_options.cursorTime < 0 ? -1 : m_options.cursorTime, true));
    followCursor();
}

void GanttView::stepBackward()
{
    if (!m_renderer)
        return;
    pause();
    if (m_options.cursorTime <= 0)
        return;
    setCursorTime(nextEvent(m_options.cursorTime, false));
    followCursor();
}

void GanttView::notifyPlayback()
{
    if (m_playbackChanged)
        m_playbackChanged();
}

} // namespace parallax::ui
