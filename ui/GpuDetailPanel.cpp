// SPDX-License-Identifier: Apache-2.0
#include "ui/GpuDetailPanel.h"

#include "ui/Format.h"
#include "ui/render/RankMapRenderer.h"

#include <QLabel>
#include <QTextDocument>
#include <QVBoxLayout>

namespace parallax::ui {

namespace {
constexpr core::Dim kDenseDims[] = { core::Dim::Tp, core::Dim::Cp, core::Dim::Dp, core::Dim::Pp };
constexpr core::Dim kExpertDims[] = { core::Dim::Ep, core::Dim::Edp, core::Dim::Etp };

QString domainName(const core::Topology& t, int domain)
{
    return domain >= 0 && domain < static_cast<int>(t.domains.size())
        ? QString::fromStdString(t.domains[static_cast<std::size_t>(domain)].name)
        : QStringLiteral("?");
}

// The links a group's collectives use: NVLink when every member shares the GPU's domain, else the
// fabric between the domains (the slowest link bounds a ring, DESIGN.md "Collectives").
QString linksOf(const core::Topology& t, const core::ParallelGroup& g, int domain)
{
    if (g.ranks.size() <= 1)
        return QObject::tr("no communication (a group of one)");
    if (!g.crossesDomain)
        return QObject::tr("NVLink inside %1 (%2 GB/s per GPU per direction)")
            .arg(domainName(t, domain))
            .arg(t.nvlinkBytesPerSecond(domain) / 1e9, 0, 'f', 0);
    const int fabric = t.fabricOfDomain(domain);
    const QString via = fabric >= 0 ? QString::fromStdString(t.fabrics[static_cast<std::size_t>(fabric)].name)
                                    : QObject::tr("no fabric");
    return QObject::tr("crosses InfiniBand: %1 to %2 over %3 (%4 GB/s per GPU per direction)")
        .arg(domainName(t, g.firstDomain), domainName(t, g.lastDomain), via)
        .arg(t.scaleOutBytesPerSecondPerGpu(domain) / 1e9, 0, 'f', 0);
}
} // namespace

GpuDetailPanel::GpuDetailPanel(QWidget* parent)
    : QWidget(parent)
    , m_text(new QLabel(this))
{
    setObjectName(QStringLiteral("gpuDetailPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    m_text->setObjectName(QStringLiteral("gpuDetailText"));
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::RichText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_text->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_text->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // long member lists wrap, never widen
    layout->addWidget(m_text, 1);
    refresh();
}

void GpuDetailPanel::setEvaluation(EvaluationPtr evaluation)
{
    m_evaluation = std::move(evaluation);
    if (!m_evaluation || m_gpu >= m_evaluation->scenario.topology.gpuCount())
        m_gpu = -1;
    refresh();
}

void GpuDetailPanel::showGpu(int gpu)
{
    m_gpu = gpu;
    refresh();
}

QString GpuDetailPanel::plainText() const
{
    QTextDocument doc;
    doc.setHtml(m_text->text());
    return doc.toPlainText();
}

QString GpuDetailPanel::rankList(const std::vector<int>& ranks)
{
    if (ranks.empty())
        return QObject::tr("none");
    bool contiguous = true;
    bool strided = ranks.size() > 2;
    for (std::size_t i = 1; i < ranks.size(); ++i) {
        contiguous = contiguous && ranks[i] == ranks[i - 1] + 1;
        strided = strided && ranks[i] - ranks[i - 1] == ranks[1] - ranks[0];
    }
    const QString count = QObject::tr(" (%1)").arg(
        format::plural(static_cast<int>(ranks.size()), QObject::tr("rank"), QObject::tr("ranks")));
    if (ranks.size() == 1)
        return QString::number(ranks.front());
    if (contiguous)
        return QStringLiteral("%1–%2").arg(ranks.front()).arg(ranks.back()) + count;
    QStringList shown;
    const std::size_t head = ranks.size() <= 8 ? ranks.size() : 4;
    for (std::size_t i = 0; i < head; ++i)
        shown << QString::number(ranks[i]);
    if (head < ranks.size())
        shown << QStringLiteral("…") << QString::number(ranks.back());
    QString text = shown.join(QStringLiteral(", "));
    if (strided)
        text += QObject::tr(", every %1").arg(ranks[1] - ranks[0]);
    return text + count;
}

void GpuDetailPanel::refresh()
{
    const Evaluation* e = m_evaluation.get();
    if (!e || m_gpu < 0 || m_gpu >= e->scenario.topology.gpuCount()) {
        m_text->setText(tr("<i>Click a GPU in the rank map or the topology to see its rank, its groups, its memory "
                           "and its time in the schedule.</i>"));
        return;
    }
    const core::Topology& t = e->scenario.topology;
    const core::Report& r = e->report;
    const core::GpuLocation where = t.locate(m_gpu);
    QString html = tr("<b>GPU %1</b> · %2, GPU %3 of the domain · %4")
                       .arg(m_gpu)
                       .arg(domainName(t, where.domain).toHtmlEscaped())
                       .arg(where.indexInDomain)
                       .arg(QString::fromStdString(t.gpuSpec(m_gpu).name).toHtmlEscaped());
    const core::RankMap& map = r.rankMap;
    if (!r.valid || m_gpu >= map.worldSize()) {
        html += QStringLiteral("<br>")
            + (r.valid ? tr("Runs no rank: the configuration uses %1 GPUs.").arg(map.worldSize())
                       : tr("No rank until the configuration is valid."));
        m_text->setText(html);
        return;
    }
    const int rank = m_gpu; // rank r runs on GPU r (core/cluster/RankMap.h)
    const core::RankCoords& c = map.coords(rank);
    html += QStringLiteral("<br>")
        + tr("<b>Rank %1</b> · tp %2 · cp %3 · dp %4 · pp %5").arg(rank).arg(c.tp).arg(c.cp).arg(c.dp).arg(c.pp);
    if (e->scenario.model.isMoe())
        html += tr(" · ep %1 · edp %2 · etp %3").arg(c.ep).arg(c.edp).arg(c.etp);

    html += QStringLiteral("<p><b>%1</b>").arg(tr("Groups"));
    auto addGroups = [&](const core::Dim* dims, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) {
            const core::Dim d = dims[i];
            const auto& groups = map.groups(d);
            const int g = groups.empty() ? -1 : map.groupOf(d, rank);
            if (g < 0 || g >= static_cast<int>(groups.size()))
                continue;
            const core::ParallelGroup& group = groups[static_cast<std::size_t>(g)];
            const bool problem = group.crossesDomain
                && (d == core::Dim::Tp || d == core::Dim::Cp || d == core::Dim::Ep || d == core::Dim::Etp);
            html += QStringLiteral("<br>• ")
                + tr("%1 group %2: ranks %3; %4")
                      .arg(render::RankMapRenderer::dimName(d))
                      .arg(g)
                      .arg(rankList(group.ranks).toHtmlEscaped(), linksOf(t, group, where.domain).toHtmlEscaped());
            if (problem)
                html += QStringLiteral(" <b>⚠</b>");
        }
    };
    addGroups(kDenseDims, std::size(kDenseDims));
    if (e->scenario.model.isMoe())
        addGroups(kExpertDims, std::size(kExpertDims));
    html += QStringLiteral("</p>");

    if (c.pp >= 0 && c.pp < static_cast<int>(r.stages.size())) {
        const core::StageMemory& m = r.stages[static_cast<std::size_t>(c.pp)];
        html += QStringLiteral("<p><b>%1</b>")
                    .arg(tr("Memory on this GPU (pipeline stage %1, %2 layers)").arg(m.stage).arg(m.layers));
        html += QStringLiteral("<br>")
            + tr("weights %1 · grads %2 · optimizer %3 · activations %4 · other %5")
                  .arg(format::bytes(m.weightsBytes), format::bytes(m.gradsBytes), format::bytes(m.optimizerBytes),
                      format::bytes(m.activationsBytes), format::bytes(m.otherBytes));
        html += QStringLiteral("<br>")
            + tr("total <b>%1</b> of %2 HBM (%3)")
                  .arg(format::bytes(m.totalBytes()), format::bytes(t.gpuSpec(m_gpu).hbmBytes),
                      format::percent(m.totalBytes() / std::max(1.0, t.gpuSpec(m_gpu).hbmBytes)));
        html += QStringLiteral("</p>");
    }

    // Every pipeline group runs the schedule of group 0; this GPU runs its pipeline rank's row.
    const auto& s = r.schedule;
    if (c.pp < static_cast<int>(s.busySecondsPerRank.size()) && s.makespan > 0) {
        const double busy = s.busySecondsPerRank[static_cast<std::size_t>(c.pp)];
        const double idle = std::max(0.0, s.makespan - busy);
        html += QStringLiteral("<p><b>%1</b><br>").arg(tr("Time in the schedule"))
            + tr("busy %1 · idle %2 (%3 of the %4 pipeline) · step %5")
                  .arg(format::seconds(busy), format::seconds(idle), format::percent(idle / s.makespan),
                      format::seconds(s.makespan), format::seconds(r.stepTimeSeconds))
            + QStringLiteral("</p>");
    }
    m_text->setText(html);
}

} // namespace parallax::ui
