// SPDX-License-Identifier: Apache-2.0
#include "core/memory/ActivationMemory.h"

#include <algorithm>
#include <cmath>

namespace parallax::core {

namespace {
constexpr double kBf16 = 2.0;
constexpr double kMask = 1.0; // dropout masks are bytes (arXiv:2205.05198 sec. 4.1)
constexpr double kFp8 = 1.0;
// DeepSeek-V3 caches the attention output in a 12-bit E5M6 format (arXiv:2412.19437 sec. 3.3.2 (1)).
constexpr double kE5m6 = 1.5;

// Bytes per element of a tensor saved as a linear layer's input for its weight gradient. Under FP8,
// Transformer Engine's Linear / LayerNormLinear / GroupedLinear quantize the input before the GEMM
// and save that fp8 copy for the backward (TE docs, "Using FP8 with Transformer Engine"; the
// fused LayerNorm-linear emits its normalized output directly in fp8).
double linearInputBytes(const ActivationContext& c)
{
    return c.fp8 ? kFp8 : kBf16;
}

// Bytes per element of a saved SwiGLU input (gate and up). Megatron-Core's fused SwiGLU stores it in fp8
// under --activation-func-fp8-input-store (megatron/core/fusions/fused_bias_swiglu.py); DeepSeek-V3 caches
// the MoE layer's SwiGLU inputs in fp8 (arXiv:2412.19437 sec. 3.3.2 (2)). moeLayer: a routed or shared
// expert of an MoE layer, where DeepSeek's cache applies.
double swigluInputBytes(const ActivationContext& c, bool moeLayer)
{
    return c.swigluFp8InputStore || (moeLayer && c.deepseekActivationCache) ? kFp8 : kBf16;
}

// The attention output, saved by the fused attention for its backward and, as the output projection's
// input, for the weight gradient: the 16-bit tensor plus its fp8 copy under FP8, or DeepSeek-V3's single
// E5M6 copy that serves both.
double attentionOutputBytes(const ActivationContext& c)
{
    return c.deepseekActivationCache ? kE5m6 : kBf16 + (c.fp8 ? kFp8 : 0.0);
}

// Per token and `width` columns, the MLP tensors past its first linear's input: the activation function's
// input(s) (GELU: the 16-bit pre-activation; SwiGLU: gate and up at swigluInputBytes) and its output, the
// down projection's saved input (2, or 1 in fp8).
double mlpInternalsBytes(const ModelSpec& m, const ActivationContext& c, double width, double split, bool moeLayer)
{
    const double activationInput = m.activation == Activation::SwiGlu ? 2.0 * swigluInputBytes(c, moeLayer) : kBf16;
    return (activationInput + linearInputBytes(c)) * width / split;
}

// Factor for tensors that are replicated over tp unless sequence parallelism shards them.
double replicatedShare(const ActivationContext& c)
{
    return c.sp ? 1.0 / c.tp : 1.0;
}
} // namespace

double localTokens(const ActivationContext& c)
{
    return c.seqLen / c.cp * c.microBatch * replicatedShare(c);
}

double routedTokensPerGpu(const LayerShape& shape, const ActivationContext& c)
{
    // Each token goes to top-k experts; an expert-tensor-parallel group of etp GPUs shares the
    // tokens of its experts, each shard processing all of them (Megatron-Core MoE).
    return localTokens(c) * shape.topK * c.expertLoadImbalance * c.etp;
}

unsigned recomputedModules(const ActivationContext& c)
{
    return c.recompute == Recompute::Selective ? c.recomputeModules : 0u;
}

double layerActivationBytesWithoutRecompute(const ModelSpec& m, const LayerShape& shape, const ActivationContext& c)
{
    const double tokens = c.seqLen / c.cp * c.microBatch; // s b on this CP rank
    const double t = c.tp;
    const double rep = replicatedShare(c);
    const double h = static_cast<double>(m.hidden);
    const double masks = m.dropout ? 1.0 : 0.0;
    double perToken = 0; // bytes per token of this GPU's sequence slice

    // Attention block (arXiv:2205.05198 sec. 4.1): LayerNorm input, QKV input, Q and K, V,
    // output-projection input, dropout mask.
    perToken += kBf16 * h * rep; // LayerNorm input
    perToken += linearInputBytes(c) * h * rep; // QKV (or MLA down-projection) input: the LayerNorm output
    perToken += kBf16 * shape.mlaLatentWidth * 2; // MLA latents and their normed copies, replicated
    perToken += kBf16 * (shape.heads * shape.qkHeadDim + shape.kvHeads * shape.qkHeadDim) / t; // Q, K
    perToken += kBf16 * shape.kvHeads * shape.vHeadDim / t; // V
    perToken += attentionOutputBytes(c) * shape.heads * shape.vHeadDim / t;
    perToken += kMask * masks * h * rep; // attention dropout mask
    // Score matrix per head (softmax output 2as, its dropout mask as, dropout output 2as; arXiv:2205.05198).
    const double keys = c.seqLen; // each query attends to the whole sequence (CP gathers keys)
    const double scores = (kBf16 + masks * (kMask + kBf16)) * shape.heads / t * keys;

    // MLP block: LayerNorm input, first linear input, activation input/output, dropout mask. A parallel block
    // (arXiv:2204.02311 sec. 2) has no norm of its own: its first linear reads the attention's normed input,
    // saved once.
    if (!(m.parallelBlock && !shape.moe)) {
        perToken += kBf16 * h * rep; // LayerNorm input
        // MLP input, the LayerNorm output; on MoE layers the router (a 16-bit GEMM in Megatron-Core) saves it.
        perToken += (shape.moe ? kBf16 : linearInputBytes(c)) * h * rep;
    }
    perToken += kMask * masks * h * rep;
    if (shape.mlpWidth > 0)
        perToken += mlpInternalsBytes(m, c, shape.mlpWidth, t, shape.moe);
    double total = perToken * tokens;
    if (c.flashAttention)
        total += 4.0 * shape.heads / t * tokens; // fp32 softmax statistics (arXiv:2205.14135 Algorithm 2)
    else if ((recomputedModules(c) & recompute_module::kCoreAttn) == 0)
        total += scores * tokens; // selective recompute rebuilds the attention core in the backward
    if (shape.moe) {
        const double local = localTokens(c);
        total += 4.0 * shape.experts * local; // fp32 router logits
        const double routed = routedTokensPerGpu(shape, c);
        // Dispatched expert inputs plus the expert MLP's intermediates (split over etp).
        total += routed * (linearInputBytes(c) * h + mlpInternalsBytes(m, c, shape.expertWidth, c.etp, true));
    }
    return total;
}

double selectiveRecomputeFreedBytes(const ModelSpec& m, const LayerShape& shape, const ActivationContext& c)
{
    namespace rm = recompute_module;
    const unsigned modules = recomputedModules(c);
    if (modules == 0)
        return 0.0;
    const double tokens = c.seqLen / c.cp * c.microBatch;
    const double t = c.tp;
    const double h = static_cast<double>(m.hidden);
    const double rep = replicatedShare(c);
    const bool mla = shape.mlaLatentWidth > 0;
    double perToken = 0;
    if ((modules & rm::kCoreAttn) != 0 && c.flashAttention) {
        // The checkpoint keeps Q, K, V; the fused kernel's own saved output and fp32 softmax statistics
        // go. The output projection still saves its input: the same 16-bit tensor, or under FP8 its fp8
        // copy, so only the 16-bit copy is freed then (megatron/core/transformer/attention.py
        // _checkpoint_attention_forward).
        // DeepSeek's single E5M6 copy is the output projection's input: it stays.
        const double freedOutput = c.fp8 && !c.deepseekActivationCache ? kBf16 : 0.0;
        perToken += 4.0 * shape.heads / t + freedOutput * shape.heads * shape.vHeadDim / t;
    }
    if ((modules & rm::kLayernorm) != 0) {
        // input_layernorm and pre_mlp_layernorm, where they are modules of their own (Megatron-Core's
        // TE spec fuses the others into TELayerNormColumnParallelLinear, an IdentityOp norm that is not
        // recomputed): before MLA's down projections, and before the router on MoE layers.
        if (mla)
            perToken += linearInputBytes(c) * h * rep;
        if (shape.moe)
            perToken += kBf16 * h * rep; // the router's saved input
    }
    if ((modules & rm::kMlaUpProj) != 0 && mla) {
        // The up projections and RoPE re-run from the latents: their normed copies and Q, K, V go.
        perToken += kBf16 * shape.mlaLatentWidth;
        perToken += kBf16 * (shape.heads * shape.qkHeadDim + shape.kvHeads * (shape.qkHeadDim + shape.vHeadDim)) / t;
    }
    if ((modules & rm::kMlp) != 0 && !shape.moe && shape.mlpWidth > 0) {
        // The dense MLP checkpointed from its input (the residual its fused norm reads): the first
        // linear's input and the MLP internals go.
        // A parallel block's MLP input is the attention's too: it stays.
        perToken += (m.parallelBlock ? 0.0 : linearInputBytes(c) * h * rep)
            + mlpInternalsBytes(m, c, shape.mlpWidth, t, false);
    }
    double routedBytes = 0;
    if (shape.moe) {
        const double routed = routedTokensPerGpu(shape, c) / tokens; // routed copies per local token
        if ((modules & rm::kMoe) != 0) {
            // The MoE layer checkpointed from the normed input: router logits, routed copies, expert and
            // shared-expert internals go (the dispatch and combine all-to-alls re-run too).
            perToken += 4.0 * shape.experts * localTokens(c) / tokens;
            routedBytes = routed * (linearInputBytes(c) * h + mlpInternalsBytes(m, c, shape.expertWidth, c.etp, true));
            if (shape.mlpWidth > 0)
                perToken += mlpInternalsBytes(m, c, shape.mlpWidth, t, true);
        } else {
            if ((modules & rm::kMoeAct) != 0) {
                // The expert activation's output, the down projection's input, goes. The checkpoint keeps
                // the activation's input as it received it, 16-bit (CheckpointWithoutOutput saves its
                // arguments; megatron/core/tensor_parallel/random.py), so Megatron's fp8 input store saves
                // nothing here: its fp8 copy is not kept. DeepSeek-V3 caches that input in fp8 itself.
                const double width = shape.expertWidth / c.etp;
                const double keptSwigluInput
                    = m.activation == Activation::SwiGlu && c.swigluFp8InputStore && !c.deepseekActivationCache
                    ? (kBf16 - kFp8) * 2.0 * width
                    : 0.0;
                routedBytes = routed * (linearInputBytes(c) * width - keptSwigluInput);
            }
            if ((modules & rm::kSharedExperts) != 0 && shape.mlpWidth > 0)
                perToken += mlpInternalsBytes(m, c, shape.mlpWidth, t, true);
        }
    }
    return (perToken + routedBytes) * tokens;
}

double layerActivationBytes(const ModelSpec& m, const LayerShape& shape, const ActivationContext& c)
{
    if (c.recompute == Recompute::Full) {
        // Only the layer input is checkpointed: 2 s b h, sharded over tp with sequence parallelism
        // (arXiv:2205.05198 sec. 5, Table 2 last row; DESIGN.md).
        return kBf16 * static_cast<double>(m.hidden) * c.seqLen / c.cp * c.microBatch * replicatedShare(c);
    }
    const double freed = selectiveRecomputeFreedBytes(m, shape, c);
    const double all = layerActivationBytesWithoutRecompute(m, shape, c);
    return freed > 0 ? all - freed : all;
}

double routedActivationBytes(const ModelSpec& m, const LayerShape& shape, const ActivationContext& c)
{
    if (!shape.moe)
        return 0.0;
    ActivationContext unrouted = c;
    unrouted.expertLoadImbalance = 0.0;
    return layerActivationBytes(m, shape, c) - layerActivationBytes(m, shape, unrouted);
}

double storedRoutedLoadFactor(double perLayer, double moeLayers)
{
    return moeLayers > 1 ? 1.0 + (perLayer - 1.0) / std::sqrt(moeLayers) : perLayer;
}

double rankMoeLayerActivationBytes(double layerBytes, double routedBytes, double perLayer, double moeLayers)
{
    if (perLayer <= 0 || routedBytes <= 0)
        return layerBytes;
    return layerBytes - routedBytes * (1.0 - storedRoutedLoadFactor(perLayer, moeLayers) / perLayer);
}

double layerWPendingBytes(const ModelSpec& m, const LayerShape& shape, const ActivationContext& c)
{
    (void)m;
    const double tokens = c.seqLen / c.cp * c.microBatch;
    double bytes = 0;
    for (const LinearShape& l : shape.linears) {
        const double split = l.tensorParallel ? c.tp : 1.0;
        const double rows = l.routedExpert ? routedTokensPerGpu(shape, c) : tokens;
        const double shard = l.routedExpert ? c.etp : split;
        const double inSplit = l.rowParallel ? shard : 1.0;
        const double outSplit = l.rowParallel ? 1.0 : shard;
        // Input of the linear and the gradient of its output, both needed by dW = x^T dy. Under FP8 the
        // deferred weight-gradient GEMM keeps the fp8 operands it runs on: the saved fp8 input and the
        // quantized output gradient (Transformer Engine Linear / GroupedLinear with delay_wgrad_compute,
        // whose wgrad store holds the GEMM's operands); the router stays a 16-bit GEMM.
        const double element = c.fp8 && l.part != LinearPart::Router ? kFp8 : kBf16;
        bytes += element * rows * (l.inFeatures / inSplit + l.outFeatures / outSplit);
    }
    return bytes;
}

} // namespace parallax::core
