// SPDX-License-Identifier: Apache-2.0
#include "core/probe/DeviceInfo.h"

#include "core/probe/CudaCheck.h"

#include <dlfcn.h>

namespace {

std::string cudaVersionText(int version) // 13000 -> "13.0"
{
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// The driver's own version string, which cudaDriverGetVersion does not give. NVML is optional;
// its functions are looked up by name (nvml.h: nvmlInit_v2, nvmlSystemGetDriverVersion).
std::string nvmlDriverVersion()
{
    void* nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nvml)
        return {};
    using InitFn = int (*)();
    using VersionFn = int (*)(char*, unsigned int);
    auto init = reinterpret_cast<InitFn>(dlsym(nvml, "nvmlInit_v2"));
    auto version = reinterpret_cast<VersionFn>(dlsym(nvml, "nvmlSystemGetDriverVersion"));
    auto shutdown = reinterpret_cast<InitFn>(dlsym(nvml, "nvmlShutdown"));
    std::string text;
    if (init && version && shutdown && init() == 0) {
        char buffer[96] = {}; // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE is 80
        if (version(buffer, sizeof buffer) == 0)
            text = buffer;
        shutdown();
    }
    dlclose(nvml);
    return text;
}

} // namespace

namespace parallax::probe {

int usableDeviceCount(std::string& why)
{
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        why = std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
        return 0;
    }
    if (count <= 0)
        why = "cudaGetDeviceCount found no devices";
    return count > 0 ? count : 0;
}

GpuInfo queryGpu(int device)
{
    GpuInfo info;
    cudaDeviceProp prop {};
    PROBE_CUDA(cudaGetDeviceProperties(&prop, device));
    info.name = prop.name;
    info.ccMajor = prop.major;
    info.ccMinor = prop.minor;
    info.smCount = prop.multiProcessorCount;
    info.memoryBytes = static_cast<double>(prop.totalGlobalMem);
    info.l2Bytes = prop.l2CacheSize;
    int kiloHertz = 0;
    // CUDA 13 removed the clock fields from cudaDeviceProp; the attributes remain.
    if (cudaDeviceGetAttribute(&kiloHertz, cudaDevAttrClockRate, device) == cudaSuccess)
        info.smClockMHz = kiloHertz / 1000.0;
    if (cudaDeviceGetAttribute(&kiloHertz, cudaDevAttrMemoryClockRate, device) == cudaSuccess)
        info.memoryClockMHz = kiloHertz / 1000.0;
    cudaGetLastError(); // an unsupported attribute is not an error of the run
    return info;
}

std::string driverText()
{
    int version = 0;
    const std::string cuda = cudaDriverGetVersion(&version) == cudaSuccess ? "CUDA " + cudaVersionText(version) : "";
    const std::string nvml = nvmlDriverVersion();
    if (nvml.empty())
        return cuda.empty() ? "unknown" : cuda;
    return cuda.empty() ? nvml : nvml + ", " + cuda;
}

std::string runtimeText()
{
    int version = 0;
    return cudaRuntimeGetVersion(&version) == cudaSuccess ? cudaVersionText(version) : "unknown";
}

} // namespace parallax::probe
