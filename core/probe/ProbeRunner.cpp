// SPDX-License-Identifier: Apache-2.0
#include "core/probe/ProbeRunner.h"

#include "core/probe/CollectiveBench.h"
#include "core/probe/CudaBuffers.h"
#include "core/probe/CudaCheck.h"
#include "core/probe/DeviceInfo.h"
#include "core/probe/GemmBench.h"
#include "core/probe/MemoryBench.h"
#include "core/probe/NcclLibrary.h"
#include "core/probe/ProbeExitCodes.h"
#include "core/probe/ProbeOutput.h"

#include <cstdio>
#include <exception>
#include <memory>

#ifndef PARALLAX_VERSION
#define PARALLAX_VERSION "unknown"
#endif

namespace {

namespace core = parallax::core;
using parallax::probe::CollectiveOp;
using parallax::probe::Summary;

constexpr double kTera = 1e12, kGiga = 1e9;

core::Calibration::Percentiles percentiles(const Summary& s)
{
    return { s.p10, s.p90 };
}

const char* dtypeText(core::DType d)
{
    return d == core::DType::Fp8 ? "fp8" : "bf16";
}

core::CollectiveKind collectiveKind(CollectiveOp op)
{
    switch (op) {
    case CollectiveOp::AllReduce:
        return core::CollectiveKind::AllReduce;
    case CollectiveOp::AllGather:
        return core::CollectiveKind::AllGather;
    case CollectiveOp::ReduceScatter:
        return core::CollectiveKind::ReduceScatter;
    case CollectiveOp::AllToAll:
        return core::CollectiveKind::AllToAll;
    }
    return core::CollectiveKind::AllReduce;
}

std::string sizeText(long bytes)
{
    char buffer[32];
    if (bytes >= (1L << 30))
        std::snprintf(buffer, sizeof buffer, "%.0f GiB", bytes / double(1L << 30));
    else if (bytes >= (1L << 20))
        std::snprintf(buffer, sizeof buffer, "%.0f MiB", bytes / double(1L << 20));
    else
        std::snprintf(buffer, sizeof buffer, "%.0f KiB", bytes / 1024.0);
    return buffer;
}

// A section of rates: its title, then the columns printRate fills (aligned with the GEMM table).
void printSection(const std::string& title)
{
    std::printf("\n%s\n  %-50s %9s %9s %9s\n", title.c_str(), "", "median", "p10", "p90");
    std::fflush(stdout);
}

void printRate(const char* label, const Summary& s, double unit)
{
    std::printf("  %-50s %9.1f %9.1f %9.1f\n", label, s.median / unit, s.p10 / unit, s.p90 / unit);
    std::fflush(stdout);
}

} // namespace

