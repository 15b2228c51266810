// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/probe/CudaCheck.h"

#include <cstddef>
#include <utility>

namespace parallax::probe {

// Owning device allocation on the current device. Destruction ignores errors: it runs while
// unwinding from an earlier one, whose message is the one worth keeping.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t bytes)
        : m_bytes(bytes)
    {
        PROBE_CUDA(cudaGetDevice(&m_device));
        PROBE_CUDA(cudaMalloc(&m_data, bytes));
    }
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : m_data(std::exchange(other.m_data, nullptr))
        , m_bytes(std::exchange(other.m_bytes, 0))
        , m_device(other.m_device)
    {
    }
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept
    {
        std::swap(m_data, other.m_data);
        std::swap(m_bytes, other.m_bytes);
        std::swap(m_device, other.m_device);
        return *this;
    }
    ~DeviceBuffer()
    {
        if (!m_data)
            return;
        // Free on the owning device (peer copies allocate on several).
        int current = m_device;
        cudaGetDevice(&current);
        if (current != m_device)
            cudaSetDevice(m_device);
        cudaFree(m_data);
        if (current != m_device)
            cudaSetDevice(current);
    }

    void* data() const { return m_data; }
    unsigned char* bytes() const { return static_cast<unsigned char*>(m_data); }
    std::size_t size() const { return m_bytes; }

private:
    void* m_data = nullptr;
    std::size_t m_bytes = 0;
    int m_device = 0;
};

// Page-locked host memory: DMA runs at link speed only from pinned pages (CUDA C++ Programming
// Guide, "Page-Locked Host Memory").
class PinnedHostBuffer {
public:
    explicit PinnedHostBuffer(std::size_t bytes)
        : m_bytes(bytes)
    {
        PROBE_CUDA(cudaMallocHost(&m_data, bytes));
    }
    PinnedHostBuffer(const PinnedHostBuffer&) = delete;
    PinnedHostBuffer& operator=(const PinnedHostBuffer&) = delete;
    ~PinnedHostBuffer()
    {
        if (m_data)
            cudaFreeHost(m_data);
    }

    void* data() const { return m_data; }
    std::size_t size() const { return m_bytes; }

private:
    void* m_data = nullptr;
    std::size_t m_bytes = 0;
};

// Restores the current device when a scope that switches devices ends.
class CurrentDeviceGuard {
public:
    CurrentDeviceGuard() { cudaGetDevice(&m_device); }
    CurrentDeviceGuard(const CurrentDeviceGuard&) = delete;
    CurrentDeviceGuard& operator=(const CurrentDeviceGuard&) = delete;
    ~CurrentDeviceGuard() { cudaSetDevice(m_device); }

private:
    int m_device = 0;
};

// Owning stream on the current device.
class CudaStream {
public:
    CudaStream() { PROBE_CUDA(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking)); }
    CudaStream(const CudaStream&) = delete;
    CudaStream& operator=(const CudaStream&) = delete;
    ~CudaStream()
    {
        if (m_stream)
            cudaStreamDestroy(m_stream);
    }
    cudaStream_t get() const { return m_stream; }

private:
    cudaStream_t m_stream = nullptr;
};

} // namespace parallax::probe
