#include "ui/RankMapRenderer.h"

#include "ui/Format.h"
#include "ui/Theme.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>

namespace parallax::ui {

namespace {
QColor blend(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - t) + b.redF() * t),
        static_cast<float>(a.greenF() * (1 - t) + b.greenF() * t),
        static_cast<float>(a.blueF() * (1 - t) + b.blueF() * t));
}

QString rankList(const std::vector<int>& ranks)
{
    QStringList parts;
    const std::size_t shown = std::min<std::size_t>(ranks.size(), 12);
    for (std::size_t i = 0; i < shown; ++i)
        parts << QString::number(ranks[i]);
    QString text = parts.join(QStringLiteral(", "));
    if (ranks.size() > shown)
        text += QStringLiteral(", … (%1 ranks)").arg(ranks.size());
    return text;
}
} // namespace

void RankMapRenderer::setEvaluation(EvaluationPtr evaluation)
{
    m_evaluation = std::move(evaluation);
    m_gpusPerDomain.clear();
    if (m_evaluation) {
        for (const auto& d : m_evaluation->scenario.topology.domains)
            m_gpusPerDomain.push_back(d.gpuCount);
    }
}

void RankMapRenderer::layout(QSizeF available)
{
    m_layout = ClusterLayout::compute(m_gpusPerDomain, available);
}

bool RankMapRenderer::crossingIsProblem(core::Dim dim)
{
    return dim == core::Dim::Tp || dim == core::Dim::Cp || dim == core::Dim::Ep || dim == core::Dim::Etp;
}

RankMapRenderer::ColorBy RankMapRenderer::defaultColorBy(core::Dim dim)
{
    return dim == core::Dim::Pp ? ColorBy::Position : ColorBy::Group;
}

QStringList RankMapRenderer::information(core::Dim dim) const
{
    if (!hasRankMap() || crossingIsProblem(dim))
        return {};
    const auto& map = m_evaluation->report.rankMap;
    const int crossing = map.groupsCrossingDomains(dim);
    if (crossing == 0)
        return {};
    return { QObject::tr("%1 of %2 %3 groups span NVLink domains, as designed: their traffic (%4) is light "
                         "enough for the scale-out network.")
                 .arg(crossing)
                 .arg(map.groups(dim).size())
                 .arg(dimName(dim),
                     dim == core::Dim::Pp ? QObject::tr("point-to-point activations")
                                          : QObject::tr("one gradient reduction per step")) };
}

QString RankMapRenderer::dimName(core::Dim dim)
{
    return QString::fromLatin1(core::toString(dim)).toUpper();
}

int RankMapRenderer::coordinate(const core::RankCoords& c, core::Dim dim)
{
    switch (dim) {
    case core::Dim::Tp:
        return c.tp;
    case core::Dim::Cp:
        return c.cp;
    case core::Dim::Dp:
        return c.dp;
    case core::Dim::Pp:
        return c.pp;
    case core::Dim::Ep:
        return c.ep;
    case core::Dim::Edp:
        return c.edp;
    case core::Dim::Etp:
        return c.etp;
    case core::Dim::Count:
        break;
    }
    return 0;
}

bool RankMapRenderer::hasRankMap() const
{
    if (!m_evaluation)
        return false;
    const auto& map = m_evaluation->report.rankMap;
    return map.worldSize() > 0 && map.worldSize() <= m_layout.gpuCount() && !map.groups(core::Dim::Tp).empty();
}

int RankMapRenderer::rankOfGpu(int gpu) const
{
    return hasRankMap() && gpu >= 0 && gpu < m_evaluation->report.rankMap.worldSize() ? gpu : -1;
}

int RankMapRenderer::groupOfGpu(core::Dim dim, int gpu) const
{
    const int rank = rankOfGpu(gpu);
    if (rank < 0 || m_evaluation->report.rankMap.groups(dim).empty())
        return -1;
    return m_evaluation->report.rankMap.groupOf(dim, rank);
}

std::vector<int> RankMapRenderer::groupMembers(core::Dim dim, int group) const
{
    if (!hasRankMap())
        return {};
    const auto& groups = m_evaluation->report.rankMap.groups(dim);
    if (group < 0 || group >= static_cast<int>(groups.size()))
        return {};
    return groups[static_cast<std::size_t>(group)].ranks; // rank r runs on GPU r
}

