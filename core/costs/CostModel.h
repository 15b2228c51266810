// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/cluster/Collectives.h"
#include "core/cluster/GpuSpec.h"
#include "core/costs/DataParallelSync.h"
#include "core/memory/ActivationMemory.h"
#include "core/model/LayerShape.h"

namespace parallax::core {

struct Calibration;

// Stated defaults for achievable speed, used when no probe calibration is given. Datasheet peaks
// are not reached by real kernels; these fractions are typical published measurements.
struct EfficiencyDefaults {
    // Share of the dense peak large bf16 GEMMs sustain, for a GPU whose preset states none
    // (presets/gpus: gemm_fraction_of_peak, 0.80 on A100 and 0.65 on H100, each with its source).
    // The probe measures the real value.
    double gemmFractionOfPeak = 0.70;
    // GEMM efficiency falls with the reduction depth k: each output tile pays a prologue (filling the
    // shared-memory pipeline) and an epilogue (writing C) worth about gemmDepthOverhead 16-bit elements of k (one
    // main-loop stage) (NVIDIA "Matrix Multiplication Background" user's guide: small-k GEMMs are less efficient).
    // A stage holds a fixed number of bytes of k, so it spans twice the elements in fp8 (CUTLASS's sm90
    // tile K: 64 for 16-bit, 128 for 8-bit inputs); the H200 probe data (data/probe/h200-2026-12-04) show
    // fp8 GEMMs with k = 256 at half their large-k rate.
    double gemmDepthOverhead = 64;
    // Every kernel costs a launch gap on the stream, ~3 us in eager PyTorch (CUDA C Best Practices
    // Guide, "kernel launch overhead"); a transformer layer runs about 16 kernels forward and 32 backward.
    double kernelLaunchSeconds = 3e-6;
    int forwardKernelsPerLayer = 16;
    int backwardKernelsPerLayer = 32;
    // FP8 GEMMs reach a smaller share of their doubled peak (~1,100-1,300 of 1,979 TFLOP/s with
    // Transformer Engine's per-tensor scaling); the probe measures the real value.
    double fp8GemmFractionOfPeak = 0.60;
    // Fused attention: FlashAttention-2 reaches 35-50% and FlashAttention-3 up to 75% of the H100
    // bf16 peak in the forward, less in the backward (arXiv:2407.08608 sec. 4.1). Stated default 0.5.
    double attentionFractionOfPeak = 0.5;
    // Memory-bound kernels reach ~90% of HBM bandwidth (STREAM-like copies; NVIDIA H100 datasheet).
    double hbmFractionOfPeak = 0.9;
    // The element-wise, normalisation and softmax kernels of a transformer layer are short, launch-
    // bound and partly reduction-shaped: they sustain about half the bandwidth of a streaming copy.
    // The profiled forward passes of arXiv:2401.10241 Table 6 (A100, GPT layers, h = 2304-6144) minus
    // their weight-gradient GEMM time leave 1.8-2.0x what 90% of the HBM peak would take. The share is of
    // that default stream (0.9 x 0.55 = 0.50 of the datasheet on every GPU): on one H200 the probe
    // measured norms at 0.43-0.47 and fused SwiGLU / residual adds at 0.81 (data/probe/h200-2026-12-04).
    double layerKernelShareOfStream = 0.55;
    // Busiest expert's load over the mean; GShard's capacity factor 1.25 bounds it in training
    // (arXiv:2006.16668 sec. 2.2). DeepSeek-V3's auxiliary-loss-free balancing keeps it near 1.
    double expertLoadImbalance = 1.25;
    // Fraction of an all-to-all that DualPipe's F&B pairing hides behind the other chunk's
    // compute (arXiv:2412.19437 sec. 3.2.1: "both all-to-all and PP communication can be fully hidden").
    double dualPipeCommHidden = 1.0;
    // A pipeline send is an NCCL send/recv pair, which runs on a couple of channels (one CTA each)
    // rather than on every NVLink lane: arXiv:2401.10241 Table 6 profiles 0.38-0.76 ms for 10-28 MB
    // activations between A100s in one node, 28-47 GB/s. Stated cap: 40 GB/s per send.
    double pipelineSendBytesPerSecond = 40e9;
};

// One pipeline send of `bytes` over a link (latency, per-direction bandwidth), with the NCCL p2p cap.
double pipelineSendSeconds(
    double bytes, double linkLatencySeconds, double linkBytesPerSecond, const EfficiencyDefaults& d);

// A serving GEMM's time and which side of the roofline bounds it (the weights' HBM stream or the math).
struct GemmSplit {
    double seconds = 0;
    bool trafficBound = false;
};

// Achievable rates of one GPU: datasheet x defaults, or a calibration's measurements.
class ComputeRates {
public:
    ComputeRates(const GpuSpec& gpu, DType dtype, const Calibration* calibration, const EfficiencyDefaults& defaults);

