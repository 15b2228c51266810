// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/probe/CudaTiming.h"
#include "core/probe/GemmCheck.h"
#include "core/probe/ProbePlan.h"
#include "core/probe/ProbeStats.h"

#include <cublasLt.h>

#include <cstdint>
#include <memory>

namespace parallax::probe {

struct GemmMeasurement {
    Summary flopsPerSecond;
    VerifyResult verify;
    int algorithmsTried = 0;
};

// Times GEMMs through cuBLASLt on one device: D (bf16) = A B with fp32 accumulation ("TN": A
// transposed, the layout cuBLASLt requires for fp8 and Megatron / Transformer Engine use for
// weights), inputs bf16 or fp8 e4m3 filled with random values. The fastest of the first few
// heuristic algorithms is kept, then timed; the output is verified on sampled elements.
class GemmBench {
public:
    GemmBench(cudaStream_t stream, bool tuneAlgorithms, int verifySamples);
    ~GemmBench();
    GemmBench(const GemmBench&) = delete;
    GemmBench& operator=(const GemmBench&) = delete;

    // Throws ProbeError on a CUDA / cuBLAS failure or when verification fails (a GEMM that computes
    // the wrong numbers has no throughput worth reporting).
    GemmMeasurement measure(const GemmShape& shape, const TimingOptions& timing);
    // Scores and context GEMMs timed back to back; FLOP/s over both.
    GemmMeasurement measureAttention(const AttentionPlan& attention, const TimingOptions& timing);

private:
    class Matmul;
    cublasLtHandle_t m_lt = nullptr;
    cudaStream_t m_stream;
    void* m_workspace = nullptr;
    std::size_t m_workspaceBytes;
    bool m_tune;
    int m_verifySamples;
    std::uint64_t m_seed = 1;
};

} // namespace parallax::probe
