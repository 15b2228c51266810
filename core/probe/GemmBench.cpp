// SPDX-License-Identifier: Apache-2.0
#include "core/probe/GemmBench.h"

#include "core/probe/CudaBuffers.h"
#include "core/probe/CudaCheck.h"
#include "core/probe/ProbeKernels.h"

#include <cstring>
#include <limits>
#include <memory>
#include <vector>

namespace {

namespace core = parallax::core;
using parallax::probe::GemmShape;

// 32 MiB: Hopper's cuBLASLt kernels use up to this much workspace (PyTorch's cuBLAS handle pool
// and llm.c allot 32 MiB on sm90), so that the probe and torch.matmul choose among the same kernels.
constexpr std::size_t kWorkspaceBytes = 32u << 20;
constexpr int kCandidateAlgorithms = 4;

bool isFp8(const GemmShape& s)
{
    return s.dtype == core::DType::Fp8;
}

// cuBLASLt descriptors owned, so that a throw halfway through setting one up leaks nothing.
struct LtDeleter {
    void operator()(cublasLtMatmulDescOpaque_t* d) const { cublasLtMatmulDescDestroy(d); }
    void operator()(cublasLtMatrixLayoutOpaque_t* l) const { cublasLtMatrixLayoutDestroy(l); }
    void operator()(cublasLtMatmulPreferenceOpaque_t* p) const { cublasLtMatmulPreferenceDestroy(p); }
};
using MatmulDesc = std::unique_ptr<cublasLtMatmulDescOpaque_t, LtDeleter>;
using MatrixLayout = std::unique_ptr<cublasLtMatrixLayoutOpaque_t, LtDeleter>;
using MatmulPreference = std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, LtDeleter>;

MatrixLayout matrixLayout(cudaDataType_t type, long rows, long columns, long leadingDimension)
{
    cublasLtMatrixLayout_t layout = nullptr;
    PROBE_CUBLAS(cublasLtMatrixLayoutCreate(
        &layout, type, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(columns), leadingDimension));
    return MatrixLayout(layout);
}

std::string shapeText(const GemmShape& s)
{
    return std::string(isFp8(s) ? "fp8 " : "bf16 ") + s.label + " " + std::to_string(s.m) + "x" + std::to_string(s.n)
        + "x" + std::to_string(s.k) + (s.batch > 1 ? " batch " + std::to_string(s.batch) : "");
}

} // namespace

