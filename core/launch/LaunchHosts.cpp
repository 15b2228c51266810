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
    h.gpusPerHost = first.gpu.gpusPerHost > 0 ? std::min(h.gpusPerDomain, first.gpu.gpusPerHost) : h.gpusPerDomain;
    const int gpus = t.gpuCount();
    h.hosts = std::max(1, (gpus + h.gpusPerHost - 1) / h.gpusPerHost);
    return h;
}

} // namespace parallax::core
