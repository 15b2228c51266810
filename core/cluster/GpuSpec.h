// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace parallax::core {

// One GPU model as its datasheet states it. Bandwidths are per direction.
struct GpuSpec {
    std::string id; // preset identifier, e.g. "h100-sxm"
    std::string name; // display name
    double hbmBytes = 0;
    double hbmBytesPerSecond = 0;
    double bf16FlopsPerSecond = 0; // dense peak
    double fp8FlopsPerSecond = 0; // dense peak; 0 when the GPU has no fp8 tensor cores
    double nvlinkBytesPerSecond = 0; // per GPU per direction
    int nvlinkDomainSize = 8; // GPUs per NVLink domain in the usual system (8 on HGX, 72 on NVL72)
    double nicGbps = 400; // typical scale-out NIC per GPU
    // Share of the dense peak that large GEMMs sustain (cuBLAS, at the sustained clock); 0 means
    // EfficiencyDefaults. The probe's measurement replaces it.
    double gemmFractionOfPeak = 0;
    int smCount = 0; // streaming multiprocessors (compute units); 0: no wave-quantization model
    // The GPU's GEMM library spreads the K loop of a GEMM with too few output tiles over the idle SMs
    // (stream-K, arXiv:2301.03598), so the last partial wave costs no idle SMs; presets/gpus states
    // where this was measured (gemm_stream_k).
    bool gemmStreamK = false;
    // Fused causal attention (forward + backward) at long sequences as a share of the bf16 peak; 0: the
    // engine's default (EfficiencyDefaults::attentionFractionOfPeak). presets/gpus states the measurement.
    double attentionFractionOfPeak = 0;
    // Each query tile of a fused attention kernel pays a fixed cost (loading Q, the softmax rescale and
    // writing O) worth this many keys; 0: no such term (not measured on this GPU).
    double attentionKeyOverhead = 0;
    // A streaming kernel's share of the datasheet HBM bandwidth; 0: the engine's default
    // (EfficiencyDefaults::hbmFractionOfPeak). presets/gpus states the measurement.
    double hbmFractionOfPeak = 0;
    // The share of the per-direction NVLink bandwidth that the MoE dispatch and combine all-to-all reach
    // inside an NVLink domain; 0: the engine's default (AllToAllEfficiency, DeepEP on H800). presets/gpus
    // states the measurement (alltoall_nvlink_fraction).
    double allToAllNvlinkFraction = 0;
    // GPUs one host (one OS instance, where a launcher starts processes) holds, when fewer than the
    // NVLink domain (a rack-scale domain spans hosts); 0: a domain is one host. presets/gpus cites it.
    int gpusPerHost = 0;
    std::string source; // datasheet citation
};

} // namespace parallax::core
