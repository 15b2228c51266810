// SPDX-License-Identifier: Apache-2.0
#include "core/probe/MemoryBench.h"

#include "core/probe/CudaBuffers.h"
#include "core/probe/CudaCheck.h"
#include "core/probe/ProbeKernels.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

constexpr int kStreamBlocksPerSm = 8; // 8 x 256 threads fill an SM (2048 threads on sm_80 / sm_90)

// Compares a few windows of the two buffers (any devices or pinned host: unified addressing).
void checkCopy(const void* source, const void* destination, std::size_t bytes, const char* what)
{
    constexpr std::size_t window = 4096;
    std::vector<unsigned char> a(window), b(window);
    for (std::size_t offset : { std::size_t { 0 }, bytes / 3, bytes / 2, bytes - window }) {
        offset = offset / 16 * 16;
        PROBE_CUDA(cudaMemcpy(a.data(), static_cast<const unsigned char*>(source) + offset, window, cudaMemcpyDefault));
        PROBE_CUDA(
            cudaMemcpy(b.data(), static_cast<const unsigned char*>(destination) + offset, window, cudaMemcpyDefault));
        if (std::memcmp(a.data(), b.data(), window) != 0)
            PROBE_FAIL(std::string(what) + ": destination differs from source at byte " + std::to_string(offset));
    }
}

void fillHostRandom(void* data, std::size_t bytes)
{
    // xorshift64 (Marsaglia 2003): cheap non-zero bytes, so no path can shortcut a zero page.
    std::uint64_t state = 0x2545F4914F6CDD1DULL;
    auto* words = static_cast<std::uint64_t*>(data);
    for (std::size_t i = 0; i < bytes / 8; ++i) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        words[i] = state;
    }
}

std::size_t roundedBytes(long bytes)
{
    return static_cast<std::size_t>(bytes) / 4096 * 4096;
}

} // namespace

namespace parallax::probe {

HbmMeasurement measureHbm(cudaStream_t stream, long bufferBytes, int smCount, const TimingOptions& timing)
{
    const std::size_t bytes = roundedBytes(bufferBytes);
    DeviceBuffer source(bytes), destination(bytes);
    PROBE_CUDA(fillRandomBf16(source.data(), bytes / 2, 7, stream));
    PROBE_CUDA(fillRandomBf16(destination.data(), bytes / 2, 8, stream));
    const double moved = 2.0 * static_cast<double>(bytes); // each byte read once and written once
    const int blocks = smCount * kStreamBlocksPerSm;

    HbmMeasurement m;
    const auto kernelSeconds = timeLaunches(
        stream, timing, [&] { PROBE_CUDA(streamCopy(source.data(), destination.data(), bytes, blocks, stream)); });
    PROBE_CUDA(cudaStreamSynchronize(stream));
    checkCopy(source.data(), destination.data(), bytes, "streaming copy kernel");
    m.streamBytesPerSecond = summarize(ratesFromSeconds(moved, kernelSeconds));

    PROBE_CUDA(fillRandomBf16(destination.data(), bytes / 2, 9, stream));
    const auto copySeconds = timeLaunches(stream, timing, [&] {
        PROBE_CUDA(cudaMemcpyAsync(destination.data(), source.data(), bytes, cudaMemcpyDeviceToDevice, stream));
    });
    PROBE_CUDA(cudaStreamSynchronize(stream));
    checkCopy(source.data(), destination.data(), bytes, "cudaMemcpy device-to-device");
    m.deviceCopyBytesPerSecond = summarize(ratesFromSeconds(moved, copySeconds));
    return m;
}

HostCopyMeasurement measureHostCopies(cudaStream_t stream, long bufferBytes, const TimingOptions& timing)
{
    const std::size_t bytes = roundedBytes(bufferBytes);
    PinnedHostBuffer host(bytes);
    DeviceBuffer device(bytes);
    fillHostRandom(host.data(), bytes);
    HostCopyMeasurement m;
    const auto up = timeLaunches(stream, timing,
        [&] { PROBE_CUDA(cudaMemcpyAsync(device.data(), host.data(), bytes, cudaMemcpyHostToDevice, stream)); });
    PROBE_CUDA(cudaStreamSynchronize(stream));
    checkCopy(host.data(), device.data(), bytes, "host-to-device copy");
    m.hostToDeviceBytesPerSecond = summarize(ratesFromSeconds(static_cast<double>(bytes), up));

    PROBE_CUDA(fillRandomBf16(device.data(), bytes / 2, 11, stream));
    const auto down = timeLaunches(stream, timing,
        [&] { PROBE_CUDA(cudaMemcpyAsync(host.data(), device.data(), bytes, cudaMemcpyDeviceToHost, stream)); });
    PROBE_CUDA(cudaStreamSynchronize(stream));
    checkCopy(device.data(), host.data(), bytes, "device-to-host copy");
    m.deviceToHostBytesPerSecond = summarize(ratesFromSeconds(static_cast<double>(bytes), down));
    return m;
}

PeerMeasurement measurePeerCopy(int source, int destination, long bufferBytes, const TimingOptions& timing)
{
    const CurrentDeviceGuard restoreDevice; // declared first: runs after the buffers are freed
    const std::size_t bytes = roundedBytes(bufferBytes);
    PeerMeasurement m;
    int canAccess = 0;
    PROBE_CUDA(cudaDeviceCanAccessPeer(&canAccess, source, destination));
    m.directAccess = canAccess != 0;
    if (m.directAccess) {
        // Both directions, as CUDA's p2pBandwidthLatencyTest does; enabling twice is harmless.
        for (auto [from, to] : { std::pair { source, destination }, std::pair { destination, source } }) {
            PROBE_CUDA(cudaSetDevice(from));
            const cudaError_t status = cudaDeviceEnablePeerAccess(to, 0);
            if (status == cudaErrorPeerAccessAlreadyEnabled)
                cudaGetLastError(); // clear it: not an error here
            else
                PROBE_CUDA(status);
        }
    }
    PROBE_CUDA(cudaSetDevice(destination));
    DeviceBuffer target(bytes);
    // A pattern unlike the source's random data: a copy that never lands cannot pass the check.
    PROBE_CUDA(cudaMemset(target.data(), 0x5A, bytes));
    PROBE_CUDA(cudaDeviceSynchronize());
    PROBE_CUDA(cudaSetDevice(source));
    DeviceBuffer origin(bytes);
    CudaStream stream;
    PROBE_CUDA(fillRandomBf16(origin.data(), bytes / 2, 13, stream.get()));
    const auto seconds = timeLaunches(stream.get(), timing, [&] {
        PROBE_CUDA(cudaMemcpyPeerAsync(target.data(), destination, origin.data(), source, bytes, stream.get()));
    });
    PROBE_CUDA(cudaStreamSynchronize(stream.get()));
    checkCopy(origin.data(), target.data(), bytes, "peer copy");
    m.bytesPerSecond = summarize(ratesFromSeconds(static_cast<double>(bytes), seconds));
    return m;
}

} // namespace parallax::probe
