// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/Topology.h"

#include "core/Units.h"
#include "core/cluster/FabricPath.h"

#include <algorithm>

namespace parallax::core {

Topology Topology::regular(const GpuSpec& gpu, int nodes, int gpusPerNode, double nicGbps, int nicsPerNode)
{
    Topology t;
    Fabric fabric;
    fabric.name = "ib0";
    fabric.nicGbps = nicGbps;
    fabric.nicsPerDomain = nicsPerNode;
    for (int n = 0; n < nodes; ++n) {
        t.domains.push_back({ "node" + std::to_string(n), gpu, gpusPerNode, 0 });
        fabric.domains.push_back(n);
    }
    if (nodes > 0)
        t.fabrics.push_back(fabric);
    return t;
}

Topology::Topology(const Topology& other)
    : domains(other.domains)
    , fabrics(other.fabrics)
    , m_summary(other.m_summary.load())
{
}

Topology::Topology(Topology&& other) noexcept
    : domains(std::move(other.domains))
    , fabrics(std::move(other.fabrics))
    , m_summary(other.m_summary.load())
{
}

Topology& Topology::operator=(const Topology& other)
{
    if (this != &other) {
        domains = other.domains;
        fabrics = other.fabrics;
        invalidate(); // the versions moved on: what was computed is recomputed once
    }
    return *this;
}

Topology& Topology::operator=(Topology&& other) noexcept
{
    if (this != &other) {
        domains = std::move(other.domains);
        fabrics = std::move(other.fabrics);
        invalidate();
    }
    return *this;
}

Topology::~Topology() = default;

std::shared_ptr<const TopologySummary> Topology::cachedSummary() const
{
    const std::shared_ptr<const SummaryCache> c = m_summary.load();
    if (!c || c->domainsVersion != domains.version() || c->fabricsVersion != fabrics.version())
        return nullptr;
    return c->summary;
}

void Topology::storeSummary(std::shared_ptr<const TopologySummary> summary) const
{
    auto c = std::make_shared<SummaryCache>();
    c->domainsVersion = domains.version();
    c->fabricsVersion = fabrics.version();
    c->summary = std::move(summary);
    m_summary.store(std::move(c));
}

void Topology::invalidate()
{
    m_domainStartValid = false;
    m_summary.store(nullptr);
}

void Topology::rebuildCache() const
{
    m_domainStart.assign(domains.size() + 1, 0);
    for (std::size_t d = 0; d < domains.size(); ++d)
        m_domainStart[d + 1] = m_domainStart[d] + std::max(0, domains[d].gpuCount);
    m_domainStartVersion = domains.version();
    m_domainStartValid = true;
}

void Topology::ensureDomainStart() const
{
    if (!m_domainStartValid || m_domainStartVersion != domains.version() || m_domainStart.size() != domains.size() + 1)
        rebuildCache();
}

Topology::DomainScan Topology::scanDomains() const
{
    DomainScan scan;
    const std::size_t n = domains.size();
    m_domainStart.resize(n + 1);
    m_domainStart[0] = 0;
    if (n == 0) {
        m_domainStartVersion = domains.version();
        m_domainStartValid = true;
        return scan;
    }
    const NvlinkDomain& front = domains.front();
    scan.firstSize = front.gpuCount;
    scan.firstNvlink = nvlinkBytesPerSecond(0);
    scan.slowestDomain = 0;
    scan.minHbmBytes = front.gpu.hbmBytes;
    double slowestFlops = front.gpu.bf16FlopsPerSecond;
    // Bitwise & rather than &&: one pass without early exits, few branches (runs per evaluation, over
    // up to 65,536 domains).
    bool sameSize = front.gpuCount > 0, sameNvlink = true;
    int gpus = 0;
    for (std::size_t d = 0; d < n; ++d) {
        const NvlinkDomain& dom = domains[d];
        gpus += std::max(0, dom.gpuCount);
        m_domainStart[d + 1] = gpus;
        const double nvlink = dom.nvlinkBytesPerSecond > 0 ? dom.nvlinkBytesPerSecond : dom.gpu.nvlinkBytesPerSecond;
        sameSize = sameSize & (dom.gpuCount == scan.firstSize);
        sameNvlink = sameNvlink & (nvlink == scan.firstNvlink);
        if (dom.gpu.bf16FlopsPerSecond < slowestFlops) {
            slowestFlops = dom.gpu.bf16FlopsPerSecond;
            scan.slowestDomain = static_cast<int>(d);
        }
        scan.minHbmBytes = std::min(scan.minHbmBytes, dom.gpu.hbmBytes);
    }
    m_domainStartVersion = domains.version();
    m_domainStartValid = true;
    scan.gpus = gpus;
    scan.uniformSize = sameSize;
    scan.uniformNvlink = sameNvlink;
    return scan;
}

int Topology::gpuCount() const
{
    ensureDomainStart();
    return m_domainStart.back();
}

GpuLocation Topology::locate(int gpu) const
{
    ensureDomainStart();
    if (gpu < 0 || gpu >= m_domainStart.back())
        return {};
    const auto it = std::upper_bound(m_domainStart.begin(), m_domainStart.end(), gpu);
    const int domain = static_cast<int>(it - m_domainStart.begin()) - 1;
    return { domain, gpu - m_domainStart[domain] };
}

const GpuSpec& Topology::gpuSpec(int gpu) const
{
    const GpuLocation loc = locate(gpu);
    return domains[loc.domain < 0 ? 0 : loc.domain].gpu;
}

int Topology::fabricOfDomain(int domain) const
{
    // The first fabric usually lists its domains in order (the regular form, the editor), so domain d
    // is at position d: O(1) instead of a scan, which made connected() quadratic in the domains.
    const auto at = static_cast<std::size_t>(domain);
    if (!fabrics.empty() && at < fabrics[0].domains.size() && fabrics[0].domains[at] == domain)
        return 0;
    for (std::size_t f = 0; f < fabrics.size(); ++f) {
        if (std::find(fabrics[f].domains.begin(), fabrics[f].domains.end(), domain) != fabrics[f].domains.end())
            return static_cast<int>(f);
    }
    return -1;
}

std::vector<int> Topology::fabricsOfDomain(int domain) const
{
    std::vector<int> out;
    for (std::size_t f = 0; f < fabrics.size(); ++f) {
        if (std::find(fabrics[f].domains.begin(), fabrics[f].domains.end(), domain) != fabrics[f].domains.end())
            out.push_back(static_cast<int>(f));
    }
    return out;
}

double Topology::nvlinkBytesPerSecond(int domain) const
{
    const NvlinkDomain& d = domains[domain];
    return d.nvlinkBytesPerSecond > 0 ? d.nvlinkBytesPerSecond : d.gpu.nvlinkBytesPerSecond;
}

double Topology::scaleOutBytesPerSecondPerGpu(int domain) const
{
    const int f = fabricOfDomain(domain);
    if (f < 0)
        return 0;
    const Fabric& fabric = fabrics[f];
    const int gpus = std::max(1, domains[domain].gpuCount);
    const int nics = fabric.nicsPerDomain > 0 ? fabric.nicsPerDomain : gpus;
    // Each GPU's share of the domain's NICs, reduced by the fabric's oversubscription.
    const double perGpu = gbpsToBytesPerSecond(fabric.nicGbps) * nics / gpus;
    return perGpu / std::max(1.0, fabric.oversubscription);
}

double Topology::scaleOutLatencySeconds(int domain) const
{
    const int f = fabricOfDomain(domain);
    return f < 0 ? 0 : fabrics[f].latencySeconds;
}

double Topology::p2pBytesPerSecond(int gpuA, int gpuB) const
{
    const int da = domainOf(gpuA);
    const int db = domainOf(gpuB);
    if (da == db)
        return nvlinkBytesPerSecond(da);
    return routeBetween(*this, gpuA, gpuB).link.bytesPerSecond;
}

double Topology::p2pLatencySeconds(int gpuA, int gpuB) const
{
    const int da = domainOf(gpuA);
    const int db = domainOf(gpuB);
    constexpr double kNvlinkLatencySeconds = 2e-6; // NCCL LL protocol intra-node, order of a microsecond
    if (da == db)
        return kNvlinkLatencySeconds;
    return routeBetween(*this, gpuA, gpuB).link.latencySeconds;
}

LinkLevel Topology::p2pLink(int gpuA, int gpuB) const
{
    const int da = domainOf(gpuA);
    const int db = domainOf(gpuB);
    constexpr double kNvlinkLatencySeconds = 2e-6; // as p2pLatencySeconds
    if (da == db)
        return { nvlinkBytesPerSecond(da), kNvlinkLatencySeconds };
    return routeBetween(*this, gpuA, gpuB).link;
}

bool Topology::connected() const
{
    if (domains.size() <= 1)
        return true;
    return fabricsConnectAllDomains(*this);
}

} // namespace parallax::core
