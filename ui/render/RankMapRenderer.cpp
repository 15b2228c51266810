// SPDX-License-Identifier: Apache-2.0
#include "ui/render/RankMapRenderer.h"

#include "ui/render/RenderStyle.h"
#include "ui/render/SvgAnnotations.h"

#include <QFontMetricsF>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

namespace parallax::render {

using core::Dim;

namespace {
// Groups whose traffic is a collective on the critical path (TP, CP, EP, expert TP) must stay
// on NVLink: leaving the domain is a problem, outlined in red. PP (point-to-point) and DP
// (overlapped gradient sync) routinely span domains: outlined in a neutral dash.
bool crossingIsProblem(Dim d)
{
    return d == Dim::Tp || d == Dim::Cp || d == Dim::Ep || d == Dim::Etp;
}
QColor crossingColor(Dim d)
{
    return crossingIsProblem(d) ? style::problem() : QColor(0x55, 0x55, 0x55);
}

constexpr double kPad = 3;
constexpr double kGap = 8;
constexpr double kHeader = 15;
constexpr double kMaxCell = 64;
constexpr double kHeaderMinCell = 12;
constexpr int kLegendGroups = 8;

QString domainName(const core::Topology& t, int d)
{
    const std::string& n = t.domains[static_cast<std::size_t>(d)].name;
    return n.empty() ? QStringLiteral("node ") + QString::number(d) : QString::fromStdString(n);
}
} // namespace

int RankMapRenderer::Layout::gpuAt(QPointF point) const
{
    for (int i = 0; i < static_cast<int>(cells.size()); ++i) {
        if (cells[static_cast<std::size_t>(i)].contains(point))
            return i;
    }
    return -1;
}

RankMapRenderer::RankMapRenderer(core::RankMap rankMap, core::Topology topology)
    : m_rankMap(std::move(rankMap))
    , m_topology(std::move(topology))
{
    for (int d = 0; d < static_cast<int>(m_topology.domains.size()); ++d) {
        for (int i = 0; i < m_topology.domains[static_cast<std::size_t>(d)].gpuCount; ++i) {
            m_domainOfGpu.push_back(d);
            m_indexInDomain.push_back(i);
        }
    }
}

QString RankMapRenderer::dimName(Dim dim)
{
    return QString::fromLatin1(core::toString(dim)).toUpper();
}

int RankMapRenderer::coordinate(const core::RankCoords& c, Dim dim)
{
    switch (dim) {
    case Dim::Tp:
        return c.tp;
    case Dim::Cp:
        return c.cp;
    case Dim::Dp:
        return c.dp;
    case Dim::Pp:
        return c.pp;
    case Dim::Ep:
        return c.ep;
    case Dim::Edp:
        return c.edp;
    case Dim::Etp:
        return c.etp;
    default:
        return 0;
    }
}

RankMapRenderer::ColorBy RankMapRenderer::defaultColorBy(Dim dim)
{
    return dim == Dim::Pp ? ColorBy::Position : ColorBy::Group;
}

int RankMapRenderer::maxDomainSize() const
{
    int n = 1;
    for (const auto& d : m_topology.domains)
        n = std::max(n, d.gpuCount);
    return n;
}

RankMapRenderer::Grid RankMapRenderer::chooseGrid(double width, double height) const
{
    const int n = maxDomainSize();
    const int domains = std::max(1, static_cast<int>(m_topology.domains.size()));
    std::set<int> inner { n, (n + 1) / 2, (n + 2) / 3, static_cast<int>(std::ceil(std::sqrt(n))),
        static_cast<int>(std::ceil(std::sqrt(2.0 * n))) };
    // The best grid with domain names above the boxes and the best without, chosen below.
    Grid bests[2];
    double bestHeights[2] = { 1e18, 1e18 };
    for (int ic : inner) {
        if (ic < 1 || ic > n)
            continue;
        const int ir = (n + ic - 1) / ic;
        for (int oc = 1; oc <= domains; ++oc) {
            const int orows = (domains + oc - 1) / oc;
            if (oc > 1 && (domains + oc - 2) / (oc - 1) == orows)
                continue; // same rows with fewer columns: narrower wins below anyway
            for (bool headers : { true, false }) {
                const double hh = headers ? kHeader : 0;
                const double cw = (width - oc * 2 * kPad - (oc - 1) * kGap) / (oc * ic);
                const double ch = (height - orows * (2 * kPad + hh) - (orows - 1) * kGap) / (orows * ir);
                const double cell = std::floor(std::min({ cw, ch, kMaxCell }));
                if (cell < 2 || (headers && cell < kHeaderMinCell))
                    continue;
                const double used = orows * (ir * cell + 2 * kPad + hh) + (orows - 1) * kGap;
                Grid& best = bests[headers ? 1 : 0];
                double& bestHeight = bestHeights[headers ? 1 : 0];
                if (cell > best.cell + 0.5 || (std::abs(cell - best.cell) <= 0.5 && used < bestHeight)) {
                    best = { ic, ir, oc, orows, cell, headers };
                    bestHeight = used;
                }
            }
        }
    }
    // Names of the domains ("node7") are worth a quarter of the cell size: without them a reader
    // cannot tell which box is which node.
    Grid best = bests[1].cell > 0 && bests[1].cell >= 0.75 * bests[0].cell ? bests[1] : bests[0];
    if (best.cell <= 0) // nothing fits: tiny cells in one long grid
        best = { n, 1, std::max(1, static_cast<int>(width / (n * 3 + 2 * kPad + kGap))), 1, 2, false };
    best.outerRows = (domains + best.outerColumns - 1) / best.outerColumns;
    return best;
}

RankMapRenderer::Layout RankMapRenderer::layout(const QRectF& area, const Options& options) const
{
    Layout l;
    l.area = area;
    const double legendH = options.showLegend ? legendHeight(area.width(), options) : 0;
    const QRectF gridArea(area.left(), area.top(), area.width(), std::max(20.0, area.height() - legendH - 10));
    const Grid g = chooseGrid(gridArea.width(), gridArea.height());
    l.cellSize = g.cell;
    l.headers = g.headers;
    const double hh = g.headers ? kHeader : 0;
    const double boxW = g.innerColumns * g.cell + 2 * kPad;
    const double boxH = g.innerRows * g.cell + 2 * kPad + hh;
    const double gridW = g.outerColumns * boxW + (g.outerColumns - 1) * kGap;
    const double gridH = g.outerRows * boxH + (g.outerRows - 1) * kGap;
    const double left = area.left() + std::max(0.0, (area.width() - gridW) / 2);
    l.grid = QRectF(left, area.top(), gridW, gridH);
    l.cells.resize(m_domainOfGpu.size());
    for (int d = 0; d < static_cast<int>(m_topology.domains.size()); ++d) {
        const int col = d % g.outerColumns, row = d / g.outerColumns;
        const QRectF box(left + col * (boxW + kGap), area.top() + row * (boxH + kGap), boxW, boxH);
        l.domains.push_back(box);
    }
    for (int gpu = 0; gpu < gpuCount(); ++gpu) {
        const QRectF box = l.domains[static_cast<std::size_t>(m_domainOfGpu[static_cast<std::size_t>(gpu)])];
        const int i = m_indexInDomain[static_cast<std::size_t>(gpu)];
        l.cells[static_cast<std::size_t>(gpu)] = QRectF(box.left() + kPad + (i % g.innerColumns) * g.cell,
            box.top() + hh + kPad + (i / g.innerColumns) * g.cell, g.cell, g.cell);
    }
    if (options.showLegend)
        l.legend = QRectF(area.left() + 8, l.grid.bottom() + 12, area.width() - 16, legendH);
    return l;
}

double RankMapRenderer::preferredHeight(double width, const Options& options, double maxHeight) const
{
    const double legendH = options.showLegend ? legendHeight(width, options) : 0;
    const Grid g = chooseGrid(width, maxHeight - legendH - 12);
    const double hh = g.headers ? kHeader : 0;
    const double gridH = g.outerRows * (g.innerRows * g.cell + 2 * kPad + hh) + (g.outerRows - 1) * kGap;
    return gridH + legendH + 14;
}

QColor RankMapRenderer::cellColor(int gpu, const Options& options) const
{
    const int rank = rankOfGpu(gpu);
    if (rank < 0)
        return style::idleGpu();
    const int index = options.colorBy == ColorBy::Group ? m_rankMap.groupOf(options.dim, rank)
                                                        : coordinate(m_rankMap.coords(rank), options.dim);
    return style::groupColor(index);
}

bool RankMapRenderer::crossesDomain(int gpu, Dim dim) const
{
    const int rank = rankOfGpu(gpu);
    if (rank < 0)
        return false;
    const auto& groups = m_rankMap.groups(dim);
    const int g = m_rankMap.groupOf(dim, rank);
    return g >= 0 && g < static_cast<int>(groups.size()) && groups[static_cast<std::size_t>(g)].crossesDomain;
}

void RankMapRenderer::paint(QPainter& p, const Layout& l, const Options& options) const
{
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);
    p.fillRect(l.area, style::background());
    const QFont headerFont = style::font(10);
    const QFontMetricsF fh(headerFont);
    for (int d = 0; d < static_cast<int>(l.domains.size()); ++d) {
        const QRectF box = l.domains[static_cast<std::size_t>(d)];
        p.fillRect(box, style::panelFill());
        p.setPen(QPen(style::frame(), 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(box.adjusted(0.5, 0.5, -0.5, -0.5));
        if (l.headers) {
            QString name = domainName(m_topology, d);
            if (fh.horizontalAdvance(name) > box.width() - 6)
                name = QString::number(d);
            p.setFont(headerFont);
            p.setPen(style::mutedText());
            p.drawText(QRectF(box.left() + 4, box.top() + 1, box.width() - 8, kHeader - 1),
                Qt::AlignLeft | Qt::AlignVCenter, fh.elidedText(name, Qt::ElideRight, box.width() - 8));
        }
    }
    // The hovered GPU's group: its members get a dark outline.
    std::set<int> hoveredGroup;
    if (options.hoveredGpu >= 0 && rankOfGpu(options.hoveredGpu) >= 0) {
        const int g = m_rankMap.groupOf(options.dim, rankOfGpu(options.hoveredGpu));
        const auto& groups = m_rankMap.groups(options.dim);
        if (g >= 0 && g < static_cast<int>(groups.size()))
            hoveredGroup.insert(
                groups[static_cast<std::size_t>(g)].ranks.begin(), groups[static_cast<std::size_t>(g)].ranks.end());
    }
    const double cell = l.cellSize;
    const double inset = cell >= 8 ? 1 : 0.5;
    // The largest font (8-13 px) in which the widest rank fits its cell with a margin.
    const QString widest = QString::number(std::max(0, m_rankMap.worldSize() - 1));
    int rankFontSize = static_cast<int>(std::clamp(cell / 2.6, 8.0, 13.0));
    while (rankFontSize > 8 && QFontMetricsF(style::font(rankFontSize)).horizontalAdvance(widest) > cell - 6)
        --rankFontSize;
    const QFont rankFont = style::font(rankFontSize);
    const QFont coordFont = style::font(std::max(8, rankFontSize - 2));
    const bool showRank = cell >= 18 && QFontMetricsF(rankFont).horizontalAdvance(widest) <= cell - 4;
    const bool showCoord = cell >= 40;
    for (int gpu = 0; gpu < gpuCount(); ++gpu) {
        const QRectF c = l.cells[static_cast<std::size_t>(gpu)].adjusted(inset, inset, -inset, -inset);
        const QColor fill = cellColor(gpu, options);
        p.fillRect(c, fill);
        const int rank = rankOfGpu(gpu);
        if (crossesDomain(gpu, options.dim)) {
            const double w = cell >= 16 && crossingIsProblem(options.dim) ? 2 : 1;
            QPen pen(crossingColor(options.dim), w, cell >= 12 ? Qt::DashLine : Qt::SolidLine);
            pen.setJoinStyle(Qt::MiterJoin);
            p.setPen(pen);
            p.setBrush(Qt::NoBrush);
            p.drawRect(c.adjusted(w / 2, w / 2, -w / 2, -w / 2));
        }
        if (rank >= 0 && hoveredGroup.count(rank)) {
            p.setPen(QPen(style::highlight(), rank == rankOfGpu(options.hoveredGpu) ? 3 : 1.5));
            p.setBrush(Qt::NoBrush);
            p.drawRect(c.adjusted(1, 1, -1, -1));
        }
        if (showRank) {
            p.setPen(style::textOn(fill));
            const QString top = rank >= 0 ? QString::number(rank) : QStringLiteral("idle");
            if (showCoord && rank >= 0) {
                p.setFont(rankFont);
                p.drawText(QRectF(c.left(), c.top() + c.height() * 0.12, c.width(), c.height() * 0.45),
                    Qt::AlignHCenter | Qt::AlignVCenter, top);
                const int v = options.colorBy == ColorBy::Group ? m_rankMap.groupOf(options.dim, rank)
                                                                : coordinate(m_rankMap.coords(rank), options.dim);
                const QString bottom
                    = (options.colorBy == ColorBy::Group ? QStringLiteral("g") : dimName(options.dim).toLower() + u' ')
                    + QString::number(v);
                p.setFont(coordFont);
                p.drawText(QRectF(c.left(), c.top() + c.height() * 0.52, c.width(), c.height() * 0.38),
                    Qt::AlignHCenter | Qt::AlignVCenter, bottom);
            } else {
                p.setFont(rank >= 0 ? rankFont : coordFont);
                p.drawText(c, Qt::AlignCenter, top);
            }
        }
    }
    if (options.showLegend)
        paintLegend(&p, l.legend, options);
    p.restore();
}

double RankMapRenderer::legendHeight(double width, const Options& options) const
{
    return paintLegend(nullptr, QRectF(0, 0, width - 16, 1000), options);
}

// Flow layout of swatches and captions; returns the height used. Without a painter it measures.
// (The swatch lambdas run only with a painter.)
double RankMapRenderer::paintLegend(QPainter* p, const QRectF& rect, const Options& options) const
{
    const QFont f = style::font(style::kText);
    const QFontMetricsF fm(f);
    const double sw = 16, lineH = std::max(sw, fm.height()) + 6;
    double x = rect.left(), y = rect.top();
    if (p)
        p->setFont(f);
    auto item = [&](const std::function<void(const QRectF&)>& swatch, const QString& text) {
        const double w = (swatch ? sw + 6 : 0) + fm.horizontalAdvance(text) + 20;
        if (!swatch && w > rect.width()) { // a sentence wider than the legend: wrapped onto lines of its own
            if (x > rect.left())
                y += lineH;
            QString line;
            const auto flush = [&] {
                if (p) {
                    p->setPen(style::text());
                    p->drawText(QRectF(rect.left(), y, rect.width(), lineH), Qt::AlignLeft | Qt::AlignVCenter, line);
                }
                y += lineH;
                line.clear();
            };
            for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
                const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
                if (!line.isEmpty() && fm.horizontalAdvance(longer) > rect.width())
                    flush();
                line = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
            }
            if (!line.isEmpty())
                flush();
            y -= lineH; // the next item starts a line: x is past the right edge
            x = rect.right();
            return;
        }
        if (x > rect.left() && x + w > rect.right()) {
            x = rect.left();
            y += lineH;
        }
        if (p) {
            double tx = x;
            if (swatch) {
                const QRectF s(x, y + (lineH - sw) / 2, sw, sw);
                swatch(s);
                tx += sw + 6;
            }
            p->setPen(style::text());
            p->drawText(QRectF(tx, y, w, lineH), Qt::AlignLeft | Qt::AlignVCenter, text);
        }
        x += w;
    };
    auto newLine = [&] {
        if (x > rect.left()) {
            x = rect.left();
            y += lineH;
        }
    };
    const Dim dim = options.dim;
    const QString name = dimName(dim);
    const int world = m_rankMap.worldSize();
    const auto& groups = m_rankMap.groups(dim);
    int values = 0;
    if (options.colorBy == ColorBy::Group) {
        values = static_cast<int>(groups.size());
    } else {
        for (int r = 0; r < world; ++r)
            values = std::max(values, coordinate(m_rankMap.coords(r), dim) + 1);
    }
    const int groupSize = groups.empty() ? 0 : static_cast<int>(groups.front().ranks.size());
    const QString what = options.colorBy == ColorBy::Group
        ? QStringLiteral("Color: %1 group (%2 %3 of %4 %5)")
              .arg(name)
              .arg(values)
              .arg(values == 1 ? QStringLiteral("group") : QStringLiteral("groups"))
              .arg(groupSize)
              .arg(groupSize == 1 ? QStringLiteral("GPU") : QStringLiteral("GPUs"))
        : QStringLiteral("Color: %1 coordinate (%1 = 0 .. %2)").arg(name).arg(values - 1);
    item(nullptr,
        what
            + (values > style::groupColorCount()
                    ? QStringLiteral(", colors repeat every %1").arg(style::groupColorCount())
                    : QString()));
    for (int i = 0; i < std::min(values, kLegendGroups); ++i) {
        item([&, i](const QRectF& s) { p->fillRect(s, style::groupColor(i)); },
            options.colorBy == ColorBy::Group ? QStringLiteral("g%1").arg(i)
                                              : QStringLiteral("%1 %2").arg(name.toLower()).arg(i));
    }
    if (values > kLegendGroups)
        item(nullptr, QStringLiteral("…"));
    newLine();
    const int crossing = m_rankMap.groupsCrossingDomains(dim);
    if (crossing > 0) {
        const bool problem = crossingIsProblem(dim);
        item(
            [&](const QRectF& s) {
                p->fillRect(s, style::groupColor(0));
                QPen pen(crossingColor(dim), problem ? 2 : 1, Qt::DashLine);
                p->setPen(pen);
                p->setBrush(Qt::NoBrush);
                p->drawRect(s.adjusted(1, 1, -1, -1));
            },
            (problem
                    ? QStringLiteral("red dashed outline: the %1 group leaves its NVLink domain (%2 of %3 groups): its "
                                     "collectives cross InfiniBand")
                    : QStringLiteral(
                        "dashed outline: the %1 group spans NVLink domains (%2 of %3 groups), as %1 usually does"))
                .arg(name)
                .arg(crossing)
                .arg(groups.size()));
    } else {
        item(nullptr, QStringLiteral("Every %1 group stays inside one NVLink domain.").arg(name));
    }
    if (gpuCount() > world)
        item([&](const QRectF& s) { p->fillRect(s, style::idleGpu()); }, QStringLiteral("idle GPU (no rank)"));
    newLine();
    item(nullptr,
        QStringLiteral("Rank r runs on GPU r in topology order; cells show the rank%1.")
            .arg(options.colorBy == ColorBy::Group ? QStringLiteral(" and its group gN")
                                                   : QStringLiteral(" and its coordinate")));
    return y + lineH - rect.top();
}

QString RankMapRenderer::gpuDescription(int gpu, const Options& options) const
{
    if (gpu < 0 || gpu >= gpuCount())
        return {};
    const int d = m_domainOfGpu[static_cast<std::size_t>(gpu)];
    QString text = QStringLiteral("GPU %1 (%2, slot %3)")
                       .arg(gpu)
                       .arg(domainName(m_topology, d))
                       .arg(m_indexInDomain[static_cast<std::size_t>(gpu)]);
    const int rank = rankOfGpu(gpu);
    if (rank < 0)
        return text + QStringLiteral(": idle, no rank");
    const auto& c = m_rankMap.coords(rank);
    text += QStringLiteral(": rank %1\ntp %2, cp %3, dp %4, pp %5").arg(rank).arg(c.tp).arg(c.cp).arg(c.dp).arg(c.pp);
    if (c.ep > 0 || c.edp > 0)
        text += QStringLiteral(", ep %1").arg(c.ep);
    const int g = m_rankMap.groupOf(options.dim, rank);
    const auto& groups = m_rankMap.groups(options.dim);
    if (g >= 0 && g < static_cast<int>(groups.size())) {
        const auto& group = groups[static_cast<std::size_t>(g)];
        text += QStringLiteral("\n%1 group %2: %3 ranks").arg(dimName(options.dim)).arg(g).arg(group.ranks.size());
        if (!group.ranks.empty() && group.ranks.size() <= 16) {
            QStringList members;
            for (int r : group.ranks)
                members << QString::number(r);
            text += QStringLiteral(" (") + members.join(QStringLiteral(", ")) + u')';
        }
        text += group.crossesDomain ? QStringLiteral(", spans NVLink domains %1 to %2 (crosses IB)")
                                          .arg(group.firstDomain)
                                          .arg(group.lastDomain)
                                    : QStringLiteral(", inside one NVLink domain");
    }
    return text;
}

QString RankMapRenderer::toolTip(const Layout& l, QPointF point, const Options& options) const
{
    return gpuDescription(l.gpuAt(point), options);
}

void RankMapRenderer::annotate(SvgAnnotations& out, const Layout& l, const Options& options) const
{
    for (int gpu = 0; gpu < gpuCount(); ++gpu) {
        SvgAnnotations::Item item;
        item.rect = l.cells[static_cast<std::size_t>(gpu)];
        item.id = QStringLiteral("gpu-%1").arg(gpu);
        item.cssClass = QStringLiteral("gpu");
        item.title = gpuDescription(gpu, options).replace(u'\n', QStringLiteral("; "));
        const int rank = rankOfGpu(gpu);
        item.data = { { QStringLiteral("rank"), QString::number(rank) },
            { QStringLiteral("domain"), QString::number(m_domainOfGpu[static_cast<std::size_t>(gpu)]) } };
        if (rank >= 0)
            item.data.push_back({ QStringLiteral("group"), QString::number(m_rankMap.groupOf(options.dim, rank)) });
        out.add(std::move(item));
    }
}

} // namespace parallax::render
