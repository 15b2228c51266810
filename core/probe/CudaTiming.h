// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <vector>

namespace parallax::probe {

struct TimingOptions {
    int warmup = 5;
    int repeats = 20;
    // A sample spans at least this long: CUDA events resolve about 0.5 us (cudaEventElapsedTime),
    // so short kernels are timed over several back-to-back launches.
    double minSampleSeconds = 1e-3;
    int maxLaunchesPerSample = 1000;
};

// Seconds per launch, one value per repeat. `launch` enqueues one iteration on `stream` (of the
// current device): warm-up launches first (clocks ramp up, caches and cuBLAS heuristics settle),
// then `repeats` samples, each bracketed by CUDA events.
std::vector<double> timeLaunches(
    cudaStream_t stream, const TimingOptions& options, const std::function<void()>& launch);

// The same across GPUs: `launch` enqueues one iteration on every stream (streams[i] belongs to
// devices[i]); a sample lasts until the slowest GPU finishes, as nccl-tests reports it.
std::vector<double> timeLaunchesOnAll(const std::vector<int>& devices, const std::vector<cudaStream_t>& streams,
    const TimingOptions& options, const std::function<void()>& launch);

} // namespace parallax::probe