QString RankMapRenderer::toolTip(int gpu, core::Dim dim) const
{
    if (!m_evaluation || gpu < 0 || gpu >= m_layout.gpuCount())
        return {};
    const auto& topo = m_evaluation->scenario.topology;
    const int d = m_layout.domainOfGpu(gpu);
    const auto& domain = topo.domains[static_cast<std::size_t>(d)];
    const QString where = QObject::tr("GPU %1: %2, slot %3 (%4)")
                              .arg(gpu)
                              .arg(QString::fromStdString(domain.name).toHtmlEscaped())
                              .arg(gpu - m_layout.firstGpuOfDomain(d))
                              .arg(QString::fromStdString(domain.gpu.name).toHtmlEscaped());
    const int rank = rankOfGpu(gpu);
    if (rank < 0)
        return where + QStringLiteral("<br>") + QObject::tr("runs no rank");
    const auto& map = m_evaluation->report.rankMap;
    const core::RankCoords& c = map.coords(rank);
    QString text = QObject::tr("<b>Rank %1</b> on %2").arg(rank).arg(where);
    text += QStringLiteral("<br>tp %1 · cp %2 · dp %3 · pp %4").arg(c.tp).arg(c.cp).arg(c.dp).arg(c.pp);
    if (m_evaluation->scenario.model.isMoe())
        text += QStringLiteral(" · ep %1 · edp %2").arg(c.ep).arg(c.edp);
    const int g = groupOfGpu(dim, gpu);
    if (g >= 0) {
        const auto& group = map.groups(dim)[static_cast<std::size_t>(g)];
        text += QStringLiteral("<br>")
            + QObject::tr("%1 group %2 of %3: ranks %4")
                  .arg(dimName(dim))
                  .arg(g)
                  .arg(map.groups(dim).size())
                  .arg(rankList(group.ranks));
        if (group.crossesDomain && crossingIsProblem(dim))
            text += QStringLiteral("<br><span style='color:%1'>").arg(theme::problemColor().name())
                + QObject::tr("leaves its NVLink domain (%1 to %2): its collectives run over the scale-out network")
                      .arg(QString::fromStdString(topo.domains[static_cast<std::size_t>(group.firstDomain)].name)
                               .toHtmlEscaped(),
                          QString::fromStdString(topo.domains[static_cast<std::size_t>(group.lastDomain)].name)
                              .toHtmlEscaped())
                + QStringLiteral("</span>");
    }
    return text;
}

QStringList RankMapRenderer::problems(core::Dim dim) const
{
    QStringList lines;
    if (!m_evaluation)
        return lines;
    const auto& report = m_evaluation->report;
    if (hasRankMap() && crossingIsProblem(dim)) {
        const int crossing = report.rankMap.groupsCrossingDomains(dim);
        if (crossing > 0)
            lines << QObject::tr("%1 of %2 %3 groups leave their NVLink domain: their collectives run over the "
                                 "scale-out network.")
                         .arg(crossing)
                         .arg(report.rankMap.groups(dim).size())
                         .arg(dimName(dim));
    }
    const std::string field = std::string("parallel.") + core::toString(dim);
    for (const auto& w : report.warnings) {
        if (w.field == field)
            lines << QString::fromStdString(w.text);
    }
    return lines;
}

QString RankMapRenderer::legend(const Style& style) const
{
    const QString what = style.colorBy == ColorBy::Group
        ? QObject::tr("color = %1 group (%2 colors, repeating)").arg(dimName(style.dim)).arg(theme::groupColorCount())
        : QObject::tr("color = position in the %1 group").arg(dimName(style.dim));
    const QString outline = crossingIsProblem(style.dim)
        ? QObject::tr(" · dashed red outline: group leaves its NVLink domain")
        : QObject::tr(" · %1 groups may span domains").arg(dimName(style.dim));
    return what + outline + QObject::tr(" · hatched: GPU without a rank");
}