    double gemmSeconds(double m, double n, double k, double count = 1) const; // count GEMMs in one batched launch
    double waveEfficiency(double m, double n, double count = 1) const;
    // The share of the large-GEMM rate an m x n x k GEMM reaches: the tiles' waves (or stream-K's even
    // split of the K loop, where the GPU does it) and the per-tile depth overhead.
    double shapeEfficiency(double m, double n, double k, double count = 1) const;
    // `groups` GEMMs of m x n x k run as one grouped kernel (an MoE layer's local experts, m the tokens
    // one expert gets): each group's last row tile part-filled, and the weights streamed per group at an
    // overlap with the math below the roofline's (measured on one H200, data/probe/h200-2026-12-04/kernels.json).
    double groupedGemmSeconds(double m, double n, double k, double groups) const;
    // A serving GEMM whose weights (B) are stored at `weightBytes` per element (fp8, int4, nvfp4 formats);
    // groups > 1: a grouped kernel over that many experts, m tokens each.
    GemmSplit servingGemm(double m, double n, double k, double weightBytes, double groups = 1) const;
    double attentionSeconds(double flops) const;
    // Fused causal attention whose kernel sees `keys` keys per query row (the sequence, or a CP chunk).
    double causalAttentionSeconds(double flops, double keys) const;
    double causalAttentionEfficiency(double keys) const;
    double memorySeconds(double bytes) const; // streaming kernels (optimizer, loss, copies)
    double layerKernelSeconds(double bytes) const; // element-wise / norm / softmax kernels inside a layer
    double launchSeconds() const { return m_launchSeconds; }
    double peakFlopsPerSecond() const { return m_peak; }
    double gemmFlopsPerSecond() const { return m_gemmRate; } // the large-GEMM rate of the GEMM dtype
    double hbmBytesPerSecond() const { return m_hbmRate; }
    // The MoE all-to-all's share of NVLink the GPU's preset states; 0: AllToAllEfficiency's default.
    double allToAllNvlinkFraction() const { return m_allToAllNvlinkFraction; }
    bool gemmCalibrated() const { return m_calibration != nullptr && m_hasGemmCalibration; }
    // The same GPU's rates for 16-bit GEMMs. Under FP8 training only Transformer Engine's modules run
    // in fp8; Megatron-Core's LM head (tensor_parallel.ColumnParallelLinear in gpt_model.py), its MoE
    // router (router_gating_linear) and unfused attention's batched GEMMs stay in bf16.
    ComputeRates sixteenBit() const;

private:
    double gemmComputeSeconds(double m, double n, double k, double count) const;
    double groupedComputeSeconds(double m, double n, double k, double groups) const;
    double gemmTrafficSeconds(double m, double n, double k, double weightBytes) const; // A, B and C once through HBM
    static double gemmTime(double computeSeconds, double trafficSeconds); // the two sides of the roofline combined
    double elementBytes() const { return m_dtype == DType::Fp8 ? 1.0 : 2.0; }
    double fp8CastSeconds(double m, double k) const; // the fp8 cast of an m x k input, 0 in 16 bits
    double m_peak = 0; // dense peak of the GEMM dtype
    double m_gemmRate = 0;
    double m_peak16 = 0; // the bf16 peak and GEMM rate, for sixteenBit()
    double m_gemmRate16 = 0;
    double m_attentionRate = 0;
    double m_attentionKeyOverhead = 0;
    double m_hbmRate = 0;
    double m_allToAllNvlinkFraction = 0; // GpuSpec::allToAllNvlinkFraction (0: the default)
    double m_depthOverhead = 0; // in elements of k of the GEMM dtype
    double m_depthOverhead16 = 0;
    double m_layerKernelRate = 0;
    int m_smCount = 0;
    bool m_streamK = false;
    double m_launchSeconds = 0;
    DType m_dtype = DType::Bf16;
    const Calibration* m_calibration = nullptr;
    bool m_hasGemmCalibration = false;
    bool m_hasGemmCalibration16 = false;
};

// A communicator's geometry: `inner` members per NVLink domain over `outer` domains.
struct CommGroup {
    int size = 1;
    int inner = 1;
    int outer = 1;
    LinkLevel intra;
    LinkLevel inter;
    double seconds(CollectiveKind kind, double bytes) const;
    double flatRingSeconds(CollectiveKind kind, double bytes) const; // one ring over all members
    // The sub-group of its first n adjacent members (TP's expert-tensor-parallel ranks, a2a+p2p's all-to-all level).
    CommGroup firstMembers(int n) const;
};

// A pipeline rank's DP collectives for its dense and expert parameters (ZeRO 0-3 traffic);
// gradients are reduced in fp32 or in the 16-bit training dtype.
DpCollectives dpCollectives(
    const CommGroup& dp, const CommGroup& edp, double denseParams, double expertParams, bool gradReduceInFp32);
// Only what ZeRO stage `zero` runs (dataParallelSync reads): the all-reduce at 0, the reduce-scatter and
// all-gather at 1-2, the flat rings at 3; the other fields stay 0.
DpCollectives dpCollectives(const CommGroup& dp, const CommGroup& edp, double denseParams, double expertParams,
    bool gradReduceInFp32, int zero);

// Per micro-batch times of one transformer layer on one GPU, seconds.
struct LayerTimes {
    double forwardCompute = 0;
    double backwardInputCompute = 0;
    double backwardWeightCompute = 0;
    double recomputeCompute = 0; // extra forward work done in the backward
    double tpForward = 0; // exposed TP/SP collectives
    double tpBackward = 0;
    double cpForward = 0;
    double cpBackward = 0;
    double epForward = 0; // all-to-all dispatch + combine
    double epBackward = 0;
    double forward() const { return forwardCompute + tpForward + cpForward + epForward; }
    double backwardInput() const
    {
        return backwardInputCompute + recomputeCompute + tpBackward + cpBackward + epBackward;
    }
    double backwardWeight() const { return backwardWeightCompute; }
};

struct LayerCommGroups {
    CommGroup tp;
    CommGroup cp;
    CommGroup ep;
};

// epCommOverlap: the MoE all-to-alls run behind other compute (--overlap-moe-expert-parallel-comm).
LayerTimes layerTimes(const ModelSpec& m, const LayerShape& shape, const ActivationContext& c,
    const ComputeRates& rates, const LayerCommGroups& groups, const EfficiencyDefaults& defaults,
    bool epCommOverlap = false);

// The fused causal attention kernel's forward seconds per micro-batch for the layers of the shape's kind (dense
// or MoE): one windowed layer, one full-attention layer, and the share of the kind's layers that are windowed.
struct WindowedAttention {
    double windowed = 0;
    double full = 0;
    double windowedShare = 0;
    double mean() const { return windowedShare * windowed + (1.0 - windowedShare) * full; }
};
WindowedAttention fusedAttentionByWindow(
    const ModelSpec& m, const LayerShape& shape, const ActivationContext& c, const ComputeRates& rates);

// The same averaged over the kind's layers.
double fusedAttentionSeconds(
    const ModelSpec& m, const LayerShape& shape, const ActivationContext& c, const ComputeRates& rates);

// The exposed seconds of one layer's context-parallel communication per micro-batch (ActivationContext::cpCommType):
// the ring behind the attention, the all_gather on the layers it runs on, or Ulysses' all-to-alls.
struct CpTimes {
    double forward = 0;
    double backward = 0; // with the forward's exchange again where the attention core is recomputed
};
// The cp ranks one all-to-all spans: cp under a2a, the first hierarchical level under a2a+p2p, 1 otherwise.
int cpAllToAllRanks(CpCommType type, int cp, int a2aSize);
int cpAllToAllRanks(const ActivationContext& c);
// The keys one fused attention kernel call of a full-attention layer sees at `seqLen` tokens: s/cp chunks on the
// ring, the whole sequence after Ulysses' all-to-all or the all_gather (a2a+p2p: a2a-level-fold chunks).
double attentionKernelKeys(double seqLen, CpCommType type, int cp, int a2aSize);
CpTimes contextParallelTimes(const ModelSpec& m, const LayerShape& shape, const ActivationContext& c,
    const ComputeRates& rates, const CommGroup& group, const WindowedAttention& byWindow);

// The attention core without a fused kernel (batched GEMMs and memory-bound softmax/dropout).
struct UnfusedAttention {
    double forward = 0;
    double backward = 0;
};
UnfusedAttention unfusedAttentionSeconds(
    const ModelSpec& m, const LayerShape& shape, const ActivationContext& c, const ComputeRates& rates);

// Forward FLOPs one GPU spends on one layer per micro-batch (its share), for HFU bookkeeping.
double layerAttentionScoreFlops(const LayerShape& shape, const ActivationContext& c);

// LM head (logits GEMM + loss) per micro-batch on the last stage: forward and backward seconds.
struct HeadTimes {
    double forward = 0;
    double backwardInput = 0;
    double backwardWeight = 0;
};
HeadTimes lmHeadTimes(const ModelSpec& m, const ActivationContext& c, const ComputeRates& rates, const CommGroup& tp);
// One multi-token-prediction depth beside its block and head pass: the norms of the hidden state and of
// the next token's embedding, their concatenation and the 2h -> h projection (arXiv:2412.19437 sec. 2.2,
// eq. 21); zero without MTP.
HeadTimes mtpProjectionTimes(const ModelSpec& m, const ActivationContext& c, const ComputeRates& rates);

} // namespace parallax::core
