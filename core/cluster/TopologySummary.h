// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/cluster/GroupGeometry.h"
#include "core/cluster/Topology.h"

namespace parallax::core {

// What one evaluation needs to know about the whole topology, from one pass over its domains and
// fabrics: the GPU count, whether the domains are alike (DomainShape), the slowest GPU and the
// smallest HBM, and whether the fabrics connect every domain. A value, computed from a topology
// that does not change while it is read (evaluate() builds it once from its const Scenario), so it
// can never be stale; every field equals what the Topology member of the same name computes.
struct TopologySummary {
    int gpus = 0; // Topology::gpuCount()
    DomainShape shape; // DomainShape::of()
    int slowestDomain = -1; // first domain with the lowest bf16 peak; -1 without domains
    double minHbmBytes = 0; // smallest HBM of any domain's GPU
    bool connected = true; // Topology::connected()
    static TopologySummary of(const Topology& topology);
};

} // namespace parallax::core
