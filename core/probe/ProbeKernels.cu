// SPDX-License-Identifier: Apache-2.0
#include "core/probe/ProbeKernels.h"

#include <cuda_bf16.h>
#include <cuda_fp8.h>

namespace {

constexpr int kThreads = 256;

// splitmix64 finalizer (Steele, Lea & Flood, OOPSLA 2014): a good hash of consecutive counters.
__host__ __device__ inline std::uint64_t mix(std::uint64_t z)
{
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

__device__ inline float randomValue(std::uint64_t seed, std::size_t i)
{
    const std::uint64_t h = mix(seed * 0xD1B54A32D192ED03ULL + i);
    const float unit = static_cast<float>(h >> 40) * (1.0f / 16777216.0f); // 24 bits in [0, 1)
    const float magnitude = 0.0625f + 0.9375f * unit;
    return (h & 1) ? -magnitude : magnitude;
}

__global__ void fillBf16Kernel(__nv_bfloat16* data, std::size_t count, std::uint64_t seed)
{
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
        data[i] = __float2bfloat16_rn(randomValue(seed, i));
}

__global__ void fillFp8Kernel(__nv_fp8_e4m3* data, std::size_t count, std::uint64_t seed)
{
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
        data[i] = __nv_fp8_e4m3(randomValue(seed, i)); // round to nearest, saturating
}

__global__ void streamCopyKernel(const uint4* __restrict__ src, uint4* __restrict__ dst, std::size_t count)
{
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    // Four loads issued before the first store keep enough bytes in flight to cover HBM latency
    // (Little's law); streaming cache hints (ld.global.cs / st.global.cs) keep L2 from holding data
    // that is never reused.
    for (; i + 3 * stride < count; i += 4 * stride) {
        const uint4 a = __ldcs(src + i);
        const uint4 b = __ldcs(src + i + stride);
        const uint4 c = __ldcs(src + i + 2 * stride);
        const uint4 d = __ldcs(src + i + 3 * stride);
        __stcs(dst + i, a);
        __stcs(dst + i + stride, b);
        __stcs(dst + i + 2 * stride, c);
        __stcs(dst + i + 3 * stride, d);
    }
    for (; i < count; i += stride)
        __stcs(dst + i, __ldcs(src + i));
}

int fillBlocks(std::size_t count)
{
    const std::size_t blocks = (count + kThreads - 1) / kThreads;
    return static_cast<int>(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

} // namespace

namespace parallax::probe {

cudaError_t fillRandomBf16(void* data, std::size_t count, std::uint64_t seed, cudaStream_t stream)
{
    fillBf16Kernel<<<fillBlocks(count), kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(data), count, seed);
    return cudaGetLastError();
}

cudaError_t fillRandomFp8E4m3(void* data, std::size_t count, std::uint64_t seed, cudaStream_t stream)
{
    fillFp8Kernel<<<fillBlocks(count), kThreads, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(data), count, seed);
    return cudaGetLastError();
}

cudaError_t streamCopy(const void* src, void* dst, std::size_t bytes, int blocks, cudaStream_t stream)
{
    if (bytes % sizeof(uint4) != 0 || blocks <= 0)
        return cudaErrorInvalidValue;
    streamCopyKernel<<<blocks, kThreads, 0, stream>>>(
        static_cast<const uint4*>(src), static_cast<uint4*>(dst), bytes / sizeof(uint4));
    return cudaGetLastError();
}

} // namespace parallax::probe
