// SPDX-License-Identifier: Apache-2.0
#include "ui/render/TimeAxis.h"

#include <algorithm>
#include <cmath>

namespace parallax::render {

TimeAxis::TimeAxis(double fullStart, double fullEnd, double pixelLeft, double pixelWidth)
{
    setPixelRange(pixelLeft, pixelWidth);
    setFullRange(fullStart, fullEnd);
    zoomToFit();
}

void TimeAxis::setFullRange(double start, double end)
{
    if (!(end > start)) // also catches NaN
        end = start + 1;
    m_fullStart = start;
    m_fullEnd = end;
    setView(m_viewStart, m_viewEnd);
}

void TimeAxis::setPixelRange(double left, double width)
{
    m_pixelLeft = left;
    m_pixelWidth = std::max(1.0, width);
}

double TimeAxis::effectiveMinSpan() const
{
    const double full = m_fullEnd - m_fullStart;
    const double wanted = m_minSpan > 0 ? m_minSpan : std::max(full * 1e-6, 1e-9);
    return std::min(wanted, full);
}

bool TimeAxis::isFullyZoomedOut() const
{
    const double full = m_fullEnd - m_fullStart;
    return span() >= full * (1 - 1e-12);
}

void TimeAxis::setView(double start, double end)
{
    if (!(end >= start))
        std::swap(start, end);
    if (!std::isfinite(start) || !std::isfinite(end)) {
        start = m_fullStart;
        end = m_fullEnd;
    }
    const double full = m_fullEnd - m_fullStart;
    double span = std::clamp(end - start, effectiveMinSpan(), full);
    const double center = 0.5 * (start + end);
    start = center - 0.5 * span;
    // Keep the view inside the full range, shifting rather than shrinking it.
    start = std::clamp(start, m_fullStart, m_fullEnd - span);
    m_viewStart = start;
    m_viewEnd = start + span;
    if (m_viewEnd > m_fullEnd) // rounding
        m_viewEnd = m_fullEnd;
}

void TimeAxis::zoomAt(double anchorX, double factor)
{
    if (!(factor > 0) || !std::isfinite(factor))
        return;
    const double full = m_fullEnd - m_fullStart;
    const double anchorT = toTime(anchorX);
    const double newSpan = std::clamp(span() / factor, effectiveMinSpan(), full);
    // The anchor keeps its relative position in the view.
    const double rel = span() > 0 ? (anchorT - m_viewStart) / span() : 0.5;
    double start = anchorT - rel * newSpan;
    start = std::clamp(start, m_fullStart, m_fullEnd - newSpan);
    m_viewStart = start;
    m_viewEnd = std::min(m_fullEnd, start + newSpan);
}

void TimeAxis::panPixels(double dx)
{
    const double pps = pixelsPerSecond();
    if (pps > 0)
        panTime(-dx / pps);
}

void TimeAxis::panTime(double dt)
{
    const double s = span();
    const double start = std::clamp(m_viewStart + dt, m_fullStart, m_fullEnd - s);
    m_viewStart = start;
    m_viewEnd = start + s;
}

double TimeAxis::niceStep(double rawStep)
{
    if (!(rawStep > 0) || !std::isfinite(rawStep))
        return 1;
    const double exponent = std::floor(std::log10(rawStep));
    const double base = std::pow(10.0, exponent);
    for (double m : { 1.0, 2.0, 5.0, 10.0 }) {
        // A relative epsilon so that an exact 2e-3 stays 2e-3 despite log10 rounding.
        if (m * base >= rawStep * (1 - 1e-9))
            return m * base;
    }
    return 10 * base;
}

double TimeAxis::tickStep(double minSpacingPx) const
{
    const double pps = pixelsPerSecond();
    if (pps <= 0)
        return 1;
    return niceStep(std::max(minSpacingPx, 1.0) / pps);
}

QString TimeAxis::formatTick(double t, double step) const
{
    double scale = 1;
    QString unit;
    if (m_units == Units::Seconds) {
        // The unit follows the step, one unit up from a tenth of it: 0.5 s steps read "1.5 s",
        // 50 ms steps "3050 ms", 100 µs steps "0.3 ms", so labels stay short at most zooms.
        if (step >= 0.1) {
            unit = QStringLiteral(" s");
        } else if (step >= 1e-4) {
            scale = 1e3;
            unit = QStringLiteral(" ms");
        } else if (step >= 1e-7) {
            scale = 1e6;
            unit = QStringLiteral(" µs");
        } else {
            scale = 1e9;
            unit = QStringLiteral(" ns");
        }
    }
    const double scaledStep = step * scale;
    const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(scaledStep) + 1e-9)));
    double v = t * scale;
    if (std::abs(v) < scaledStep * 1e-6)
        v = 0; // no "-0"
    return QString::number(v, 'f', decimals) + unit;
}

std::vector<TimeAxis::Tick> TimeAxis::ticks(double minSpacingPx) const
{
    std::vector<Tick> out;
    const double step = tickStep(minSpacingPx);
    if (!(step > 0))
        return out;
    const double first = std::ceil(m_viewStart / step - 1e-9) * step;
    // Deep in a long timeline absolute labels grow long ("30000120 µs"): then the first tick
    // says where we are and the others count from it ("+20 µs"), as Tracy does.
    const bool relative = std::max(std::abs(m_viewStart), std::abs(m_viewEnd)) / step >= 1e4;
    for (long i = 0;; ++i) {
        const double t = first + static_cast<double>(i) * step;
        if (t > m_viewEnd + step * 1e-9 || i > 10000)
            break;
        QString label;
        if (!relative) {
            label = formatTick(t, step);
        } else if (i == 0) {
            const int decimals = std::max(0, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
            label = QString::number(t, 'f', std::min(decimals, 9))
                + (m_units == Units::Seconds ? QStringLiteral(" s") : QString());
        } else {
            label = u'+' + formatTick(t - first, step);
        }
        out.push_back({ t, toPixel(t), label });
    }
    return out;
}

TimeAxis TimeAxis::interpolate(const TimeAxis& from, const TimeAxis& to, double fraction)
{
    const double f = std::clamp(fraction, 0.0, 1.0);
    // Smoothstep easing: the zoom starts and lands gently.
    const double e = f * f * (3 - 2 * f);
    TimeAxis out = to;
    out.m_viewStart = from.m_viewStart + (to.m_viewStart - from.m_viewStart) * e;
    out.m_viewEnd = from.m_viewEnd + (to.m_viewEnd - from.m_viewEnd) * e;
    return out;
}

} // namespace parallax::render
