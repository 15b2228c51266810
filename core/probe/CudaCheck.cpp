// SPDX-License-Identifier: Apache-2.0
#include "core/probe/CudaCheck.h"

#include <cublas_api.h>

#include <cstring>

namespace {

std::string where(const char* file, int line)
{
    const char* slash = std::strrchr(file, '/');
    return std::string(slash ? slash + 1 : file) + ":" + std::to_string(line) + ": ";
}
} // namespace

namespace parallax::probe {

void throwCudaError(cudaError_t status, const char* call, const char* file, int line)
{
    throw ProbeError(where(file, line) + call + ": " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
}

void throwCublasError(cublasStatus_t status, const char* call, const char* file, int line)
{
    throw ProbeError(
        where(file, line) + call + ": " + cublasGetStatusName(status) + ": " + cublasGetStatusString(status));
}

void throwProbeError(const std::string& message, const char* file, int line)
{
    throw ProbeError(where(file, line) + message);
}

} // namespace parallax::probe
