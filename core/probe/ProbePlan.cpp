// SPDX-License-Identifier: Apache-2.0
#include "core/probe/ProbePlan.h"

#include <cstdio>
#include <sstream>

namespace {

namespace core = parallax::core;
using parallax::probe::GemmShape;

constexpr long kKiB = 1024, kMiB = 1024 * kKiB, kGiB = 1024 * kMiB;

// cuBLASLt fp8 needs the TN layout with leading dimensions that are multiples of 16 (cuBLAS docs,
// "cublasLtMatmul", FP8 data types); requiring it of m, n and k keeps every layout legal.
bool fp8Aligned(const GemmShape& g)
{
    return g.m % 16 == 0 && g.n % 16 == 0 && g.k % 16 == 0;
}

std::string bytesText(long bytes)
{
    char buffer[32];
    if (bytes >= kGiB && bytes % kGiB == 0)
        std::snprintf(buffer, sizeof buffer, "%ld GiB", bytes / kGiB);
    else if (bytes >= kMiB && bytes % kMiB == 0)
        std::snprintf(buffer, sizeof buffer, "%ld MiB", bytes / kMiB);
    else if (bytes >= kKiB && bytes % kKiB == 0)
        std::snprintf(buffer, sizeof buffer, "%ld KiB", bytes / kKiB);
    else
        std::snprintf(buffer, sizeof buffer, "%ld B", bytes);
    return buffer;
}

const char* dtypeText(core::DType d)
{
    return d == core::DType::Fp8 ? "fp8" : "bf16";
}

} // namespace

