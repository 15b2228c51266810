// SPDX-License-Identifier: Apache-2.0
#include "core/probe/CudaTiming.h"

#include "core/probe/CudaCheck.h"

#include <algorithm>
#include <cmath>

namespace {

// Start and stop events on each device; destroyed with the timer.
class EventPairs {
public:
    explicit EventPairs(const std::vector<int>& devices)
        : m_devices(devices)
        , m_start(devices.size(), nullptr)
        , m_stop(devices.size(), nullptr)
    {
        try {
            for (std::size_t i = 0; i < devices.size(); ++i) {
                PROBE_CUDA(cudaSetDevice(devices[i]));
                PROBE_CUDA(cudaEventCreate(&m_start[i]));
                PROBE_CUDA(cudaEventCreate(&m_stop[i]));
            }
        } catch (...) {
            release(); // the destructor does not run for a constructor that throws
            throw;
        }
    }
    EventPairs(const EventPairs&) = delete;
    EventPairs& operator=(const EventPairs&) = delete;
    ~EventPairs() { release(); }

    void release()
    {
        for (std::size_t i = 0; i < m_devices.size(); ++i) {
            if (m_start[i])
                cudaEventDestroy(m_start[i]);
            if (m_stop[i])
                cudaEventDestroy(m_stop[i]);
            m_start[i] = m_stop[i] = nullptr;
        }
        if (!m_devices.empty())
            cudaSetDevice(m_devices.front());
    }

    // Seconds for `launches` iterations: the slowest device's start-to-stop interval.
    double time(const std::vector<cudaStream_t>& streams, int launches, const std::function<void()>& launch)
    {
        for (std::size_t i = 0; i < streams.size(); ++i) {
            PROBE_CUDA(cudaSetDevice(m_devices[i]));
            PROBE_CUDA(cudaEventRecord(m_start[i], streams[i]));
        }
        for (int l = 0; l < launches; ++l)
            launch();
        for (std::size_t i = 0; i < streams.size(); ++i) {
            PROBE_CUDA(cudaSetDevice(m_devices[i]));
            PROBE_CUDA(cudaEventRecord(m_stop[i], streams[i]));
        }
        float slowestMs = 0;
        for (std::size_t i = 0; i < streams.size(); ++i) {
            PROBE_CUDA(cudaEventSynchronize(m_stop[i]));
            float ms = 0;
            PROBE_CUDA(cudaEventElapsedTime(&ms, m_start[i], m_stop[i]));
            slowestMs = std::max(slowestMs, ms);
        }
        PROBE_CUDA(cudaSetDevice(m_devices.front()));
        return slowestMs * 1e-3;
    }

private:
    std::vector<int> m_devices;
    std::vector<cudaEvent_t> m_start;
    std::vector<cudaEvent_t> m_stop;
};

} // namespace

namespace parallax::probe {

std::vector<double> timeLaunchesOnAll(const std::vector<int>& devices, const std::vector<cudaStream_t>& streams,
    const TimingOptions& options, const std::function<void()>& launch)
{
    if (devices.empty() || devices.size() != streams.size())
        PROBE_FAIL("timeLaunchesOnAll: one stream per device is required");
    EventPairs events(devices);
    for (int i = 0; i < options.warmup; ++i)
        launch();
    // One timed launch sizes the samples (it doubles as a last warm-up).
    const double once = events.time(streams, 1, launch);
    int launches = 1;
    if (once > 0 && once < options.minSampleSeconds)
        launches = static_cast<int>(
            std::min<double>(options.maxLaunchesPerSample, std::ceil(options.minSampleSeconds / once)));
    std::vector<double> seconds;
    seconds.reserve(options.repeats);
    for (int r = 0; r < options.repeats; ++r) {
        const double sample = events.time(streams, launches, launch) / launches;
        if (!(sample > 0)) // a rate from a zero interval would be infinite: refuse it
            PROBE_FAIL("CUDA events measured a non-positive interval");
        seconds.push_back(sample);
    }
    return seconds;
}

std::vector<double> timeLaunches(cudaStream_t stream, const TimingOptions& options, const std::function<void()>& launch)
{
    int device = 0;
    PROBE_CUDA(cudaGetDevice(&device));
    return timeLaunchesOnAll({ device }, { stream }, options, launch);
}

} // namespace parallax::probe
