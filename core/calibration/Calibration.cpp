// SPDX-License-Identifier: Apache-2.0
#include "core/calibration/Calibration.h"
#include "core/calibration/CalibrationFormat.h"
#include "core/io/BoundedRead.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <tuple>

// Queries the engine asks of a calibration, and the writer of the file format (docs/probe.md);
// the strict reader is CalibrationReader.cpp.

namespace {

using parallax::core::Calibration;
using namespace parallax::core::calibration_format;

// Six significant digits: measurements spread by about a percent, so more digits are noise.
double rounded(double v)
{
    if (v == 0 || !std::isfinite(v))
        return v;
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", v);
    return std::strtod(buffer, nullptr);
}

using OrderedJson = nlohmann::ordered_json;

void putRate(OrderedJson& j, const std::string& prefix, double median, const Calibration::Percentiles& p, double unit)
{
    j[prefix + "_median"] = rounded(median / unit);
    if (p.known()) {
        j[prefix + "_p10"] = rounded(p.p10 / unit);
        j[prefix + "_p90"] = rounded(p.p90 / unit);
    }
}

// Byte counts as JSON integers; clamped to what the reader accepts (2^53) so that no value the
// engine holds can turn into a file its own reader rejects (llround of 1e72 is undefined).
long long asInteger(double v)
{
    constexpr double kMaxExact = 9007199254740992.0; // 2^53
    if (!(v > 0))
        return 0;
    return static_cast<long long>(std::llround(std::min(v, kMaxExact)));
}

} // namespace