namespace parallax::probe {

// One prepared cuBLASLt matmul: operands on the device, descriptors, candidate algorithms.
// Column-major as cuBLAS sees it: A is stored k x m (lda = k) and used transposed, B is k x n
// (ldb = k), D is m x n (ldd = m). Row i of the logical A and column j of B are therefore both
// contiguous runs of k elements, which is what verification copies back.
class GemmBench::Matmul {
public:
    Matmul(cublasLtHandle_t lt, const GemmShape& shape, void* workspace, std::size_t workspaceBytes,
        cudaStream_t stream, std::uint64_t seed, int candidates)
        : m_lt(lt)
        , m_shape(shape)
        , m_workspace(workspace)
        , m_workspaceBytes(workspaceBytes)
        , m_stream(stream)
    {
        const std::size_t in = isFp8(shape) ? 1 : 2;
        m_strideA = static_cast<std::size_t>(shape.m) * shape.k;
        m_strideB = static_cast<std::size_t>(shape.n) * shape.k;
        m_strideD = static_cast<std::size_t>(shape.m) * shape.n;
        const std::size_t batch = static_cast<std::size_t>(shape.batch);
        m_a = DeviceBuffer(m_strideA * batch * in);
        m_b = DeviceBuffer(m_strideB * batch * in);
        m_d = DeviceBuffer(m_strideD * batch * 2);
        auto fill = isFp8(shape) ? fillRandomFp8E4m3 : fillRandomBf16;
        PROBE_CUDA(fill(m_a.data(), m_strideA * batch, seed, stream));
        PROBE_CUDA(fill(m_b.data(), m_strideB * batch, seed + 1, stream));
        // D starts as random garbage too: a kernel that writes nothing cannot pass verification.
        PROBE_CUDA(fillRandomBf16(m_d.data(), m_strideD * batch, seed + 2, stream));

        const cudaDataType_t inType = isFp8(shape) ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
        cublasLtMatmulDesc_t op = nullptr;
        PROBE_CUBLAS(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
        m_op.reset(op);
        const cublasOperation_t transposed = CUBLAS_OP_T, plain = CUBLAS_OP_N;
        PROBE_CUBLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &transposed, sizeof transposed));
        PROBE_CUBLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &plain, sizeof plain));
        m_layoutA = matrixLayout(inType, shape.k, shape.m, shape.k);
        m_layoutB = matrixLayout(inType, shape.k, shape.n, shape.k);
        // With fp8 inputs and a bf16 D, C must be bf16 as well (cublasLtMatmul's type table).
        m_layoutC = matrixLayout(CUDA_R_16BF, shape.m, shape.n, shape.m);
        m_layoutD = matrixLayout(CUDA_R_16BF, shape.m, shape.n, shape.m);
        if (shape.batch > 1) {
            const std::int32_t count = static_cast<std::int32_t>(shape.batch);
            const std::int64_t strides[] = { static_cast<std::int64_t>(m_strideA), static_cast<std::int64_t>(m_strideB),
                static_cast<std::int64_t>(m_strideD), static_cast<std::int64_t>(m_strideD) };
            const cublasLtMatrixLayout_t layouts[]
                = { m_layoutA.get(), m_layoutB.get(), m_layoutC.get(), m_layoutD.get() };
            for (int i = 0; i < 4; ++i) {
                PROBE_CUBLAS(cublasLtMatrixLayoutSetAttribute(
                    layouts[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count));
                PROBE_CUBLAS(cublasLtMatrixLayoutSetAttribute(
                    layouts[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strides[i], sizeof strides[i]));
            }
        }

        cublasLtMatmulPreference_t preferenceHandle = nullptr;
        PROBE_CUBLAS(cublasLtMatmulPreferenceCreate(&preferenceHandle));
        const MatmulPreference preference(preferenceHandle);
        const std::uint64_t maxWorkspace = workspaceBytes;
        PROBE_CUBLAS(cublasLtMatmulPreferenceSetAttribute(
            preferenceHandle, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &maxWorkspace, sizeof maxWorkspace));
        int returned = 0;
        m_algorithms.resize(static_cast<std::size_t>(candidates));
        PROBE_CUBLAS(cublasLtMatmulAlgoGetHeuristic(lt, op, m_layoutA.get(), m_layoutB.get(), m_layoutC.get(),
            m_layoutD.get(), preferenceHandle, candidates, m_algorithms.data(), &returned));
        if (returned <= 0)
            PROBE_FAIL("cuBLASLt has no algorithm for " + shapeText(shape));
        m_algorithms.resize(static_cast<std::size_t>(returned));
    }

    Matmul(const Matmul&) = delete;
    Matmul& operator=(const Matmul&) = delete;

    int algorithmCount() const { return static_cast<int>(m_algorithms.size()); }

    void enqueue() const { PROBE_CUBLAS(tryEnqueue(m_chosen)); }

    // Picks the fastest candidate over a few timed launches. A candidate that fails to launch is
    // passed over; if all fail, the first one's error is reported.
    void chooseFastest(int warmup)
    {
        if (m_algorithms.size() == 1)
            return;
        double best = std::numeric_limits<double>::infinity();
        std::size_t bestIndex = 0;
        cublasStatus_t firstError = CUBLAS_STATUS_SUCCESS;
        bool anyWorked = false;
        for (std::size_t a = 0; a < m_algorithms.size(); ++a) {
            const cublasStatus_t status = tryEnqueue(a);
            if (status != CUBLAS_STATUS_SUCCESS) {
                if (firstError == CUBLAS_STATUS_SUCCESS)
                    firstError = status;
                continue;
            }
            m_chosen = a;
            const TimingOptions trial { std::max(1, warmup / 2), 3, 1e-3, 100 };
            const std::vector<double> seconds = timeLaunches(m_stream, trial, [this] { enqueue(); });
            const double median = summarize(seconds).median;
            anyWorked = true;
            if (median < best) {
                best = median;
                bestIndex = a;
            }
        }
        if (!anyWorked)
            PROBE_CUBLAS(firstError);
        m_chosen = bestIndex;
    }

    // Compares sampled elements of D with a double-precision reference of the stored operands.
    VerifyResult verify(int samples, std::uint64_t seed) const
    {
        PROBE_CUDA(cudaStreamSynchronize(m_stream));
        const std::size_t in = isFp8(m_shape) ? 1 : 2;
        const std::size_t k = static_cast<std::size_t>(m_shape.k);
        std::vector<unsigned char> rawA(k * in), rawB(k * in);
        std::vector<double> a(k), b(k);
        const GemmTolerance tolerance = gemmTolerance(m_shape.dtype);
        VerifyResult result;
        for (const SamplePosition& p : samplePositions(m_shape, samples, seed)) {
            const std::size_t batch = static_cast<std::size_t>(p.batch);
            const std::size_t offsetA = batch * m_strideA + static_cast<std::size_t>(p.row) * k;
            const std::size_t offsetB = batch * m_strideB + static_cast<std::size_t>(p.column) * k;
            const std::size_t offsetD = batch * m_strideD + static_cast<std::size_t>(p.row)
                + static_cast<std::size_t>(p.column) * static_cast<std::size_t>(m_shape.m);
            PROBE_CUDA(cudaMemcpy(rawA.data(), m_a.bytes() + offsetA * in, k * in, cudaMemcpyDeviceToHost));
            PROBE_CUDA(cudaMemcpy(rawB.data(), m_b.bytes() + offsetB * in, k * in, cudaMemcpyDeviceToHost));
            std::uint16_t rawD = 0;
            PROBE_CUDA(cudaMemcpy(&rawD, m_d.bytes() + offsetD * 2, 2, cudaMemcpyDeviceToHost));
            for (std::size_t l = 0; l < k; ++l) {
                if (in == 1) {
                    a[l] = fp8E4m3ToDouble(rawA[l]);
                    b[l] = fp8E4m3ToDouble(rawB[l]);
                } else {
                    std::uint16_t x, y;
                    std::memcpy(&x, &rawA[2 * l], 2);
                    std::memcpy(&y, &rawB[2 * l], 2);
                    a[l] = bf16ToDouble(x);
                    b[l] = bf16ToDouble(y);
                }
            }
            const double gpu = bf16ToDouble(rawD);
            result.add(p, checkElement(a, b, gpu, tolerance), gpu);
        }
        return result;
    }

private:
    cublasStatus_t tryEnqueue(std::size_t algorithm) const
    {
        const float alpha = 1.0f, beta = 0.0f;
        return cublasLtMatmul(m_lt, m_op.get(), &alpha, m_a.data(), m_layoutA.get(), m_b.data(), m_layoutB.get(), &beta,
            m_d.data(), m_layoutC.get(), m_d.data(), m_layoutD.get(), &m_algorithms[algorithm].algo, m_workspace,
            m_workspaceBytes, m_stream);
    }

    cublasLtHandle_t m_lt;
    GemmShape m_shape;
    void* m_workspace;
    std::size_t m_workspaceBytes;
    cudaStream_t m_stream;
    std::size_t m_strideA = 0, m_strideB = 0, m_strideD = 0;
    DeviceBuffer m_a, m_b, m_d;
    MatmulDesc m_op;
    MatrixLayout m_layoutA, m_layoutB, m_layoutC, m_layoutD;
    std::vector<cublasLtMatmulHeuristicResult_t> m_algorithms;
    std::size_t m_chosen = 0;
};

