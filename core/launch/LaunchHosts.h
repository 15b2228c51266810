// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/cluster/Topology.h"

namespace parallax::core {

// The hosts a launcher (torchrun, srun, mpirun, a serving engine's --nnodes) starts processes on. A
// scenario's node is its NVLink domain, which is one host except at rack scale, where the GPU preset
// states its host size (GpuSpec::gpusPerHost: a GB200 NVL72 domain spans 18 compute trays of 4 GPUs).
struct LaunchHosts {
    int hosts = 1;
    int gpusPerHost = 1;
    int gpusPerDomain = 1;
    bool domainSpansHosts() const { return gpusPerDomain > gpusPerHost; }
};

LaunchHosts launchHosts(const Topology& t);

} // namespace parallax::core
