// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace parallax::core {

enum class CollectiveKind { AllReduce, AllGather, ReduceScatter, AllToAll, P2P };
const char* toString(CollectiveKind k);

// One level of links a collective runs over: per-direction bus bandwidth of the slowest link
// the group crosses, and the per-step latency (alpha).
struct LinkLevel {
    double bytesPerSecond = 0;
    double latencySeconds = 0;
};

// Alpha-beta collective times (ring algorithms; Thakur et al., "Optimization of Collective
// Communication Operations in MPICH", IJHPCA 2005; NCCL's bus-bandwidth convention).
// `bytes` is the full buffer size S (for all-gather: the gathered output).
double ringCollectiveSeconds(CollectiveKind kind, int ranks, double bytes, LinkLevel link);

// Two-level hierarchical variant NCCL uses when a group spans domains: reduce-scatter inside each
// domain over NVLink, the cross-domain collective over IB on 1/inner of the data, all-gather
// inside. `inner` ranks per domain, `outer` domains. Returns the faster of flat ring (bounded by
// the IB link) and hierarchical.
double hierarchicalCollectiveSeconds(
    CollectiveKind kind, int inner, int outer, double bytes, LinkLevel intra, LinkLevel inter);

} // namespace parallax::core