GemmBench::GemmBench(cudaStream_t stream, bool tuneAlgorithms, int verifySamples)
    : m_stream(stream)
    , m_workspaceBytes(kWorkspaceBytes)
    , m_tune(tuneAlgorithms)
    , m_verifySamples(verifySamples)
{
    PROBE_CUBLAS(cublasLtCreate(&m_lt));
    const cudaError_t status = cudaMalloc(&m_workspace, m_workspaceBytes);
    if (status != cudaSuccess) {
        cublasLtDestroy(m_lt); // the destructor does not run for a constructor that throws
        PROBE_CUDA(status);
    }
}

GemmBench::~GemmBench()
{
    if (m_workspace)
        cudaFree(m_workspace);
    if (m_lt)
        cublasLtDestroy(m_lt);
}

GemmMeasurement GemmBench::measure(const GemmShape& shape, const TimingOptions& timing)
{
    const std::uint64_t seed = m_seed;
    m_seed += 16;
    Matmul matmul(m_lt, shape, m_workspace, m_workspaceBytes, m_stream, seed, m_tune ? kCandidateAlgorithms : 1);
    matmul.chooseFastest(timing.warmup);
    GemmMeasurement result;
    result.algorithmsTried = matmul.algorithmCount();
    const std::vector<double> seconds = timeLaunches(m_stream, timing, [&] { matmul.enqueue(); });
    result.verify = matmul.verify(m_verifySamples, seed);
    if (!result.verify.passed)
        PROBE_FAIL("verification failed for " + shapeText(shape) + ": " + result.verify.firstFailure);
    result.flopsPerSecond = summarize(ratesFromSeconds(shape.flops(), seconds));
    return result;
}

GemmMeasurement GemmBench::measureAttention(const AttentionPlan& attention, const TimingOptions& timing)
{
    const std::uint64_t seed = m_seed;
    m_seed += 16;
    const int candidates = m_tune ? kCandidateAlgorithms : 1;
    Matmul scores(m_lt, attention.scores(), m_workspace, m_workspaceBytes, m_stream, seed, candidates);
    Matmul context(m_lt, attention.context(), m_workspace, m_workspaceBytes, m_stream, seed + 8, candidates);
    scores.chooseFastest(timing.warmup);
    context.chooseFastest(timing.warmup);
    GemmMeasurement result;
    result.algorithmsTried = scores.algorithmCount() + context.algorithmCount();
    const std::vector<double> seconds = timeLaunches(m_stream, timing, [&] {
        scores.enqueue();
        context.enqueue();
    });
    for (const auto* part : { &scores, &context }) {
        const VerifyResult v = part->verify(m_verifySamples, seed);
        if (!v.passed)
            PROBE_FAIL("verification failed for attention: " + v.firstFailure);
        result.verify.samples += v.samples;
        result.verify.worstRatio = std::max(result.verify.worstRatio, v.worstRatio);
    }
    result.flopsPerSecond = summarize(ratesFromSeconds(attention.flops(), seconds));
    return result;
}

} // namespace parallax::probe
