// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/costs/CostModel.h"
#include "core/memory/ActivationMemory.h"

namespace parallax::core {

// Achieved all-to-all bandwidth of MoE dispatch and combine, as shares of the per-direction link
// bandwidth the collective model is given (datasheet NVLink, NIC line rate).
struct AllToAllEfficiency {
    // DeepEP normal kernels, intranode EP8 on H800: 153 GB/s dispatch, 158 GB/s combine of the 200 GB/s
    // per-direction NVLink (deepseek-ai/DeepEP README, "Normal kernels with NVLink and RDMA forwarding").
    double nvlinkFraction = 0.77;
    // The same table across nodes: 43 GB/s (EP16) to 46 GB/s (EP64) of a 400 Gb/s = 50 GB/s CX7 NIC.
    double scaleOutFraction = 0.86;
};

// The GPU's own NVLink share where its preset states a measurement of that GPU
// (GpuSpec::allToAllNvlinkFraction), else the default.
AllToAllEfficiency allToAllEfficiency(const GpuSpec& gpu);
// The same from the GPU's rates (ComputeRates::allToAllNvlinkFraction).
AllToAllEfficiency allToAllEfficiency(const ComputeRates& rates);
// The group at the bandwidth an all-to-all achieves on it: its NVLink and scale-out links scaled by `efficiency`
// (the MoE dispatch and combine, Ulysses' context-parallel exchange).
CommGroup achievedAllToAll(CommGroup group, const AllToAllEfficiency& efficiency);

// Where one token's top_k routed copies go, per token, in an EP group of `nodes` NVLink domains of
// `gpusPerNode` ranks each, the experts split evenly and in order over the ranks. Expert scores are taken as
// exchangeable (the balanced load that auxiliary losses and DeepSeek's bias terms aim for): picks uniform over
// the experts, or under group-limited routing the router's own rule (core/costs/GroupLimitedRouting.h).
struct RoutedFanout {
    double copies = 0; // top_k
    double nodes = 0; // expected distinct nodes (NVLink domains) holding at least one of its experts
    double gpus = 0; // expected distinct ranks holding at least one of its experts
    double remoteNodes = 0; // of `nodes`, those other than the sender's
    double remoteGpus = 0; // of `gpus`, those other than the sender
};
RoutedFanout routedFanout(const LayerShape& shape, int nodes, int gpusPerNode);

// Extra seconds compute takes while DeepEP's kernels hold `smShare` of the SMs next to it: the part of
// `compute` that runs alongside `comm` goes at (1 - smShare) of its rate (arXiv:2412.19437 sec. 3.2.2).
double dispatchSmSeconds(double compute, double comm, double smShare);
// Sets c's dispatcher fields from the training configuration: DeepEP's SM share of a GPU with `smCount` SMs,
// fp8 dispatch, and whether the dispatch runs next to compute (ep comm overlap or a DualPipe schedule).
void setDispatch(ActivationContext& c, const TrainingConfig& t, const ParallelConfig& p, int smCount);

// Seconds of one dispatch + combine pair of one micro-batch on the busiest rank. The all-to-all dispatcher
// sends every (token, expert) copy on its own; DeepEP sends a token once over InfiniBand to each remote node
// it needs and forwards it over NVLink there (deepseek-ai/DeepEP README; arXiv:2412.19437 sec. 3.2.2), the
// two links pipelined. `fp8Dispatch`: the dispatch moves 1-byte values plus a 4-byte scale per 128.
double dispatchCombineSeconds(const LayerShape& shape, const ActivationContext& c, const CommGroup& ep, double hidden,
    const AllToAllEfficiency& efficiency = {});

// One MoE layer's expert path on the busiest GPU, per micro-batch, in seconds. The router GEMM and
// the shared experts stay with the dense linears of the layer (LayerShape).
struct MoeLayerTimes {
    double routerForward = 0; // softmax, top-k and auxiliary-loss kernels over the router logits
    double routerBackward = 0;
    double permuteForward = 0; // token permutation before dispatch and un-permutation after combine
    double permuteBackward = 0;
    double expertForward = 0; // grouped GEMMs over the local experts
    double expertBackwardInput = 0;
    double expertBackwardWeight = 0;
    double allToAllForward = 0; // dispatch + combine (and the ETP gather / scatter of the routed tokens)
    double allToAllBackward = 0;
    double expertTensorGatherForward = 0; // the part of allToAllForward spent over the ETP group
    double dispatchForward = 0; // the dispatch + combine pair before any overlap (allToAll* after it)
    double dispatchBackward = 0;
    double forwardCompute() const { return routerForward + permuteForward + expertForward; }
    double backwardInputCompute() const { return routerBackward + permuteBackward + expertBackwardInput; }
};

// Experts held by one GPU of an expert-parallel group of `ep` ranks.
double localExperts(const LayerShape& shape, int ep);
// Token copies the busiest GPU's each local expert receives per micro-batch: tokens x top_k / experts
// summed over the EP group, times the load imbalance (Megatron-Core alltoall token dispatcher).
double tokensPerLocalExpert(const LayerShape& shape, const ActivationContext& c, int ep);
// Bytes one memory-bound permutation pass moves: it reads and writes every routed 16-bit token copy.
double permutePassBytes(const LayerShape& shape, const ActivationContext& c, double hidden);

// `etp`: the expert-tensor-parallel group (c.etp ranks); with c.etp > 1 the dispatcher gathers the routed
// tokens over it and scatters the outputs back.
MoeLayerTimes moeLayerTimes(const LayerShape& shape, const ActivationContext& c, const ComputeRates& rates,
    const CommGroup& ep, double hidden, bool allToAllOverlap, const AllToAllEfficiency& efficiency = {},
    const CommGroup& etp = {});

} // namespace parallax::core
