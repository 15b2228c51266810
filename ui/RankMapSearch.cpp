// SPDX-License-Identifier: Apache-2.0
#include "ui/RankMapSearch.h"

#include <QObject>
#include <QRegularExpression>

namespace parallax::ui {

RankMapMatch findInRankMap(const QString& query, const core::Topology& topology, int worldSize)
{
    RankMapMatch out;
    const QString q = query.trimmed();
    if (q.isEmpty())
        return out;
    const int gpus = topology.gpuCount();
    auto domainName = [&](int gpu) {
        return QString::fromStdString(topology.domains[static_cast<std::size_t>(topology.domainOf(gpu))].name);
    };
    static const QRegularExpression kNumbered(
        QStringLiteral("^(rank|gpu|r|g)?\\s*#?\\s*(\\d+)$"), QRegularExpression::CaseInsensitiveOption);
    if (const auto m = kNumbered.match(q); m.hasMatch()) {
        const bool gpu = m.captured(1).startsWith(u'g', Qt::CaseInsensitive);
        const int n = m.captured(2).toInt();
        if (gpu) {
            if (n >= gpus) {
                out.error = QObject::tr("no GPU %1: the cluster has GPUs 0 to %2").arg(n).arg(gpus - 1);
                return out;
            }
            out.gpus = { n };
            out.description = QObject::tr("GPU %1 in %2").arg(n).arg(domainName(n));
            return out;
        }
        if (n >= worldSize) {
            out.error = worldSize > 0 ? QObject::tr("no rank %1: ranks run from 0 to %2").arg(n).arg(worldSize - 1)
                                      : QObject::tr("no ranks until the configuration is valid");
            return out;
        }
        out.gpus = { n }; // rank r runs on GPU r (core/cluster/RankMap.h)
        out.description = QObject::tr("rank %1: GPU %1 in %2").arg(n).arg(domainName(n));
        return out;
    }
    int first = 0;
    for (const core::NvlinkDomain& d : topology.domains) {
        if (QString::fromStdString(d.name).compare(q, Qt::CaseInsensitive) == 0) {
            for (int i = 0; i < d.gpuCount; ++i)
                out.gpus.push_back(first + i);
            out.description = QObject::tr("%1: GPUs %2 to %3")
                                  .arg(QString::fromStdString(d.name))
                                  .arg(first)
                                  .arg(first + d.gpuCount - 1);
            return out;
        }
        first += d.gpuCount;
    }
    out.error = QObject::tr("“%1” is no rank, GPU or domain: try “rank 517”, “gpu 12” or a domain name such as “%2”")
                    .arg(q,
                        topology.domains.empty() ? QStringLiteral("node0")
                                                 : QString::fromStdString(topology.domains.back().name));
    return out;
}

} // namespace parallax::ui
