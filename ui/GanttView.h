// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/render/GanttRenderer.h"

#include <QElapsedTimer>
#include <QWidget>
#include <functional>
#include <memory>

class QTimer;
class QVariantAnimation;

namespace parallax::ui {

// The schedule's Gantt chart on screen: painted by render::GanttRenderer (the same code as the
// exports), zoomed with the wheel around the time under the mouse (animated between ranges), panned
// by dragging or Shift+wheel, with the op under the mouse outlined and described in a tooltip.
// Playback sweeps a time cursor over the timeline: ops appear as they start and each rank's
// in-flight activations rise and fall in the column beside its row.
class GanttView : public QWidget {
public:
    explicit GanttView(QWidget* parent = nullptr);
    ~GanttView() override;

    // Replaces the chart. A new model of the same scenario keeps the zoom (clamped to its range);
    // null shows `emptyText`.
    void setModel(std::shared_ptr<const render::GanttModel> model, const QString& emptyText = {});
    const render::GanttModel* model() const { return m_renderer ? &m_renderer->model() : nullptr; }
    std::shared_ptr<const render::GanttModel> modelPtr() const;

    // Zoom and pan (also the test entry points).
    void zoomAt(double x, double factor, bool animated = true);
    void zoomToFit(bool animated = true);
    void setView(double start, double end, bool animated = true);
    void panPixels(double dx);
    const render::TimeAxis& axis() const { return m_axis; } // what is painted now
    const render::TimeAxis& targetAxis() const { return m_target; } // where an animated zoom ends
    bool isAnimatingZoom() const;
    const render::GanttLayout& chartLayout() const { return m_layout; }
    const render::GanttRenderer* renderer() const { return m_renderer.get(); }

    render::OpRef hoveredOp() const { return m_options.hovered; }
    QString toolTipAt(QPointF point) const;

    // Playback: the cursor sweeps the whole timeline in kSweepSeconds / speed of wall time.
    static constexpr double kSweepSeconds = 12;
    void play();
    void pause();
    bool isPlaying() const;
    void stepForward(); // to the next op start or end after the cursor (pauses)
    void stepBackward(); // to the previous one before the cursor (pauses)
    void setSpeed(double speed); // 0.25 .. 8
    double speed() const { return m_speed; }
    void setCursorTime(double t); // < 0: no cursor (every op drawn)
    double cursorTime() const { return m_options.cursorTime; }
    void advance(double wallSeconds); // moves the cursor as playback would (tests)
    // Told whenever the cursor moves or playback starts or stops.
    void setPlaybackCallback(std::function<void()> callback) { m_playbackChanged = std::move(callback); }

    int naturalHeight() const; // the height beyond which rows stop growing (0 without a model)
    QSize sizeHint() const override { return { 900, 420 }; }
    QSize minimumSizeHint() const override { return { 300, 160 }; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;

private:
    void relayout();
    void animateTo(const render::TimeAxis& target, bool animated);
    void setHovered(render::OpRef ref);
    void followCursor();
    void tick();
    void notifyPlayback();
    double nextEvent(double t, bool forward) const; // the nearest op start or end after (before) t

    std::unique_ptr<render::GanttRenderer> m_renderer;
    render::GanttLayout m_layout;
    render::GanttOptions m_options;
    render::TimeAxis m_axis;
    render::TimeAxis m_target;
    render::TimeAxis m_animationStart;
    QVariantAnimation* m_zoomAnimation;
    QTimer* m_playTimer;
    QElapsedTimer m_lastTick;
    double m_speed = 1;
    QString m_emptyText;
    bool m_dragging = false;
    QPointF m_dragLast;
    std::function<void()> m_playbackChanged;
};

} // namespace parallax::ui
