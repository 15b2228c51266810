// SPDX-License-Identifier: Apache-2.0
#include "core/launch/LaunchHosts.h"

#include <algorithm>

namespace parallax::core {

LaunchHosts launchHosts(const Topology& t)
{
    LaunchHosts h;
    if (t.domains.empty())
        return h;
    const NvlinkDomain& first = t.domains.front();
    h.gpusPerDomain = std::max(1, first.gpuCount);
    constexpr int kGb200GpusPerTray = 4;
    h.gpusPerHost = first.gpu.id == "gb200" ? std::min(h.gpusPerDomain, kGb200GpusPerTray) : h.gpusPerDomain;
    const int gpus = t.gpuCount();
    h.hosts = std::max(1, (gpus + h.gpusPerHost - 1) / h.gpusPerHost);
    return h;
}

} // namespace parallax::core
