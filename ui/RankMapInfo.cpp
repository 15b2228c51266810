// SPDX-License-Identifier: Apache-2.0
#include "ui/RankMapInfo.h"

#include "ui/Theme.h"
#include "ui/render/RankMapRenderer.h"

#include <QObject>
#include <algorithm>

namespace parallax::ui {

namespace {
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

QString dimName(core::Dim dim)
{
    return render::RankMapRenderer::dimName(dim);
}
} // namespace

void RankMapInfo::setEvaluation(EvaluationPtr evaluation)
{
    m_evaluation = std::move(evaluation);
    m_gpuCount = m_evaluation ? m_evaluation->scenario.topology.gpuCount() : 0;
}

bool RankMapInfo::crossingIsProblem(core::Dim dim)
{
    return dim == core::Dim::Tp || dim == core::Dim::Cp || dim == core::Dim::Ep || dim == core::Dim::Etp;
}

QStringList RankMapInfo::fabricCrossings(core::Dim dim) const
{
    QStringList lines;
    if (!hasRankMap())
        return lines;
    const auto& report = m_evaluation->report;
    const auto d = static_cast<std::size_t>(dim);
    const int groups = static_cast<int>(report.rankMap.groups(dim).size());
    if (report.groupsCrossingFabrics[d] > 0)
        lines << QObject::tr("%1 of %2 %3 groups cross a fabric boundary: their scale-out traffic takes the shared "
                             "(spine) fabric's bandwidth and latency.")
                     .arg(report.groupsCrossingFabrics[d])
                     .arg(groups)
                     .arg(dimName(dim));
    if (report.groupsCrossingRails[d] > 0)
        lines << QObject::tr("%1 of %2 %3 groups change rail on a rail-optimised fabric: with PXN the data moves over "
                             "NVLink first, without it through the spine.")
                     .arg(report.groupsCrossingRails[d])
                     .arg(groups)
                     .arg(dimName(dim));
    return lines;
}

QStringList RankMapInfo::information(core::Dim dim) const
{
    if (!hasRankMap())
        return {};
    if (crossingIsProblem(dim))
        return fabricCrossings(dim);
    const auto& map = m_evaluation->report.rankMap;
    const int crossing = map.groupsCrossingDomains(dim);
    if (crossing == 0)
        return {};
    return QStringList { QObject::tr("%1 of %2 %3 groups span NVLink domains, as designed: their traffic (%4) is light "
                                     "enough for the scale-out network.")
                             .arg(crossing)
                             .arg(map.groups(dim).size())
                             .arg(dimName(dim),
                                 dim == core::Dim::Pp ? QObject::tr("point-to-point activations")
                                                      : QObject::tr("one gradient reduction per step")) }
    + fabricCrossings(dim);
}

bool RankMapInfo::hasRankMap() const
{
    if (!m_evaluation)
        return false;
    const auto& map = m_evaluation->report.rankMap;
    return map.worldSize() > 0 && map.worldSize() <= m_gpuCount && !map.groups(core::Dim::Tp).empty();
}

int RankMapInfo::rankOfGpu(int gpu) const
{
    return hasRankMap() && gpu >= 0 && gpu < m_evaluation->report.rankMap.worldSize() ? gpu : -1;
}

int RankMapInfo::groupOfGpu(core::Dim dim, int gpu) const
{
    const int rank = rankOfGpu(gpu);
    if (rank < 0 || m_evaluation->report.rankMap.groups(dim).empty())
        return -1;
    return m_evaluation->report.rankMap.groupOf(dim, rank);
}

std::vector<int> RankMapInfo::groupMembers(core::Dim dim, int group) const
{
    if (!hasRankMap())
        return {};
    const auto& groups = m_evaluation->report.rankMap.groups(dim);
    if (group < 0 || group >= static_cast<int>(groups.size()))
        return {};
    return groups[static_cast<std::size_t>(group)].ranks; // rank r runs on GPU r
}

QString RankMapInfo::toolTip(int gpu, core::Dim dim) const
{
    if (!m_evaluation || gpu < 0 || gpu >= m_gpuCount)
        return {};
    const auto& topo = m_evaluation->scenario.topology;
    const core::GpuLocation at = topo.locate(gpu);
    const auto& domain = topo.domains[static_cast<std::size_t>(at.domain)];
    const QString where = QObject::tr("GPU %1: %2, slot %3 (%4)")
                              .arg(gpu)
                              .arg(QString::fromStdString(domain.name).toHtmlEscaped())
                              .arg(at.indexInDomain)
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

QStringList RankMapInfo::problems(core::Dim dim) const
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

} // namespace parallax::ui