namespace parallax::probe {

const char* collectiveOpName(CollectiveOp op)
{
    switch (op) {
    case CollectiveOp::AllReduce:
        return "all_reduce";
    case CollectiveOp::AllGather:
        return "all_gather";
    case CollectiveOp::ReduceScatter:
        return "reduce_scatter";
    case CollectiveOp::AllToAll:
        return "all_to_all";
    }
    return "all_reduce";
}

double busBandwidthFactor(CollectiveOp op, int ranks)
{
    if (ranks <= 1)
        return 0;
    const double n = ranks;
    return op == CollectiveOp::AllReduce ? 2 * (n - 1) / n : (n - 1) / n;
}

long collectiveElements(long bytes, int ranks)
{
    const long elements = bytes / 2;
    return ranks > 0 ? elements / ranks * ranks : elements;
}

long paddedVocabPerRank(long vocab, int tp)
{
    // Megatron-LM _vocab_size_with_padding: pad to make_vocab_size_divisible_by (128) x tp.
    const long multiple = 128L * tp;
    return (vocab + multiple - 1) / multiple * multiple / tp;
}

std::vector<GemmShape> transformerGemmShapes(const ModelDims& m, bool backward)
{
    const long t = m.tp;
    const long tokens = m.tokens;
    const long d = m.headDim();
    const long fc1 = (m.swiglu ? 2 : 1); // SwiGLU runs up and gate as one GEMM of twice the width
    // Forward Y[tokens x n] = X[tokens x k] W[k x n].
    std::vector<GemmShape> forward = {
        { "qkv", tokens, (m.heads + 2L * m.kvHeads) * d / t, m.hidden },
        { "attn-out", tokens, m.hidden, m.heads * d / t },
        { m.swiglu ? "mlp-up-gate" : "mlp-up", tokens, fc1 * m.ffnHidden / t, m.hidden },
        { "mlp-down", tokens, m.hidden, m.ffnHidden / t },
    };
    if (m.experts > 0) {
        // Balanced routing: the ep ranks' tokens x top-k copies spread evenly over all experts
        // (GShard, arXiv:2006.16668); expert weights are not tensor-sharded (expert tp = 1).
        const long expertTokens = (tokens * m.topK * m.ep + m.experts - 1) / m.experts;
        forward.push_back({ "expert-up-gate", expertTokens, fc1 * m.expertFfnHidden, m.hidden });
        if (!m.swiglu)
            forward.back().label = "expert-up";
        forward.push_back({ "expert-down", expertTokens, m.hidden, m.expertFfnHidden });
    }
    forward.push_back({ "logits", tokens, paddedVocabPerRank(m.vocab, m.tp), m.hidden });

    std::vector<GemmShape> shapes;
    for (const GemmShape& f : forward) {
        shapes.push_back({ f.label + ".fwd", f.m, f.n, f.k });
        if (backward) {
            shapes.push_back({ f.label + ".dgrad", f.m, f.k, f.n }); // dX = dY W^T
            shapes.push_back({ f.label + ".wgrad", f.k, f.n, f.m }); // dW = X^T dY
        }
    }
    return shapes;
}

std::vector<long> squareSizes(long maxSquare, bool quick)
{
    // --quick keeps 8192, the size torch.matmul is compared at (scripts/probe-on-gpu.sh).
    const std::vector<long> candidates = quick ? std::vector<long> { 1024, 4096, 8192 }
                                               : std::vector<long> { 1024, 2048, 4096, 8192, 16384, 32768, 65536 };
    std::vector<long> sizes;
    for (long s : candidates) {
        if (s <= maxSquare && (s <= 16384 || maxSquare > 16384)) // beyond 16384 only on request
            sizes.push_back(s);
    }
    return sizes;
}

ProbePlan buildProbePlan(const ProbeOptions& o, const DeviceFacts& facts)
{
    ProbePlan plan;
    plan.warmup = o.warmup();
    plan.repeats = o.effectiveRepeats();
    plan.verifySamples = o.quick ? 16 : 48;

    std::vector<GemmShape> base = transformerGemmShapes(o.model, /*backward=*/!o.quick);
    for (long s : squareSizes(o.maxSquare, o.quick))
        base.push_back({ "square", s, s, s });
    plan.gemms = base;

    const bool fp8 = !facts.known || facts.hasFp8();
    if (!facts.known)
        plan.conditions.push_back("fp8 GEMMs run only on compute capability >= 8.9 (Ada, Hopper, Blackwell)");
    if (fp8) {
        for (GemmShape g : base) {
            g.dtype = core::DType::Fp8;
            if (fp8Aligned(g))
                plan.gemms.push_back(g);
            else
                plan.skipped.push_back("fp8 " + g.label + " " + std::to_string(g.m) + "x" + std::to_string(g.n) + "x"
                    + std::to_string(g.k) + ": cuBLASLt fp8 needs dimensions divisible by 16");
        }
    } else {
        plan.skipped.push_back("fp8 GEMMs: compute capability " + std::to_string(facts.ccMajor) + "."
            + std::to_string(facts.ccMinor) + " has no fp8 tensor cores (needs >= 8.9)");
    }

    const ModelDims& m = o.model;
    plan.attention = { m.tokens / m.effectiveSeqLen(), m.heads / m.tp, m.effectiveSeqLen(), m.headDim() };

    // Buffers well above the largest L2 (126 MB on B200) so that HBM, not cache, is measured.
    plan.hbmBufferBytes = o.quick ? 256 * kMiB : kGiB;
    plan.copyBufferBytes = o.quick ? 64 * kMiB : 256 * kMiB;

    plan.peers = !facts.known || facts.count >= 2;
    plan.collectives = !facts.known || (facts.count >= 2 && facts.ncclLoaded);
    if (!facts.known) {
        plan.conditions.push_back("peer copies run only with >= 2 GPUs");
        plan.conditions.push_back("NCCL collectives run only with >= 2 GPUs and libnccl.so.2 (or "
                                  "$PARALLAX_NCCL_LIBRARY) loadable");
    } else if (facts.count >= 2 && !facts.ncclLoaded) {
        plan.skipped.push_back("NCCL collectives: libnccl.so.2 (or $PARALLAX_NCCL_LIBRARY) could not be loaded");
    } else if (facts.count < 2) {
        plan.skipped.push_back("peer copies and NCCL collectives: only one GPU");
    }
    if (plan.collectives) {
        plan.collectiveOps
            = { CollectiveOp::AllReduce, CollectiveOp::AllGather, CollectiveOp::ReduceScatter, CollectiveOp::AllToAll };
        // nccl-tests style sweep: latency-bound sizes up to bandwidth-bound ones.
        for (long b = o.quick ? kMiB : 64 * kKiB; b <= kGiB; b *= o.quick ? 16 : 4)
            plan.collectiveBytes.push_back(b);
    }
    return plan;
}

std::string describePlan(const ProbePlan& plan, const DeviceFacts& facts)
{
    std::ostringstream out;
    char line[256];
    out << "Planned measurements: " << plan.repeats << " timed repeats after " << plan.warmup
        << " warm-up runs; median, p10 and p90 over the repeats (CUDA events)\n";
    out << "GEMM: cuBLASLt, fp32 accumulation, bf16 output, random inputs; " << plan.verifySamples
        << " sampled elements verified per GEMM\n";
    std::snprintf(line, sizeof line, "  %-22s %-5s %8s %8s %8s %10s\n", "label", "dtype", "m", "n", "k", "GFLOP");
    out << line;
    for (const GemmShape& g : plan.gemms) {
        std::snprintf(line, sizeof line, "  %-22s %-5s %8ld %8ld %8ld %10.1f\n", g.label.c_str(), dtypeText(g.dtype),
            g.m, g.n, g.k, g.flops() / 1e9);
        out << line;
    }
    const AttentionPlan& a = plan.attention;
    out << "Attention (GEMM parts, bf16): " << a.batch << " sequence(s) x " << a.heads << " heads x " << a.seqLen
        << " tokens x head dim " << a.headDim << "; scores " << a.seqLen << "x" << a.seqLen << "x" << a.headDim
        << " and context " << a.seqLen << "x" << a.headDim << "x" << a.seqLen << ", " << a.batch * a.heads
        << " batched\n";
    out << "HBM: vectorized streaming copy kernel and cudaMemcpy device-to-device, " << bytesText(plan.hbmBufferBytes)
        << " buffers (bytes read + written)\n";
    out << "Host<->device: pinned memory, cudaMemcpyAsync, " << bytesText(plan.copyBufferBytes) << " each way\n";
    if (plan.peers) {
        out << "Peer copies: cudaMemcpyPeerAsync, " << bytesText(plan.copyBufferBytes) << ", every ordered pair of ";
        out << (facts.known ? std::to_string(facts.count) + " GPUs\n" : "the GPUs\n");
    }
    if (plan.collectives) {
        out << "NCCL (one process, ncclCommInitAll over " << (facts.known ? std::to_string(facts.count) : "all")
            << " GPUs; bus bandwidth as nccl-tests):";
        for (CollectiveOp op : plan.collectiveOps)
            out << " " << collectiveOpName(op);
        out << "\n  sizes:";
        for (long b : plan.collectiveBytes)
            out << " " << bytesText(b);
        out << "\n";
    }
    for (const std::string& c : plan.conditions)
        out << "Condition: " << c << "\n";
    for (const std::string& s : plan.skipped)
        out << "Skipped: " << s << "\n";
    return out.str();
}

} // namespace parallax::probe
