#pragma once

#include "core/Collectives.h"
#include "core/ParallelConfig.h"

#include <optional>
#include <string>
#include <vector>

namespace parallax::core {

// Measurements from parallax-probe that replace datasheet numbers. Every query returns nullopt
// when the probe did not measure that quantity; the engine then keeps its datasheet default.
struct Calibration {
    struct GemmPoint {
        long m = 0, n = 0, k = 0;
        DType dtype = DType::Bf16;
        double flopsPerSecond = 0; // median
        double spread = 0; // relative (p90 - p10) / median
    };
    struct CollectivePoint {
        CollectiveKind kind = CollectiveKind::AllReduce;
        int ranks = 0;
        double bytes = 0;
        double busBytesPerSecond = 0; // NCCL bus-bandwidth convention
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

    // Achievable FLOP/s for an (m x k) * (k x n) GEMM, interpolated from the measured points
    // (nearest in log-FLOPs among points of the same dtype).
    std::optional<double> gemmFlopsPerSecond(long m, long n, long k, DType dtype) const;
    // Largest measured GEMM throughput of a dtype (the "achievable peak").
    std::optional<double> peakGemmFlopsPerSecond(DType dtype) const;
    // Bus bandwidth of a collective at the nearest measured message size.
    std::optional<double> collectiveBusBytesPerSecond(CollectiveKind kind, double bytes) const;
};

// Strict reader: on failure returns nullopt and sets `error` to "<json path>: <problem>".
std::optional<Calibration> readCalibration(const std::string& jsonText, std::string& error);
std::optional<Calibration> loadCalibrationFile(const std::string& path, std::string& error);
std::string writeCalibration(const Calibration& c); // pretty JSON, the format the probe writes

} // namespace parallax::core
