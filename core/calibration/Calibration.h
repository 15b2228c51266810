// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/cluster/Collectives.h"
#include "core/parallel/ParallelConfig.h"

#include <optional>
#include <string>
#include <vector>

namespace parallax::core {

// Measurements from parallax-probe that replace datasheet numbers. Every query returns nullopt
// when the probe did not measure that quantity; the engine then keeps its datasheet default.
// The JSON form ("format": "parallax-calibration", version 1) is specified in docs/probe.md.
struct Calibration {
    // 10th and 90th percentiles over the timed repeats, in the unit of the median beside them.
    // Both zero when unknown.
    struct Percentiles {
        double p10 = 0;
        double p90 = 0;
        bool known() const { return p90 > 0; }
    };
    struct GemmPoint {
        long m = 0, n = 0, k = 0;
        DType dtype = DType::Bf16;
        double flopsPerSecond = 0; // median
        double spread = 0; // relative (p90 - p10) / median
        std::string label; // what the shape is for ("qkv.fwd", "square"); display only
        Percentiles percentiles; // FLOP/s
        double maxErrorToBound = 0; // verification: worst sampled |D - reference| / bound; <= 1 passed
    };
    struct CollectivePoint {
        CollectiveKind kind = CollectiveKind::AllReduce;
        int ranks = 0;
        double bytes = 0;
        double busBytesPerSecond = 0; // NCCL bus-bandwidth convention
        Percentiles percentiles; // bus bytes/s
    };
    // One ordered GPU pair of cudaMemcpyPeer (bytes copied / time).
    struct PeerPoint {
        int source = 0;
        int destination = 0;
        double bytesPerSecond = 0; // median
        Percentiles percentiles;
    };
    // Shape of the attention measurement (scores and context GEMMs of one micro-batch on one GPU).
    struct AttentionShape {
        int batch = 0;
        int heads = 0; // per GPU (after tensor parallelism)
        long seqLen = 0;
        int headDim = 0;
    };
    // A planned measurement that produced no number (verification failed, CUDA error).
    struct Failure {
        std::string what;
        std::string reason;
    };

    std::string path; // file it came from (shown in reports)
    std::string gpuName;
    std::string driver;
    std::string date;
    std::vector<GemmPoint> gemm;
    std::optional<double> hbmBytesPerSecond; // streaming kernel, read + written bytes
    std::optional<double> deviceCopyBytesPerSecond;
    std::optional<double> hostToDeviceBytesPerSecond;
    std::optional<double> deviceToHostBytesPerSecond;
    std::optional<double> peerBytesPerSecond; // GPU<->GPU, per direction, median over pairs
    std::optional<double> attentionFlopsPerSecond;
    std::vector<CollectivePoint> collectives;

    // Provenance of the run (the "gpu" and "method" objects of the JSON).
    std::string probeVersion;
    std::string cudaRuntime;
    int gpuCount = 0;
    std::string computeCapability; // "9.0"
    int smCount = 0;
    double gpuMemoryBytes = 0;
    double smClockMHz = 0; // peak, as the device reports it
    double memoryClockMHz = 0;
    int warmup = 0;
    int repeats = 0;

    // Spreads of the scalar measurements above, and their buffer sizes.
    Percentiles hbmPercentiles;
    Percentiles deviceCopyPercentiles;
    double hbmBufferBytes = 0;
    Percentiles hostToDevicePercentiles;
    Percentiles deviceToHostPercentiles;
    Percentiles peerPercentiles; // over pairs
    double copyBufferBytes = 0;
    std::vector<PeerPoint> peers;
    Percentiles attentionPercentiles;
    AttentionShape attentionShape;
    std::vector<Failure> failures;

    // Achievable FLOP/s for an (m x k) * (k x n) GEMM, interpolated from the measured points
    // (nearest in log-FLOPs among points of the same dtype).
    std::optional<double> gemmFlopsPerSecond(long m, long n, long k, DType dtype) const;
    // Largest measured GEMM throughput of a dtype (the "achievable peak").
    std::optional<double> peakGemmFlopsPerSecond(DType dtype) const;
    // Bus bandwidth of a collective at the nearest measured message size.
    std::optional<double> collectiveBusBytesPerSecond(CollectiveKind kind, double bytes) const;
    // Same, preferring points measured with the nearest number of ranks (then the nearest size).
    std::optional<double> collectiveBusBytesPerSecond(CollectiveKind kind, int ranks, double bytes) const;
};

// Strict reader: on failure returns nullopt and sets `error` to "<json path>: <problem>".
// Unknown keys are errors (a misspelt key would otherwise silently drop a measurement).
std::optional<Calibration> readCalibration(const std::string& jsonText, std::string& error);
std::optional<Calibration> loadCalibrationFile(const std::string& path, std::string& error);
std::string writeCalibration(const Calibration& c); // pretty JSON, the format the probe writes

} // namespace parallax::core
