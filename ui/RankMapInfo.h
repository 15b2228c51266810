// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/cluster/RankMap.h"
#include "ui/Evaluation.h"

#include <QString>
#include <QStringList>
#include <vector>

namespace parallax::ui {

// What the rank map view says in words about an evaluation's rank map: which rank runs on a GPU,
// its groups, the problems and notes of a parallel dimension, and the tooltip of a GPU. The
// picture itself is painted by render::RankMapRenderer (shared with the exports).
class RankMapInfo {
public:
    void setEvaluation(EvaluationPtr evaluation);
    const EvaluationPtr& evaluation() const { return m_evaluation; }
    int gpuCount() const { return m_gpuCount; }

    // Ranks shown: the rank map exists and rank r runs on GPU r for r < world.
    bool hasRankMap() const;
    int rankOfGpu(int gpu) const; // -1 when the GPU runs no rank
    int groupOfGpu(core::Dim dim, int gpu) const; // -1 without a group
    std::vector<int> groupMembers(core::Dim dim, int group) const; // GPU indices
    QString toolTip(int gpu, core::Dim dim) const; // rank, coordinates, group, domain (rich text)
    // One line per finding about `dim`: groups leaving their domain, and the engine's warnings on it.
    QStringList problems(core::Dim dim) const;
    // For dimensions that span domains by design: how many groups do (not a problem); for every
    // dimension, the groups that cross a fabric boundary or change rail.
    QStringList information(core::Dim dim) const;
    QStringList fabricCrossings(core::Dim dim) const;

    // Whether a group of `dim` leaving its NVLink domain is a problem: TP, CP and EP collectives sit on
    // the critical path of every layer; PP and DP are laid across domains by design.
    static bool crossingIsProblem(core::Dim dim);

private:
    EvaluationPtr m_evaluation;
    int m_gpuCount = 0;
};

} // namespace parallax::ui
