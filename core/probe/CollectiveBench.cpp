// SPDX-License-Identifier: Apache-2.0
#include "core/probe/CollectiveBench.h"

#include "core/probe/CudaBuffers.h"
#include "core/probe/CudaCheck.h"
#include "core/probe/ProbeKernels.h"

#include <cstring>

namespace {

constexpr std::size_t kElementBytes = 2; // bf16
} // namespace

namespace parallax::probe {

#define PROBE_NCCL(call)                                                                                               \
    do {                                                                                                               \
        const int ncclStatus_ = (call);                                                                                \
        if (ncclStatus_ != NcclLibrary::kSuccess)                                                                      \
            PROBE_FAIL(std::string(#call) + ": " + m_nccl.errorText(ncclStatus_));                                     \
    } while (0)

CollectiveBench::CollectiveBench(const NcclLibrary& nccl, int deviceCount, long maxBytes)
    : m_nccl(nccl)
{
    const CurrentDeviceGuard restoreDevice;
    const int n = deviceCount;
    for (int d = 0; d < n; ++d)
        m_devices.push_back(d);
    m_comms.assign(static_cast<std::size_t>(n), nullptr);
    m_streams.assign(static_cast<std::size_t>(n), nullptr);
    m_send.assign(static_cast<std::size_t>(n), nullptr);
    m_recv.assign(static_cast<std::size_t>(n), nullptr);
    const std::size_t bytes = static_cast<std::size_t>(collectiveElements(maxBytes, n)) * kElementBytes;
    try {
        for (int d = 0; d < n; ++d) {
            PROBE_CUDA(cudaSetDevice(d));
            PROBE_CUDA(cudaStreamCreateWithFlags(&m_streams[d], cudaStreamNonBlocking));
            PROBE_CUDA(cudaMalloc(&m_send[d], bytes));
            PROBE_CUDA(cudaMalloc(&m_recv[d], bytes));
            PROBE_CUDA(
                fillRandomBf16(m_send[d], bytes / kElementBytes, 100 + static_cast<std::uint64_t>(d), m_streams[d]));
            PROBE_CUDA(
                fillRandomBf16(m_recv[d], bytes / kElementBytes, 200 + static_cast<std::uint64_t>(d), m_streams[d]));
            PROBE_CUDA(cudaStreamSynchronize(m_streams[d]));
        }
        PROBE_NCCL(m_nccl.commInitAll(m_comms.data(), n, m_devices.data()));
    } catch (...) {
        release(); // the destructor does not run for a constructor that throws
        throw;
    }
}

CollectiveBench::~CollectiveBench()
{
    release();
}

void CollectiveBench::release()
{
    const CurrentDeviceGuard restoreDevice;
    for (std::size_t d = 0; d < m_devices.size(); ++d) {
        cudaSetDevice(m_devices[d]);
        if (m_streams[d])
            cudaStreamSynchronize(m_streams[d]);
        if (m_comms[d])
            m_nccl.commDestroy(m_comms[d]);
        if (m_send[d])
            cudaFree(m_send[d]);
        if (m_recv[d])
            cudaFree(m_recv[d]);
        if (m_streams[d])
            cudaStreamDestroy(m_streams[d]);
        m_comms[d] = nullptr;
        m_send[d] = m_recv[d] = nullptr;
        m_streams[d] = nullptr;
    }
}

void CollectiveBench::enqueue(CollectiveOp op, long elements)
{
    const int n = static_cast<int>(m_devices.size());
    const std::size_t count = static_cast<std::size_t>(elements);
    const std::size_t share = count / static_cast<std::size_t>(n);
    const int bf16 = NcclLibrary::kBfloat16, sum = NcclLibrary::kSum;
    // One process drives every GPU: the calls of all ranks form one group (NCCL docs, "Group Calls").
    PROBE_NCCL(m_nccl.groupStart());
    for (int r = 0; r < n; ++r) {
        void* stream = m_streams[r];
        switch (op) {
        case CollectiveOp::AllReduce:
            PROBE_NCCL(m_nccl.allReduce(m_send[r], m_recv[r], count, bf16, sum, m_comms[r], stream));
            break;
        case CollectiveOp::AllGather:
            PROBE_NCCL(m_nccl.allGather(m_send[r], m_recv[r], share, bf16, m_comms[r], stream));
            break;
        case CollectiveOp::ReduceScatter:
            PROBE_NCCL(m_nccl.reduceScatter(m_send[r], m_recv[r], share, bf16, sum, m_comms[r], stream));
            break;
        case CollectiveOp::AllToAll:
            // NCCL has no all-to-all call; grouped point-to-point is how nccl-tests' alltoall does it.
            for (int peer = 0; peer < n; ++peer) {
                const std::size_t offset = static_cast<std::size_t>(peer) * share * kElementBytes;
                PROBE_NCCL(m_nccl.send(
                    static_cast<unsigned char*>(m_send[r]) + offset, share, bf16, peer, m_comms[r], stream));
                PROBE_NCCL(m_nccl.recv(
                    static_cast<unsigned char*>(m_recv[r]) + offset, share, bf16, peer, m_comms[r], stream));
            }
            break;
        }
    }
    PROBE_NCCL(m_nccl.groupEnd());
}

void CollectiveBench::checkRanksAgree(CollectiveOp op, long elements)
{
    if (op != CollectiveOp::AllReduce && op != CollectiveOp::AllGather)
        return;
    const std::size_t bytes = static_cast<std::size_t>(elements) * kElementBytes;
    const std::size_t window = std::min<std::size_t>(4096, bytes);
    std::vector<unsigned char> first(window), other(window);
    for (std::size_t offset : { std::size_t { 0 }, (bytes - window) / 16 * 16 }) {
        PROBE_CUDA(
            cudaMemcpy(first.data(), static_cast<unsigned char*>(m_recv[0]) + offset, window, cudaMemcpyDefault));
        for (std::size_t r = 1; r < m_devices.size(); ++r) {
            PROBE_CUDA(
                cudaMemcpy(other.data(), static_cast<unsigned char*>(m_recv[r]) + offset, window, cudaMemcpyDefault));
            if (std::memcmp(first.data(), other.data(), window) != 0)
                PROBE_FAIL(std::string(collectiveOpName(op)) + ": ranks 0 and " + std::to_string(r)
                    + " disagree at byte " + std::to_string(offset));
        }
    }
}

CollectiveMeasurement CollectiveBench::measure(CollectiveOp op, long bytes, const TimingOptions& timing)
{
    const CurrentDeviceGuard restoreDevice;
    const int n = static_cast<int>(m_devices.size());
    const long elements = collectiveElements(bytes, n);
    if (elements < n)
        PROBE_FAIL(std::string(collectiveOpName(op)) + ": " + std::to_string(bytes) + " bytes is too small for "
            + std::to_string(n) + " ranks");
    // Fresh, rank-specific output buffers: ranks that agree afterwards did run the collective.
    const std::size_t bufferBytes = static_cast<std::size_t>(elements) * kElementBytes;
    for (int r = 0; r < n; ++r) {
        PROBE_CUDA(cudaSetDevice(r));
        PROBE_CUDA(
            fillRandomBf16(m_recv[r], bufferBytes / kElementBytes, 300 + static_cast<std::uint64_t>(r), m_streams[r]));
    }
    const std::vector<double> seconds = timeLaunchesOnAll(m_devices, m_streams, timing, [&] { enqueue(op, elements); });
    for (int r = 0; r < n; ++r) {
        PROBE_CUDA(cudaSetDevice(r));
        PROBE_CUDA(cudaStreamSynchronize(m_streams[r]));
    }
    checkRanksAgree(op, elements);

    CollectiveMeasurement m;
    m.op = op;
    m.ranks = n;
    m.bytes = static_cast<long>(bufferBytes);
    std::vector<double> bus = ratesFromSeconds(static_cast<double>(bufferBytes), seconds);
    for (double& b : bus)
        b *= busBandwidthFactor(op, n);
    m.busBytesPerSecond = summarize(bus);
    return m;
}

} // namespace parallax::probe
