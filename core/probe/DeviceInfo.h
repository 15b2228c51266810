// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace parallax::probe {

// Number of usable CUDA devices; 0 with `why` set when there are none. Any failure of
// cudaGetDeviceCount counts as none: without a driver it returns cudaErrorInsufficientDriver
// (35), not cudaErrorNoDevice (100).
int usableDeviceCount(std::string& why);

struct GpuInfo {
    std::string name;
    int ccMajor = 0, ccMinor = 0;
    int smCount = 0;
    double memoryBytes = 0;
    double smClockMHz = 0; // peak
    double memoryClockMHz = 0; // peak
    long l2Bytes = 0;
};
GpuInfo queryGpu(int device);

// "580.65.06, CUDA 13.0" when NVML (libnvidia-ml.so.1, shipped with the driver) loads, else
// "CUDA 13.0" from cudaDriverGetVersion.
std::string driverText();
std::string runtimeText(); // "13.0"

} // namespace parallax::probe