namespace parallax::probe {

ProbeRunner::ProbeRunner(const ProbeOptions& options, int deviceCount)
    : m_options(options)
    , m_deviceCount(deviceCount)
{
}

void ProbeRunner::guarded(const std::string& what, const std::function<void()>& measure)
{
    if (m_deviceBroken) {
        m_calibration.failures.push_back({ what, "skipped: the device is in an error state after an earlier failure" });
        return;
    }
    try {
        measure();
    } catch (const std::exception& e) { // ProbeError from CUDA / cuBLAS / NCCL, or bad_alloc on the host
        m_calibration.failures.push_back({ what, e.what() });
        std::printf("  %-50s FAILED: %s\n", what.c_str(), e.what());
        std::fflush(stdout);
        // Errors such as an illegal address are sticky: every later call would fail the same way.
        cudaGetLastError();
        for (int d = 0; d < m_deviceCount && !m_deviceBroken; ++d) {
            if (cudaSetDevice(d) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
                m_deviceBroken = true;
        }
        cudaSetDevice(0);
    }
}

void ProbeRunner::printHeader() const
{
    const core::Calibration& c = m_calibration;
    std::printf("parallax-probe %s on %s x%d (compute %s, %d SMs, %.1f GB, SM %.0f MHz, memory %.0f MHz)\n",
        PARALLAX_VERSION, c.gpuName.c_str(), c.gpuCount, c.computeCapability.c_str(), c.smCount,
        c.gpuMemoryBytes / kGiga, c.smClockMHz, c.memoryClockMHz);
    std::printf("driver %s, CUDA runtime %s; %d timed repeats after %d warm-up runs: median, p10, p90\n",
        c.driver.c_str(), c.cudaRuntime.c_str(), m_plan.repeats, m_plan.warmup);
    for (const std::string& s : m_plan.skipped)
        std::printf("skipped: %s\n", s.c_str());
    std::fflush(stdout);
}

void ProbeRunner::runGemms()
{
    CudaStream stream;
    GemmBench bench(stream.get(), /*tuneAlgorithms=*/!m_options.quick, m_plan.verifySamples);
    const TimingOptions timing { m_plan.warmup, m_plan.repeats };
    std::printf("\nGEMM, cuBLASLt, fp32 accumulation, bf16 output (TFLOP/s)\n");
    std::printf("  %-20s %-5s %7s %7s %7s %9s %9s %9s  %s\n", "label", "dtype", "m", "n", "k", "median", "p10", "p90",
        "check: error/bound");
    for (const GemmShape& shape : m_plan.gemms) {
        char what[128];
        std::snprintf(what, sizeof what, "gemm %s %s %ldx%ldx%ld", dtypeText(shape.dtype), shape.label.c_str(), shape.m,
            shape.n, shape.k);
        guarded(what, [&] {
            const GemmMeasurement m = bench.measure(shape, timing);
            core::Calibration::GemmPoint p;
            p.m = shape.m;
            p.n = shape.n;
            p.k = shape.k;
            p.dtype = shape.dtype;
            p.label = shape.label;
            p.flopsPerSecond = m.flopsPerSecond.median;
            p.percentiles = percentiles(m.flopsPerSecond);
            p.spread = (m.flopsPerSecond.p90 - m.flopsPerSecond.p10) / m.flopsPerSecond.median;
            p.maxErrorToBound = m.verify.worstRatio;
            m_calibration.gemm.push_back(p);
            std::printf("  %-20s %-5s %7ld %7ld %7ld %9.1f %9.1f %9.1f  ok %.3f\n", shape.label.c_str(),
                dtypeText(shape.dtype), shape.m, shape.n, shape.k, m.flopsPerSecond.median / kTera,
                m.flopsPerSecond.p10 / kTera, m.flopsPerSecond.p90 / kTera, m.verify.worstRatio);
            std::fflush(stdout);
        });
    }

    const AttentionPlan& a = m_plan.attention;
    printSection("Attention GEMM parts, bf16: " + std::to_string(a.batch) + " x " + std::to_string(a.heads)
        + " heads x " + std::to_string(a.seqLen) + " tokens x head dim " + std::to_string(a.headDim) + " (TFLOP/s)");
    guarded("attention", [&] {
        const GemmMeasurement m = bench.measureAttention(a, timing);
        m_calibration.attentionFlopsPerSecond = m.flopsPerSecond.median;
        m_calibration.attentionPercentiles = percentiles(m.flopsPerSecond);
        m_calibration.attentionShape
            = { static_cast<int>(a.batch), static_cast<int>(a.heads), a.seqLen, static_cast<int>(a.headDim) };
        printRate("scores + context", m.flopsPerSecond, kTera);
    });
}

void ProbeRunner::runMemory()
{
    CudaStream stream;
    const TimingOptions timing { m_plan.warmup, m_plan.repeats };
    printSection("Memory (GB/s)");
    guarded("hbm", [&] {
        const HbmMeasurement m = measureHbm(stream.get(), m_plan.hbmBufferBytes, m_calibration.smCount, timing);
        m_calibration.hbmBufferBytes = static_cast<double>(m_plan.hbmBufferBytes);
        m_calibration.hbmBytesPerSecond = m.streamBytesPerSecond.median;
        m_calibration.hbmPercentiles = percentiles(m.streamBytesPerSecond);
        m_calibration.deviceCopyBytesPerSecond = m.deviceCopyBytesPerSecond.median;
        m_calibration.deviceCopyPercentiles = percentiles(m.deviceCopyBytesPerSecond);
        printRate("HBM streaming kernel (read + written)", m.streamBytesPerSecond, kGiga);
        printRate("cudaMemcpy device-to-device (read + written)", m.deviceCopyBytesPerSecond, kGiga);
    });
    guarded("host copies", [&] {
        const HostCopyMeasurement m = measureHostCopies(stream.get(), m_plan.copyBufferBytes, timing);
        m_calibration.copyBufferBytes = static_cast<double>(m_plan.copyBufferBytes);
        m_calibration.hostToDeviceBytesPerSecond = m.hostToDeviceBytesPerSecond.median;
        m_calibration.hostToDevicePercentiles = percentiles(m.hostToDeviceBytesPerSecond);
        m_calibration.deviceToHostBytesPerSecond = m.deviceToHostBytesPerSecond.median;
        m_calibration.deviceToHostPercentiles = percentiles(m.deviceToHostBytesPerSecond);
        printRate("host-to-device, pinned", m.hostToDeviceBytesPerSecond, kGiga);
        printRate("device-to-host, pinned", m.deviceToHostBytesPerSecond, kGiga);
    });
}

void ProbeRunner::runPeers()
{
    if (!m_plan.peers)
        return;
    const TimingOptions timing { m_plan.warmup, m_plan.repeats };
    printSection("Peer copies, cudaMemcpyPeerAsync " + sizeText(m_plan.copyBufferBytes) + " (GB/s)");
    std::vector<double> medians;
    for (int source = 0; source < m_deviceCount; ++source) {
        for (int destination = 0; destination < m_deviceCount; ++destination) {
            if (source == destination)
                continue;
            const std::string what = "peer " + std::to_string(source) + " -> " + std::to_string(destination);
            guarded(what, [&] {
                const PeerMeasurement m = measurePeerCopy(source, destination, m_plan.copyBufferBytes, timing);
                m_calibration.peers.push_back(
                    { source, destination, m.bytesPerSecond.median, percentiles(m.bytesPerSecond) });
                medians.push_back(m.bytesPerSecond.median);
                printRate((what + (m.directAccess ? "" : " (no P2P: through host)")).c_str(), m.bytesPerSecond, kGiga);
            });
        }
    }
    if (!medians.empty()) {
        const Summary overPairs = summarize(medians);
        m_calibration.peerBytesPerSecond = overPairs.median;
        m_calibration.peerPercentiles = percentiles(overPairs);
        m_calibration.copyBufferBytes = static_cast<double>(m_plan.copyBufferBytes);
        printRate("all pairs (median of the pair medians)", overPairs, kGiga);
    }
}

void ProbeRunner::runCollectives()
{
    if (!m_plan.collectives || m_plan.collectiveBytes.empty())
        return;
    NcclLibrary nccl;
    std::string error;
    if (!nccl.load(NcclLibrary::defaultName(), error)) {
        m_calibration.failures.push_back({ "nccl", error });
        return;
    }
    const TimingOptions timing { m_plan.warmup, m_plan.repeats };
    printSection("NCCL " + nccl.versionText() + " collectives over " + std::to_string(m_deviceCount)
        + " GPUs, bus bandwidth (GB/s)");
    std::unique_ptr<CollectiveBench> bench;
    guarded("nccl init",
        [&] { bench = std::make_unique<CollectiveBench>(nccl, m_deviceCount, m_plan.collectiveBytes.back()); });
    if (!bench)
        return;
    for (CollectiveOp op : m_plan.collectiveOps) {
        for (long bytes : m_plan.collectiveBytes) {
            const std::string what = std::string(collectiveOpName(op)) + " " + sizeText(bytes);
            guarded(what, [&] {
                const CollectiveMeasurement m = bench->measure(op, bytes, timing);
                m_calibration.collectives.push_back({ collectiveKind(op), m.ranks, static_cast<double>(m.bytes),
                    m.busBytesPerSecond.median, percentiles(m.busBytesPerSecond) });
                printRate(what.c_str(), m.busBytesPerSecond, kGiga);
            });
        }
    }
}

int ProbeRunner::run()
{
    PROBE_CUDA(cudaSetDevice(0));
    const GpuInfo gpu = queryGpu(0);
    m_facts.known = true;
    m_facts.count = m_deviceCount;
    m_facts.ccMajor = gpu.ccMajor;
    m_facts.ccMinor = gpu.ccMinor;
    if (m_deviceCount >= 2) {
        NcclLibrary probeLoad;
        std::string ignored;
        m_facts.ncclLoaded = probeLoad.load(NcclLibrary::defaultName(), ignored);
    }
    m_plan = buildProbePlan(m_options, m_facts);

    core::Calibration& c = m_calibration;
    c.probeVersion = PARALLAX_VERSION;
    c.date = utcTimestamp();
    c.gpuName = gpu.name;
    c.gpuCount = m_deviceCount;
    c.computeCapability = std::to_string(gpu.ccMajor) + "." + std::to_string(gpu.ccMinor);
    c.smCount = gpu.smCount;
    c.gpuMemoryBytes = gpu.memoryBytes;
    c.smClockMHz = gpu.smClockMHz;
    c.memoryClockMHz = gpu.memoryClockMHz;
    c.driver = driverText();
    c.cudaRuntime = runtimeText();
    c.warmup = m_plan.warmup;
    c.repeats = m_plan.repeats;

    if (m_options.list) {
        std::printf("%s x%d (compute %s)\n", c.gpuName.c_str(), m_deviceCount, c.computeCapability.c_str());
        std::fputs(describePlan(m_plan, m_facts).c_str(), stdout);
        return kExitOk;
    }
    printHeader();
    // The sections guard each measurement; these outer guards catch a failed setup (handle, stream).
    guarded("gemm setup", [this] { runGemms(); });
    guarded("memory setup", [this] { runMemory(); });
    runPeers();
    runCollectives();

    std::string error;
    if (!writeFileAtomically(m_options.out, core::writeCalibration(c), error)) {
        std::fprintf(stderr, "parallax-probe: %s\n", error.c_str());
        return kExitError;
    }
    std::printf("\n%zu GEMM points, %zu collective points, %zu failures; wrote %s\n", c.gemm.size(),
        c.collectives.size(), c.failures.size(), m_options.out.c_str());
    for (const core::Calibration::Failure& f : c.failures)
        std::printf("failed: %s: %s\n", f.what.c_str(), f.reason.c_str());
    return c.failures.empty() ? kExitOk : kExitMeasurementFailed;
}

} // namespace parallax::probe