namespace parallax::core {

std::optional<double> Calibration::gemmFlopsPerSecond(long m, long n, long k, DType dtype) const
{
    if (m <= 0 || n <= 0 || k <= 0)
        return std::nullopt;
    const double logFlops = std::log(2.0 * m * n * k);
    // Nearest in log-FLOPs; among points of equal FLOPs, the nearest in shape (log-ratio per dim),
    // since a skinny GEMM of the same FLOPs runs slower than a square one.
    const GemmPoint* best = nullptr;
    std::tuple<double, double> bestKey { std::numeric_limits<double>::infinity(), 0.0 };
    for (const GemmPoint& p : gemm) {
        if (p.dtype != dtype || p.flopsPerSecond <= 0 || p.m <= 0 || p.n <= 0 || p.k <= 0)
            continue;
        const double flopsDistance = std::abs(std::log(2.0 * p.m * p.n * p.k) - logFlops);
        const double shapeDistance = std::abs(std::log(static_cast<double>(p.m) / m))
            + std::abs(std::log(static_cast<double>(p.n) / n)) + std::abs(std::log(static_cast<double>(p.k) / k));
        const std::tuple<double, double> key { std::round(flopsDistance * 1e9) / 1e9, shapeDistance };
        if (!best || key < bestKey) {
            best = &p;
            bestKey = key;
        }
    }
    return best ? std::optional<double>(best->flopsPerSecond) : std::nullopt;
}

std::optional<double> Calibration::peakGemmFlopsPerSecond(DType dtype) const
{
    std::optional<double> peak;
    for (const GemmPoint& p : gemm) {
        if (p.dtype == dtype && p.flopsPerSecond > 0 && (!peak || p.flopsPerSecond > *peak))
            peak = p.flopsPerSecond;
    }
    return peak;
}

std::optional<double> Calibration::collectiveBusBytesPerSecond(CollectiveKind kind, double bytes) const
{
    // Without a group size, use the largest group measured: the probe's full-node run.
    int ranks = 0;
    for (const CollectivePoint& p : collectives) {
        if (p.kind == kind && p.busBytesPerSecond > 0)
            ranks = std::max(ranks, p.ranks);
    }
    return ranks > 0 ? collectiveBusBytesPerSecond(kind, ranks, bytes) : std::nullopt;
}

std::optional<double> Calibration::collectiveBusBytesPerSecond(CollectiveKind kind, int ranks, double bytes) const
{
    if (!(bytes > 0) || ranks <= 0)
        return std::nullopt;
    const CollectivePoint* best = nullptr;
    std::tuple<double, double> bestKey { std::numeric_limits<double>::infinity(), 0.0 };
    for (const CollectivePoint& p : collectives) {
        if (p.kind != kind || p.busBytesPerSecond <= 0 || p.ranks <= 0 || !(p.bytes > 0))
            continue;
        const std::tuple<double, double> key { std::abs(std::log(static_cast<double>(p.ranks) / ranks)),
            std::abs(std::log(p.bytes / bytes)) };
        if (!best || key < bestKey) {
            best = &p;
            bestKey = key;
        }
    }
    return best ? std::optional<double>(best->busBytesPerSecond) : std::nullopt;
}

std::optional<Calibration> loadCalibrationFile(const std::string& path, std::string& error)
{
    std::string text;
    if (!io::readFileBounded(path, text, error))
        return std::nullopt;
    auto c = readCalibration(text, error);
    if (!c) {
        error = path + ": " + error;
        return std::nullopt;
    }
    c->path = path;
    return c;
}

std::string writeCalibration(const Calibration& c)
{
    OrderedJson j;
    j["format"] = kFormat;
    j["version"] = kVersion;
    if (!c.probeVersion.empty())
        j["probe_version"] = c.probeVersion;
    j["date"] = c.date;

    OrderedJson gpu;
    gpu["name"] = c.gpuName;
    if (c.gpuCount > 0)
        gpu["count"] = c.gpuCount;
    if (!c.computeCapability.empty())
        gpu["compute_capability"] = c.computeCapability;
    if (c.smCount > 0)
        gpu["sm_count"] = c.smCount;
    if (c.gpuMemoryBytes > 0)
        gpu["memory_bytes"] = asInteger(c.gpuMemoryBytes);
    if (c.smClockMHz > 0)
        gpu["sm_clock_mhz"] = rounded(c.smClockMHz);
    if (c.memoryClockMHz > 0)
        gpu["memory_clock_mhz"] = rounded(c.memoryClockMHz);
    if (!c.driver.empty())
        gpu["driver"] = c.driver;
    if (!c.cudaRuntime.empty())
        gpu["cuda_runtime"] = c.cudaRuntime;
    j["gpu"] = gpu;

    if (c.repeats > 0)
        j["method"] = OrderedJson { { "warmup", c.warmup }, { "repeats", c.repeats } };

    if (!c.gemm.empty()) {
        OrderedJson gemm = OrderedJson::array();
        for (const Calibration::GemmPoint& p : c.gemm) {
            OrderedJson g;
            if (!p.label.empty())
                g["label"] = p.label;
            g["m"] = p.m;
            g["n"] = p.n;
            g["k"] = p.k;
            g["dtype"] = dtypeName(p.dtype);
            Calibration::Percentiles percentiles = p.percentiles;
            if (!percentiles.known() && p.spread > 0) // only a relative spread given: centre it on the median
                percentiles = { p.flopsPerSecond * (1 - p.spread / 2), p.flopsPerSecond * (1 + p.spread / 2) };
            putRate(g, "tflops", p.flopsPerSecond, percentiles, kTflops);
            if (p.maxErrorToBound > 0)
                g["max_error_to_bound"] = rounded(p.maxErrorToBound);
            gemm.push_back(g);
        }
        j["gemm"] = gemm;
    }

    if (c.attentionFlopsPerSecond) {
        OrderedJson a;
        a["batch"] = c.attentionShape.batch;
        a["heads"] = c.attentionShape.heads;
        a["seq_len"] = c.attentionShape.seqLen;
        a["head_dim"] = c.attentionShape.headDim;
        putRate(a, "tflops", *c.attentionFlopsPerSecond, c.attentionPercentiles, kTflops);
        j["attention"] = a;
    }

    if (c.hbmBytesPerSecond || c.deviceCopyBytesPerSecond) {
        OrderedJson h;
        if (c.hbmBufferBytes > 0)
            h["buffer_bytes"] = asInteger(c.hbmBufferBytes);
        if (c.hbmBytesPerSecond)
            putRate(h, "stream_gb_per_s", *c.hbmBytesPerSecond, c.hbmPercentiles, kGbPerS);
        if (c.deviceCopyBytesPerSecond)
            putRate(h, "device_copy_gb_per_s", *c.deviceCopyBytesPerSecond, c.deviceCopyPercentiles, kGbPerS);
        j["hbm"] = h;
    }

    if (c.hostToDeviceBytesPerSecond || c.deviceToHostBytesPerSecond || c.peerBytesPerSecond || !c.peers.empty()) {
        OrderedJson cp;
        if (c.copyBufferBytes > 0)
            cp["buffer_bytes"] = asInteger(c.copyBufferBytes);
        if (c.hostToDeviceBytesPerSecond)
            putRate(cp, "host_to_device_gb_per_s", *c.hostToDeviceBytesPerSecond, c.hostToDevicePercentiles, kGbPerS);
        if (c.deviceToHostBytesPerSecond)
            putRate(cp, "device_to_host_gb_per_s", *c.deviceToHostBytesPerSecond, c.deviceToHostPercentiles, kGbPerS);
        if (c.peerBytesPerSecond)
            putRate(cp, "peer_gb_per_s", *c.peerBytesPerSecond, c.peerPercentiles, kGbPerS);
        if (!c.peers.empty()) {
            OrderedJson peers = OrderedJson::array();
            for (const Calibration::PeerPoint& p : c.peers) {
                OrderedJson e;
                e["src"] = p.source;
                e["dst"] = p.destination;
                putRate(e, "gb_per_s", p.bytesPerSecond, p.percentiles, kGbPerS);
                peers.push_back(e);
            }
            cp["peer"] = peers;
        }
        j["copies"] = cp;
    }

    if (!c.collectives.empty()) {
        OrderedJson coll = OrderedJson::array();
        for (const Calibration::CollectivePoint& p : c.collectives) {
            OrderedJson e;
            e["kind"] = kindName(p.kind);
            e["ranks"] = p.ranks;
            e["bytes"] = asInteger(p.bytes);
            putRate(e, "bus_gb_per_s", p.busBytesPerSecond, p.percentiles, kGbPerS);
            coll.push_back(e);
        }
        j["collectives"] = coll;
    }

    if (!c.failures.empty()) {
        OrderedJson failures = OrderedJson::array();
        for (const Calibration::Failure& f : c.failures)
            failures.push_back(OrderedJson { { "what", f.what }, { "reason", f.reason } });
        j["failures"] = failures;
    }
    return j.dump(2) + "\n";
}

} // namespace parallax::core
