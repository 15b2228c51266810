// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/parallel/ParallelConfig.h"
#include "core/probe/ProbeOptions.h"

#include <string>
#include <vector>

namespace parallax::probe {

// One GEMM to time: D[m x n] = A[m x k] * B[k x n], `batch` independent products (strided).
struct GemmShape {
    std::string label; // "qkv.fwd", "mlp-down.wgrad", "square"
    long m = 0, n = 0, k = 0;
    long batch = 1;
    core::DType dtype = core::DType::Bf16;

    double flops() const { return 2.0 * static_cast<double>(m) * n * k * batch; } // 2 FLOPs per multiply-add
};

// The attention measurement: the two batched GEMMs of scores = Q K^T and context = P V for one
// micro-batch on one GPU (heads already divided by tp), as FlashAttention computes them without
// the causal skip.
struct AttentionPlan {
    long batch = 0; // sequences in the micro-batch
    long heads = 0; // query heads per GPU
    long seqLen = 0;
    long headDim = 0;

    GemmShape scores() const { return { "attention.scores", seqLen, seqLen, headDim, batch * heads }; }
    GemmShape context() const { return { "attention.context", seqLen, headDim, seqLen, batch * heads }; }
    double flops() const { return scores().flops() + context().flops(); }
};

// What the planner knows about the machine. `known` false (no GPU, or --list without a device)
// plans everything that might run and says under which condition.
struct DeviceFacts {
    bool known = false;
    int count = 0;
    int ccMajor = 0, ccMinor = 0;
    bool ncclLoaded = false;

    bool hasFp8() const { return ccMajor * 10 + ccMinor >= 89; } // e4m3 tensor cores: Ada (8.9), Hopper (9.0)+
};

enum class CollectiveOp { AllReduce, AllGather, ReduceScatter, AllToAll };
const char* collectiveOpName(CollectiveOp op); // "all_reduce", ... (the calibration file's spelling)
// Bus bandwidth = algorithm bandwidth (bytes / time) x this factor, so that every collective's
// figure compares with the link speed (nccl-tests doc/PERFORMANCE.md): all-reduce 2 (n-1)/n;
// all-gather, reduce-scatter and all-to-all (n-1)/n. `bytes` is the full buffer: all-gather's
// output, reduce-scatter's input, all-to-all's send buffer per rank.
double busBandwidthFactor(CollectiveOp op, int ranks);
// bf16 elements of a `bytes` buffer, rounded down so that n ranks get equal shares.
long collectiveElements(long bytes, int ranks);

struct ProbePlan {
    int warmup = 0;
    int repeats = 0;
    int verifySamples = 0; // sampled output elements checked per GEMM
    std::vector<GemmShape> gemms; // bf16 first, then fp8
    std::vector<std::string> skipped; // planned shapes left out, and why (e.g. fp8 alignment)
    AttentionPlan attention;
    long hbmBufferBytes = 0; // each of source and destination
    long copyBufferBytes = 0; // host<->device and peer copies
    bool peers = false; // cudaMemcpyPeer over every ordered pair
    bool collectives = false;
    std::vector<CollectiveOp> collectiveOps;
    std::vector<long> collectiveBytes;
    std::vector<std::string> conditions; // "fp8 GEMMs run only if ..." when the device is not known
};

// Forward GEMMs of one transformer layer (and the logits) at tensor-parallel degree tp, as
// Megatron-LM shards them (arXiv:1909.08053 sec. 3): column-parallel QKV and MLP-up, row-parallel
// attention-out and MLP-down, vocabulary-parallel logits. With `backward`, each forward GEMM
// Y = X W also yields its data-gradient dX = dY W^T and weight-gradient dW = X^T dY shapes.
std::vector<GemmShape> transformerGemmShapes(const ModelDims& model, bool backward);
// Square sizes 1024, 2048, ... up to maxSquare (--quick: 1024, 4096, 8192).
std::vector<long> squareSizes(long maxSquare, bool quick);
// Vocabulary rows per tensor-parallel rank after Megatron's padding to a multiple of 128 x tp.
long paddedVocabPerRank(long vocab, int tp);

ProbePlan buildProbePlan(const ProbeOptions& options, const DeviceFacts& facts);
// The plan as text (--list and the head of a run).
std::string describePlan(const ProbePlan& plan, const DeviceFacts& facts);

} // namespace parallax::probe
