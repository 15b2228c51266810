// SPDX-License-Identifier: Apache-2.0
#include "core/inference/ServingMemory.h"

#include "core/inference/KvCache.h"
#include "core/inference/SpeculativeDecoding.h"
#include "core/inference/WeightBytes.h"
#include "core/model/ModelMath.h"
#include "core/parallel/StageLayout.h"

#include <algorithm>
#include <limits>

namespace parallax::core {

double prefillWorkspaceBytes(const ModelSpec& m, ServingLayout layout, double tokens, int maxNumSeqs)
{
    const double h = static_cast<double>(m.hidden);
    const double tp = layout.tp;
    const double qk = queryKeyHeadDim(m);
    const double v = valueHeadDim(m);
    const double kvHeads = m.mla ? m.heads : m.kvHeads;
    const double attention = (m.heads * qk + kvHeads * (qk + v)) / tp + m.heads * v / tp;
    const double up = m.activation == Activation::SwiGlu ? 3.0 : 2.0; // gate + up, then the activated product
    double mlp = m.ffnHidden / tp * up;
    if (m.isMoe()) {
        // Routed intermediates per token of a chunk on one GPU: every attention replica of the EP group
        // sends its chunk, each expert's work split over expertShards GPUs (by experts or by width).
        const double expertWidth = static_cast<double>(m.moe->expertFfnHidden);
        const double routed = static_cast<double>(layout.dp) * m.moe->topK * expertWidth * up / layout.expertShards();
        const double dispatched
            = layout.ep > 1 ? static_cast<double>(layout.dp) * m.moe->topK / layout.ep * h : m.moe->topK * h;
        const double shared = m.moe->sharedExperts * expertWidth / tp * up;
        mlp = std::max(mlp, routed + shared + dispatched);
    }
    // One layer's bf16 activations at a time (vLLM frees each layer's intermediates before the next).
    const double perToken = 2.0 * (2.0 * h + std::max(attention, mlp));
    // The sampler's fp32 logits, vocabulary-parallel.
    const double logits = 4.0 * maxNumSeqs * static_cast<double>(m.vocab) / tp;
    return tokens * perToken + logits;
}

ServingMemory servingMemory(
    const ServingMemoryInputs& in, double& kvBytesPerRequestOnLimitingStage, double& kvBytesPerTokenOnLimitingStage)
{
    const ModelSpec& m = in.model;
    const ServingLayout& L = in.layout;
    const StageLayout stages(m.layers, L.pp);
    const int last = stages.stages() - 1;
    const double context = in.config.effectiveContextLen();
    const double budget = in.config.gpuMemoryUtilization * in.hbmBytes;
    const int communicators = (L.tp > 1 ? 1 : 0) + (L.ep > 1 ? 1 : 0) + (L.pp > 1 ? 1 : 0);

    ServingMemory best;
    double fewestRequests = std::numeric_limits<double>::infinity();
    for (int s = 0; s < stages.stages(); ++s) {
        ServingMemory mem;
        mem.hbmBytes = in.hbmBytes;
        mem.reserveBytes = in.hbmBytes - budget;
        mem.weightsBytes = servingWeightBytes(m, in.config.weightFormat, L.tp, L.expertShards(), stages.firstLayer(s),
            stages.endLayer(s), s == 0, s == last)
                               .total();
        // The drafter runs beside the head (vLLM places the drafter on the last pipeline rank).
        const bool drafts = s == last && draftTokensPerStep(m, in.config) > 0;
        if (drafts)
            mem.weightsBytes += draftWeightBytes(m, in.config, L.tp, L.expertShards());
        mem.workspaceBytes = prefillWorkspaceBytes(m, L, in.defaults.maxBatchedTokens, in.defaults.maxNumSeqs);
        mem.cudaGraphBytes = in.defaults.cudaGraphBytes;
        mem.runtimeBytes = in.defaults.cudaContextBytes + communicators * in.defaults.ncclBytesPerCommunicator;
        // vLLM: KV cache = gpu_memory_utilization x total - weights - peak activations - non-torch memory
        // (vLLM docs, "Conserving memory"; gpu_worker.determine_available_memory).
        mem.kvCacheBytes = budget - mem.usedBytes();
        const double perRequest
            = kvBytesPerRequest(m, in.config.kvDtype, L.tp, stages.firstLayer(s), stages.endLayer(s), context)
            + (drafts ? draftKvBytesPerRequest(m, in.config, L.tp, context) : 0.0);
        const double requests = perRequest > 0 ? mem.kvCacheBytes / perRequest : 0;
        if (s == 0 || requests < fewestRequests) {
            fewestRequests = requests;
            best = mem;
            kvBytesPerRequestOnLimitingStage = perRequest;
            kvBytesPerTokenOnLimitingStage = stages.layerCount(s) * kvBytesPerTokenPerLayer(m, in.config.kvDtype, L.tp)
                + (drafts ? draftKvBytesPerToken(m, in.config, L.tp) : 0.0);
        }
    }
    return best;
}

} // namespace parallax::core
