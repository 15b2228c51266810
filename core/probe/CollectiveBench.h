// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/probe/CudaTiming.h"
#include "core/probe/NcclLibrary.h"
#include "core/probe/ProbePlan.h"
#include "core/probe/ProbeStats.h"

#include <vector>

namespace parallax::probe {

struct CollectiveMeasurement {
    CollectiveOp op = CollectiveOp::AllReduce;
    int ranks = 0;
    long bytes = 0; // as used, after rounding to equal shares
    Summary busBytesPerSecond;
};

// NCCL collectives over all GPUs of this process (one communicator per GPU, ncclCommInitAll),
// out of place on bf16 buffers of random data, timed as nccl-tests does (slowest GPU per sample).
class CollectiveBench {
public:
    CollectiveBench(const NcclLibrary& nccl, int deviceCount, long maxBytes);
    ~CollectiveBench();
    CollectiveBench(const CollectiveBench&) = delete;
    CollectiveBench& operator=(const CollectiveBench&) = delete;

    CollectiveMeasurement measure(CollectiveOp op, long bytes, const TimingOptions& timing);

private:
    void release();
    void enqueue(CollectiveOp op, long elements);
    // Every rank must end with the same all-reduce / all-gather output.
    void checkRanksAgree(CollectiveOp op, long elements);

    const NcclLibrary& m_nccl;
    std::vector<int> m_devices;
    std::vector<NcclLibrary::Comm> m_comms;
    std::vector<cudaStream_t> m_streams;
    std::vector<void*> m_send;
    std::vector<void*> m_recv;
};

} // namespace parallax::probe
