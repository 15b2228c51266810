#pragma once

#include "core/RankMap.h"
#include "ui/ClusterLayout.h"
#include "ui/Evaluation.h"

#include <QColor>
#include <QString>
#include <QStringList>
#include <vector>

class QPainter;

namespace parallax::ui {

// Paints the rank map of an evaluation: every GPU a cell inside its NVLink domain, colored by its
// group (or by its position in the group) in one parallel dimension, with the groups that leave
// their domain outlined. Paints into any QPainter, so the screen and the exports share it.
class RankMapRenderer {
public:
    enum class ColorBy { Group, Position };
    struct Style {
        core::Dim dim = core::Dim::Tp;
        ColorBy colorBy = ColorBy::Group;
        int selectedGroup = -1; // of `dim`; its members are highlighted, the rest faded
        int hoveredGpu = -1;
        QColor background = Qt::white;
        QColor text = Qt::black;
        QColor domainFill = QColor(0xf2, 0xf2, 0xf2);
        QColor domainBorder = QColor(0xa0, 0xa0, 0xa0);
    };

    void setEvaluation(EvaluationPtr evaluation);
    const EvaluationPtr& evaluation() const { return m_evaluation; }
    void layout(QSizeF available);
    const ClusterLayout& clusterLayout() const { return m_layout; }

    void paint(QPainter& painter, const Style& style) const;

    // Ranks shown: the rank map exists and rank r runs on GPU r for r < world.
    bool hasRankMap() const;
    int rankOfGpu(int gpu) const; // -1 when the GPU runs no rank
    int groupOfGpu(core::Dim dim, int gpu) const; // -1 without a group
    std::vector<int> groupMembers(core::Dim dim, int group) const; // GPU indices
    QString toolTip(int gpu, core::Dim dim) const; // rank, coordinates, group, domain
    // One line per finding about `dim`: groups leaving their domain, and the engine's warnings on it.
    QStringList problems(core::Dim dim) const;
    QString legend(const Style& style) const;

    // Whether a group of `dim` leaving its NVLink domain is a problem: TP, CP and EP collectives sit on
    // the critical path of every layer; PP and DP are laid across domains by design.
    static bool crossingIsProblem(core::Dim dim);
    static ColorBy defaultColorBy(core::Dim dim); // by stage for PP, by group otherwise
    // For dimensions that span domains by design: how many groups do (not a problem).
    QStringList information(core::Dim dim) const;
    static QString dimName(core::Dim dim); // "TP"
    static int coordinate(const core::RankCoords& c, core::Dim dim);

private:
    EvaluationPtr m_evaluation;
    ClusterLayout m_layout;
    std::vector<int> m_gpusPerDomain;
};

} // namespace parallax::ui
