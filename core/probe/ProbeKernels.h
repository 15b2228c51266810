// SPDX-License-Identifier: Apache-2.0
#pragma once

// Device kernels of the probe (ProbeKernels.cu), behind plain launch functions so that the
// rest of the probe is ordinary C++ compiled by the host compiler. Kept C++17 for nvcc.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace parallax::probe {

// Random values, never zero: magnitude uniform in [1/16, 1], random sign (zero mean), from a
// counter-based hash of (seed, index), so that the same seed gives the same data on any launch
// configuration. Zeros or constant data would let a broken GEMM pass verification, and would
// overstate throughput (tensor cores draw less power on zeros, so they throttle less).
cudaError_t fillRandomBf16(void* data, std::size_t count, std::uint64_t seed, cudaStream_t stream);
cudaError_t fillRandomFp8E4m3(void* data, std::size_t count, std::uint64_t seed, cudaStream_t stream);

// dst = src over `bytes` (a multiple of 16) with 16-byte vector loads and stores, grid-stride,
// four independent loads in flight per thread; `blocks` of 256 threads.
cudaError_t streamCopy(const void* src, void* dst, std::size_t bytes, int blocks, cudaStream_t stream);

} // namespace parallax::probe
