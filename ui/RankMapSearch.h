// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/cluster/Topology.h"

#include <QString>
#include <vector>

namespace parallax::ui {

// What the rank map's search box finds: "rank 517" (the GPU that runs it), "gpu 12", a domain by
// name ("node77", any case), or a bare number (a rank). `error` says what was not understood.
struct RankMapMatch {
    std::vector<int> gpus; // global GPU indices; a domain gives all of its GPUs
    QString description; // "rank 517: GPU 517 in node64"
    QString error;
    bool found() const { return !gpus.empty(); }
};

RankMapMatch findInRankMap(const QString& query, const core::Topology& topology, int worldSize);

} // namespace parallax::ui
