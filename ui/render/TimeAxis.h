// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <vector>

namespace parallax::render {

// Time <-> pixel mapping of a timeline (Tracy, hotspot): a full range [fullStart, fullEnd] of
// the data, a visible view inside it, and the pixel span [pixelLeft, pixelLeft + pixelWidth]
// the view is drawn into. Zoom keeps the time under an anchor pixel fixed and clamps the span to
// [minimum span, full span]; pan keeps the view inside the full range. No window needed.
class TimeAxis {
public:
    enum class Units { Seconds, Unitless }; // Unitless: simulator unit times (forward = 1)

    struct Tick {
        double time = 0;
        double x = 0;
        QString label;
    };

    TimeAxis() = default;
    TimeAxis(double fullStart, double fullEnd, double pixelLeft, double pixelWidth);

    void setFullRange(double start, double end); // resets nothing; re-clamps the view
    void setPixelRange(double left, double width);
    void setView(double start, double end); // clamped: span in [minSpan, fullSpan], inside the full range
    void setMinSpan(double seconds)
    {
        m_minSpan = seconds > 0 ? seconds : m_minSpan;
        setView(m_viewStart, m_viewEnd);
    }
    void setUnits(Units u) { m_units = u; }
    void zoomToFit() { setView(m_fullStart, m_fullEnd); }

    double fullStart() const { return m_fullStart; }
    double fullEnd() const { return m_fullEnd; }
    double viewStart() const { return m_viewStart; }
    double viewEnd() const { return m_viewEnd; }
    double span() const { return m_viewEnd - m_viewStart; }
    double minSpan() const { return effectiveMinSpan(); }
    double pixelLeft() const { return m_pixelLeft; }
    double pixelWidth() const { return m_pixelWidth; }
    Units units() const { return m_units; }
    bool isFullyZoomedOut() const;

    double pixelsPerSecond() const { return span() > 0 ? m_pixelWidth / span() : 0; }
    double toPixel(double t) const { return m_pixelLeft + (t - m_viewStart) * pixelsPerSecond(); }
    double toTime(double x) const { return m_viewStart + (x - m_pixelLeft) / pixelsPerSecond(); }

    // factor > 1 zooms in; the time under `anchorX` stays under it (unless clamping moves the view).
    void zoomAt(double anchorX, double factor);
    void panPixels(double dx); // dx > 0 moves the content right (earlier times come into view)
    void panTime(double dt);

    // Tick step: the smallest 1, 2, 5 x 10^k with at least `minSpacingPx` between ticks.
    double tickStep(double minSpacingPx = 80) const;
    // Ticks in view. Deep in a long timeline (time / step >= 10^4) the first tick is absolute and
    // the others relative to it ("30.00010 s", "+20 µs", ...).
    std::vector<Tick> ticks(double minSpacingPx = 80) const;
    // A tick label: the unit (s, ms, µs, ns) chosen from the step (a step of 0.1 unit or more takes
    // that unit), with the digits the step needs and no more.
    QString formatTick(double t, double step) const;

    static double niceStep(double rawStep); // smallest 1, 2, 5 x 10^k >= rawStep
    // View `fraction` (0..1) of the way from `from` to `to`, for an animated zoom.
    static TimeAxis interpolate(const TimeAxis& from, const TimeAxis& to, double fraction);

private:
    double effectiveMinSpan() const;

    double m_fullStart = 0;
    double m_fullEnd = 1;
    double m_viewStart = 0;
    double m_viewEnd = 1;
    double m_pixelLeft = 0;
    double m_pixelWidth = 1;
    double m_minSpan = 0; // 0: a default of 1e-6 of the full span, at least 1 ns
    Units m_units = Units::Seconds;
};

} // namespace parallax::render
