// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace parallax::probe {

// A failed CUDA, cuBLAS or NCCL call, or a failed check: the message says where and why
// ("GemmBench.cpp:120: cudaMalloc(&p, bytes): cudaErrorMemoryAllocation: out of memory").
struct ProbeError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

[[noreturn]] void throwCudaError(cudaError_t status, const char* call, const char* file, int line);
[[noreturn]] void throwCublasError(cublasStatus_t status, const char* call, const char* file, int line);
[[noreturn]] void throwProbeError(const std::string& message, const char* file, int line);

} // namespace parallax::probe

// Every CUDA runtime and cuBLAS(Lt) return code goes through one of these.
#define PROBE_CUDA(call)                                                                                               \
    do {                                                                                                               \
        const cudaError_t probeStatus_ = (call);                                                                       \
        if (probeStatus_ != cudaSuccess)                                                                               \
            ::parallax::probe::throwCudaError(probeStatus_, #call, __FILE__, __LINE__);                                \
    } while (0)

#define PROBE_CUBLAS(call)                                                                                             \
    do {                                                                                                               \
        const cublasStatus_t probeStatus_ = (call);                                                                    \
        if (probeStatus_ != CUBLAS_STATUS_SUCCESS)                                                                     \
            ::parallax::probe::throwCublasError(probeStatus_, #call, __FILE__, __LINE__);                              \
    } while (0)

#define PROBE_FAIL(message) ::parallax::probe::throwProbeError((message), __FILE__, __LINE__)
