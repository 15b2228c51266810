// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/model/LayerShape.h"
#include "core/parallel/ParallelConfig.h"

namespace parallax::core {

// What one GPU sees of one micro-batch.
struct ActivationContext {
    double seqLen = 0; // full sequence length s
    double microBatch = 1; // b
    int tp = 1;
    bool sp = false;
    int cp = 1;
    CpCommType cpCommType = CpCommType::P2p; // ParallelConfig::cpCommType
    int cpA2aSize = 0; // ParallelConfig::cpA2aSize: the all-to-all level of a2a+p2p
    int etp = 1;
    Recompute recompute = Recompute::None;
    // The submodules selective recompute re-runs (recompute_module bits; read only under Selective).
    unsigned recomputeModules = recompute_module::kDefault;
    double expertLoadImbalance = 1.0; // busiest GPU's routed tokens / mean
    bool flashAttention = true; // fused attention: the s x s scores are neither stored nor written to HBM
    bool tpCommOverlap = false; // TP collectives pipelined with the adjacent GEMMs
    // FP8 GEMMs (Transformer Engine): each linear saves its input for the weight gradient already cast
    // to fp8, 1 byte per element, instead of the 16-bit tensor.
    bool fp8 = false;
    bool swigluFp8InputStore = false; // TrainingConfig::activationFuncFp8InputStore
    bool deepseekActivationCache = false; // TrainingConfig::deepseekActivationCache
    // MoE token dispatch (TrainingConfig::moeTokenDispatcher, deepseekFp8Dispatch) and the share of the SMs
    // DeepEP's kernels hold (moeDeepepNumSms / SMs; 0 without DeepEP). epCommConcurrent: the dispatch and
    // combine run while other compute does (--overlap-moe-expert-parallel-comm, or DualPipe's pairing).
    MoeDispatcher dispatcher = MoeDispatcher::AllToAll;
    bool fp8Dispatch = false;
    double dispatchSmShare = 0;
    bool epCommConcurrent = false;
};

// The modules this context's selective recompute re-runs; 0 unless recompute is Selective.
unsigned recomputedModules(const ActivationContext& c);

// Bytes of activations one layer stores for the backward, per micro-batch, counted tensor by tensor
// (16-bit activations, 1-byte dropout masks, and only when the model has dropout; fp8 linear inputs
// under Transformer Engine FP8). For the GPT block this reproduces arXiv:2205.05198
// Table 2: sbh(34 + 5as/h), sbh(10 + 24/t + 5as/(ht)), (sbh/t)(34 + 5as/h), and with selective
// recompute the same without the 5as/h term; full recompute keeps the layer input only. Selective
// recompute of other modules (training.recompute_modules) subtracts selectiveRecomputeFreedBytes.
double layerActivationBytes(const ModelSpec& m, const LayerShape& shape, const ActivationContext& c);
// Bytes that selective recompute's modules free of layerActivationBytesWithoutRecompute, per
// micro-batch: what each checkpoint does not keep (Megatron-Core transformer_layer.py, experts.py,
// multi_latent_attention.py; under FP8 the consumer of a discarded output saves that output, not
// an fp8 copy: extensions/transformer_engine.py set_save_original_input).
double selectiveRecomputeFreedBytes(const ModelSpec& m, const LayerShape& shape, const ActivationContext& c);
// The layer's full stored activations regardless of recompute (the transient peak while one layer
// is recomputed under full recompute).
double layerActivationBytesWithoutRecompute(const ModelSpec& m, const LayerShape& shape, const ActivationContext& c);
// Bytes held between a zero-bubble schedule's B and W passes: the inputs and output-gradients of
// every linear (arXiv:2401.10241 Table 1: M_W = 32 sbh for the GPT block).
double layerWPendingBytes(const ModelSpec& m, const LayerShape& shape, const ActivationContext& c);
// The part of layerActivationBytes that the routed token copies store (the dispatched inputs and the
// expert MLP's tensors): the routed terms are linear in c.expertLoadImbalance, so it is the difference to
// the same layer with no routed load.
double routedActivationBytes(const ModelSpec& m, const LayerShape& shape, const ActivationContext& c);
// The busiest GPU's routed load over the mean, summed over the `moeLayers` MoE layers whose activations a
// pipeline rank stores, given the per-layer factor `perLayer` (EfficiencyDefaults::expertLoadImbalance,
// which times one layer's slowest GPU). Each layer routes with its own router onto its own experts, so the
// loads a GPU gets in different layers are independent and their sum spreads 1/sqrt(n) as much around the
// mean (central limit theorem): the same extreme over the EP group is 1 + (perLayer - 1) / sqrt(n).
double storedRoutedLoadFactor(double perLayer, double moeLayers);
// One MoE layer's stored activations on a rank holding `moeLayers` MoE layers: the routed part at
// storedRoutedLoadFactor instead of the per-layer factor.
double rankMoeLayerActivationBytes(double layerBytes, double routedBytes, double perLayer, double moeLayers);
// Tokens of one micro-batch on one GPU before MoE dispatch (s b / cp, / tp with sequence parallelism).
double localTokens(const ActivationContext& c);
// Token copies the busiest GPU's experts process per micro-batch.
double routedTokensPerGpu(const LayerShape& shape, const ActivationContext& c);

} // namespace parallax::core
