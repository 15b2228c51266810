// SPDX-License-Identifier: Apache-2.0
#include "ui/render/TitleBlock.h"

#include "core/inference/InferenceMarkdown.h"
#include "core/report/ReportMarkdown.h"
#include "core/search/NumberText.h"
#include "ui/render/RenderStyle.h"

#include <QFontMetricsF>
#include <QPainter>
#include <algorithm>

namespace parallax::render {

namespace {
constexpr double kPadding = 12;
constexpr double kFigureGap = 18;
constexpr double kLineSpacing = 2;

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}
} // namespace

TitleBlock TitleBlock::forReport(const core::Scenario& s, const core::Report& r, const QString& chart)
{
    TitleBlock b;
    b.title = q(s.name.empty() ? std::string("Parallax scenario") : s.name);
    b.chart = chart;
    b.lines << QStringLiteral("Model: ") + q(core::describeModel(s, r))
            << QStringLiteral("Cluster: ") + q(core::describeCluster(s))
            << QStringLiteral("Configuration: ")
            + q(r.inference ? core::describeServingConfiguration(*r.inference) : core::describeConfiguration(s));
    if (r.valid && r.inference) {
        // A serving report has no training step: its headline is the one the Markdown report's table leads with.
        const core::InferenceReport& inf = *r.inference;
        b.figures.push_back({ QStringLiteral("TTFT"), q(core::formatSeconds(inf.ttftSeconds)) });
        b.figures.push_back({ QStringLiteral("TPOT"), q(core::formatSeconds(inf.tpotSeconds)) });
        b.figures.push_back({ QStringLiteral("tokens/s per GPU"), q(core::fixedText(inf.tokensPerSecondPerGpu, 1)) });
        b.figures.push_back({ r.fits ? QStringLiteral("peak memory") : QStringLiteral("peak memory: over HBM"),
            q(core::gibText(r.peakMemoryBytes)), !r.fits });
    } else if (r.valid) {
        b.figures.push_back({ QStringLiteral("step time"), q(core::formatSeconds(r.stepTimeSeconds)) });
        b.figures.push_back({ QStringLiteral("bubble"), q(core::percentText(r.bubbleFraction)) });
        b.figures.push_back({ QStringLiteral("MFU"), q(core::percentText(r.mfu)) });
        b.figures.push_back({ r.fits ? QStringLiteral("peak memory") : QStringLiteral("peak memory: over HBM"),
            q(core::gibText(r.peakMemoryBytes)), !r.fits });
    } else {
        b.figures.push_back({ QStringLiteral("configuration"), QStringLiteral("invalid"), true });
    }
    return b;
}

double TitleBlock::figuresWidth() const
{
    const QFontMetricsF value(style::font(style::kHeading + 4, true));
    const QFontMetricsF caption(style::font(style::kSmallText));
    double w = 0;
    for (const Figure& f : figures)
        w += std::max(value.horizontalAdvance(f.value), caption.horizontalAdvance(f.caption)) + kFigureGap;
    return w;
}

double TitleBlock::height(double width) const
{
    const QFontMetricsF titleFm(style::font(style::kTitle, true));
    const QFontMetricsF lineFm(style::font(style::kText));
    const double textWidth = std::max(100.0, width - 2 * kPadding - figuresWidth());
    double h = kPadding + titleFm.height() + 4;
    for (const QString& line : lines)
        h += lineFm.boundingRect(QRectF(0, 0, textWidth, 1e4), Qt::TextWordWrap, line).height() + kLineSpacing;
    const QFontMetricsF valueFm(style::font(style::kHeading + 4, true));
    const QFontMetricsF captionFm(style::font(style::kSmallText));
    h = std::max(h, kPadding + valueFm.height() + captionFm.height() + 6);
    return h + kPadding;
}

void TitleBlock::paint(QPainter& p, const QRectF& rect) const
{
    p.save();
    p.setRenderHint(QPainter::TextAntialiasing, true);
    p.fillRect(rect, style::background());
    const QFont titleFont = style::font(style::kTitle, true);
    const QFont chartFont = style::font(style::kTitle);
    const QFont lineFont = style::font(style::kText);
    const QFontMetricsF titleFm(titleFont), chartFm(chartFont), lineFm(lineFont);
    const double figW = figuresWidth();
    const double textWidth = std::max(100.0, rect.width() - 2 * kPadding - figW);
    double y = rect.top() + kPadding;

    // Title, then the chart's name in the same size but regular weight.
    const QString title = titleFm.elidedText(this->title, Qt::ElideRight, textWidth * 0.7);
    p.setFont(titleFont);
    p.setPen(style::text());
    p.drawText(QPointF(rect.left() + kPadding, y + titleFm.ascent()), title);
    if (!chart.isEmpty()) {
        const double tw = titleFm.horizontalAdvance(title);
        p.setFont(chartFont);
        p.setPen(style::mutedText());
        p.drawText(QPointF(rect.left() + kPadding + tw, y + titleFm.ascent()),
            chartFm.elidedText(QStringLiteral("  —  ") + chart, Qt::ElideRight, textWidth - tw));
    }
    y += titleFm.height() + 4;
    p.setFont(lineFont);
    p.setPen(style::text());
    for (const QString& line : lines) {
        const QRectF box = lineFm.boundingRect(QRectF(0, 0, textWidth, 1e4), Qt::TextWordWrap, line);
        p.drawText(QRectF(rect.left() + kPadding, y, textWidth, box.height()), Qt::TextWordWrap | Qt::AlignLeft, line);
        y += box.height() + kLineSpacing;
    }

    // Headline figures, right-aligned: value over caption.
    const QFont valueFont = style::font(style::kHeading + 4, true);
    const QFont captionFont = style::font(style::kSmallText);
    const QFontMetricsF valueFm(valueFont), captionFm(captionFont);
    double x = rect.right() - kPadding - figW + kFigureGap;
    for (const Figure& f : figures) {
        const double w = std::max(valueFm.horizontalAdvance(f.value), captionFm.horizontalAdvance(f.caption));
        p.setFont(valueFont);
        p.setPen(f.alarm ? style::problem() : style::text());
        p.drawText(QRectF(x, rect.top() + kPadding, w, valueFm.height()), Qt::AlignRight | Qt::AlignVCenter, f.value);
        p.setFont(captionFont);
        p.setPen(f.alarm ? style::problem() : style::mutedText());
        p.drawText(QRectF(x, rect.top() + kPadding + valueFm.height() + 2, w, captionFm.height()),
            Qt::AlignRight | Qt::AlignVCenter, f.caption);
        x += w + kFigureGap;
    }
    p.setPen(QPen(style::frame(), 1));
    p.drawLine(
        QPointF(rect.left() + kPadding, rect.bottom() - 0.5), QPointF(rect.right() - kPadding, rect.bottom() - 0.5));
    p.restore();
}

} // namespace parallax::render