void RankMapRenderer::paint(QPainter& p, const Style& s) const
{
    const ClusterLayout& L = m_layout;
    if (!m_evaluation || L.gpuCount() == 0)
        return;
    const auto& topo = m_evaluation->scenario.topology;
    const auto& map = m_evaluation->report.rankMap;
    const double c = L.cellSize();
    const bool ranks = hasRankMap();
    const bool hasGroups = ranks && !map.groups(s.dim).empty();
    p.save();

    // Domains: a box per NVLink domain, its name in the header when there is room.
    p.setRenderHint(QPainter::Antialiasing, true);
    QFont headerFont = p.font();
    headerFont.setPixelSize(11);
    p.setFont(headerFont);
    const QFontMetricsF fm(headerFont);
    for (int d = 0; d < L.domainCount(); ++d) {
        const QRectF box = L.domainRect(d);
        p.setPen(QPen(s.domainBorder, 1));
        p.setBrush(s.domainFill);
        p.drawRoundedRect(box.adjusted(0.5, 0.5, -0.5, -0.5), 3, 3);
        if (L.hasHeaders()) {
            const auto& dom = topo.domains[static_cast<std::size_t>(d)];
            QString label = QString::fromStdString(dom.name);
            if (L.headerRect(d).width() > 110)
                label += QStringLiteral(" · %1 × %2")
                             .arg(dom.gpuCount)
                             .arg(format::gpuShortName(QString::fromStdString(dom.gpu.name)));
            p.setPen(s.text);
            p.drawText(L.headerRect(d), Qt::AlignLeft | Qt::AlignVCenter,
                fm.elidedText(label, Qt::ElideRight, L.headerRect(d).width()));
        }
    }

    // Cells.
    p.setRenderHint(QPainter::Antialiasing, false);
    const double inset = c >= 10 ? 1.0 : 0.5;
    QFont rankFont = p.font();
    rankFont.setPixelSize(std::clamp(static_cast<int>(c * 0.3), 9, 14));
    rankFont.setBold(true);
    QFont coordFont = rankFont;
    coordFont.setBold(false);
    coordFont.setPixelSize(std::clamp(static_cast<int>(c * 0.2), 8, 11));
    const QColor cellText(0x1a, 0x1a, 0x1a); // fills are pale in both palettes
    const QBrush idleBrush(blend(s.domainFill, s.text, 0.35), Qt::BDiagPattern);
    for (int gpu = 0; gpu < L.gpuCount(); ++gpu) {
        const QRectF cell = L.cellRect(gpu).adjusted(inset, inset, -inset, -inset);
        const int rank = rankOfGpu(gpu);
        if (rank < 0 || !hasGroups) {
            p.fillRect(cell, blend(s.domainFill, s.text, 0.12));
            p.fillRect(cell, idleBrush);
            continue;
        }
        const int group = map.groupOf(s.dim, rank);
        QColor fill = theme::groupColor(s.colorBy == ColorBy::Group ? group : coordinate(map.coords(rank), s.dim));
        if (s.selectedGroup >= 0 && group != s.selectedGroup)
            fill = blend(fill, s.background, 0.78);
        p.fillRect(cell, fill);
        if (c >= 11 && c < 24 && s.colorBy == ColorBy::Position) {
            // Colors repeat after 8 positions: small cells say which position they are, once per run
            // of equal cells in a row (not on every cell).
            const int position = coordinate(map.coords(rank), s.dim);
            const int left = L.neighbour(gpu, -1, 0);
            const int leftRank = left < 0 ? -1 : rankOfGpu(left);
            if (leftRank < 0 || coordinate(map.coords(leftRank), s.dim) != position) {
                p.setPen(cellText);
                p.setFont(coordFont);
                p.drawText(cell, Qt::AlignCenter, QString::number(position));
            }
        } else if (c >= 24) {
            p.setPen(cellText);
            p.setFont(rankFont);
            const QRectF inner = cell.adjusted(3, 2, -3, -2);
            if (c >= 52) {
                const auto& rc = map.coords(rank);
                p.drawText(inner, Qt::AlignLeft | Qt::AlignTop, QString::number(rank));
                p.setFont(coordFont);
                QString coords = QStringLiteral("t%1 d%2\np%3").arg(rc.tp).arg(rc.dp).arg(rc.pp);
                if (map.groups(core::Dim::Cp).size() < static_cast<std::size_t>(map.worldSize()))
                    coords = QStringLiteral("t%1 c%2\nd%3 p%4").arg(rc.tp).arg(rc.cp).arg(rc.dp).arg(rc.pp);
                p.drawText(inner, Qt::AlignLeft | Qt::AlignBottom, coords);
            } else {
                p.drawText(inner, Qt::AlignCenter, QString::number(rank));
            }
        }
    }

    // Outlines: the edges of a group's cells that border another group (or the domain's edge).
    auto outline = [&](auto&& include) {
        QVector<QLineF> lines;
        for (int gpu = 0; gpu < L.gpuCount(); ++gpu) {
            const int group = groupOfGpu(s.dim, gpu);
            if (group < 0 || !include(group))
                continue;
            const QRectF r = L.cellRect(gpu);
            auto other = [&](int dx, int dy) {
                const int n = L.neighbour(gpu, dx, dy);
                return n < 0 || groupOfGpu(s.dim, n) != group;
            };
            if (other(-1, 0))
                lines << QLineF(r.topLeft(), r.bottomLeft());
            if (other(1, 0))
                lines << QLineF(r.topRight(), r.bottomRight());
            if (other(0, -1))
                lines << QLineF(r.topLeft(), r.topRight());
            if (other(0, 1))
                lines << QLineF(r.bottomLeft(), r.bottomRight());
        }
        p.drawLines(lines);
    };
    if (hasGroups) {
        const auto& groups = map.groups(s.dim);
        if (s.selectedGroup >= 0) {
            p.setPen(QPen(s.text, std::max(2.0, c * 0.06)));
            outline([&](int g) { return g == s.selectedGroup; });
        }
        QPen problem(theme::problemColor(), std::max(2.0, std::min(4.0, c * 0.1)));
        problem.setStyle(Qt::DashLine);
        problem.setCapStyle(Qt::FlatCap);
        p.setPen(problem);
        if (crossingIsProblem(s.dim))
            outline([&](int g) { return groups[static_cast<std::size_t>(g)].crossesDomain; });
    }
    if (s.hoveredGpu >= 0 && s.hoveredGpu < L.gpuCount()) {
        p.setPen(QPen(s.text, 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(L.cellRect(s.hoveredGpu).adjusted(1, 1, -1, -1));
    }
    p.restore();
}

} // namespace parallax::ui
