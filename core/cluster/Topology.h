// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/cluster/Collectives.h"
#include "core/cluster/GpuSpec.h"
#include "core/cluster/VersionedList.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace parallax::core {

// GPUs that share an NVLink/NVSwitch domain (an HGX node, an NVL72 rack).
struct NvlinkDomain {
    std::string name;
    GpuSpec gpu;
    int gpuCount = 0;
    double nvlinkBytesPerSecond = 0; // per GPU per direction; 0 means the GPU's datasheet value
};

// A scale-out network joining domains (InfiniBand / RoCE).
struct Fabric {
    std::string name;
    double nicGbps = 400; // per NIC
    int nicsPerDomain = 0; // 0 means one NIC per GPU (HGX)
    double latencySeconds = 5e-6;
    double oversubscription = 1.0; // >= 1; bisection divided by this
    // Rail-optimised (NVIDIA DGX SuperPOD reference architecture): NIC i of every domain sits on rail
    // switch i, so same-rail traffic crosses one non-blocking leaf and `oversubscription` applies only
    // to cross-rail traffic, which climbs to the spine unless NCCL's PXN moves it over NVLink first.
    bool railOptimized = true;
    bool pxn = true; // NCCL_PXN_DISABLE=0, NCCL's default since 2.12
    std::vector<int> domains; // indices into Topology::domains; a domain may sit on several fabrics
};

struct TopologySummary;

struct GpuLocation {
    int domain = -1;
    int indexInDomain = -1;
};

// GPUs grouped into NVLink domains, domains into fabrics. The order of domains, then of GPUs
// inside a domain, is the global rank order of the GPUs.
class Topology {
public:
    // Every edit through these advances their versions (VersionedList), which is how the summary
    // and the GPU table below know they must be recomputed.
    VersionedList<NvlinkDomain> domains;
    VersionedList<Fabric> fabrics;

    Topology() = default;
    Topology(const Topology& other);
    Topology(Topology&& other) noexcept;
    Topology& operator=(const Topology& other);
    Topology& operator=(Topology&& other) noexcept;
    ~Topology();

    // Regular cluster: `nodes` domains of `gpusPerNode` GPUs on one fabric.
    static Topology regular(const GpuSpec& gpu, int nodes, int gpusPerNode, double nicGbps, int nicsPerNode = 0);

    int gpuCount() const;
    // What one pass over the domains finds (TopologySummary::of reads it); the pass also refreshes the
    // table that locate() reads, as gpuCount() does.
    struct DomainScan {
        int gpus = 0; // gpuCount()
        int firstSize = 0; // GPUs of the first domain
        bool uniformSize = false; // every domain has firstSize > 0 GPUs
        bool uniformNvlink = false; // every domain's nvlinkBytesPerSecond() equals the first one's
        double firstNvlink = 0;
        int slowestDomain = -1; // first domain with the lowest bf16 peak; -1 without domains
        double minHbmBytes = 0; // smallest HBM of any domain's GPU
    };
    DomainScan scanDomains() const;
    GpuLocation locate(int gpu) const; // gpu in [0, gpuCount())
    int domainOf(int gpu) const { return locate(gpu).domain; }
    const GpuSpec& gpuSpec(int gpu) const;
    int fabricOfDomain(int domain) const; // the first fabric holding it; -1 when on none
    std::vector<int> fabricsOfDomain(int domain) const; // every fabric holding it, in order

    double nvlinkBytesPerSecond(int domain) const;
    // Per-GPU share of the scale-out bandwidth leaving a domain, per direction.
    double scaleOutBytesPerSecondPerGpu(int domain) const;
    double scaleOutLatencySeconds(int domain) const;
    // Point-to-point bandwidth between two GPUs (NVLink inside a domain, else the best scale-out path
    // over a fabric both domains sit on, rails included: core/cluster/FabricPath.h).
    double p2pBytesPerSecond(int gpuA, int gpuB) const;
    double p2pLatencySeconds(int gpuA, int gpuB) const;
    // Both at once (one route lookup): bytesPerSecond as p2pBytesPerSecond, latencySeconds as
    // p2pLatencySeconds.
    LinkLevel p2pLink(int gpuA, int gpuB) const;
    // Whether every domain pair shares a fabric (or there is only one domain).
    bool connected() const;

    // TopologySummary::of's last result for this content, or null when the domains or fabrics changed
    // since (their versions differ). Safe to read and store from several threads.
    std::shared_ptr<const TopologySummary> cachedSummary() const;
    void storeSummary(std::shared_ptr<const TopologySummary> summary) const;

    // Forgets what was computed from the content (the edits through domains / fabrics do this already).
    void invalidate();

private:
    struct SummaryCache {
        std::uint64_t domainsVersion = 0;
        std::uint64_t fabricsVersion = 0;
        std::shared_ptr<const TopologySummary> summary;
    };
    mutable std::atomic<std::shared_ptr<const SummaryCache>> m_summary;
    mutable std::vector<int> m_domainStart; // prefix sums of the domains' GPUs, rebuilt when they change
    mutable std::uint64_t m_domainStartVersion = 0;
    mutable bool m_domainStartValid = false;
    void rebuildCache() const;
    void ensureDomainStart() const;
};

} // namespace parallax::core
