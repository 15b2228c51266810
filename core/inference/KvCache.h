// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/inference/InferenceConfig.h"
#include "core/model/ModelSpec.h"

namespace parallax::core {

double kvElementBytes(KvDtype d);

// KV cache bytes one token adds in one layer on one GPU of a tp-way attention split:
// MHA / GQA: K and V of the GPU's kv heads, max(1, kv_heads / tp) (vLLM ModelConfig.get_num_kv_heads
// replicates a kv head when tp > kv_heads). MLA: the compressed latent kv_lora_rank plus the decoupled
// rope key, (d_c + d_h^R) elements (arXiv:2405.04434 sec. 2.1.2), replicated on every TP rank
// (vLLM / SGLang MLA backends: the latent is not split by heads), so only DP-attention divides it.
double kvBytesPerTokenPerLayer(const ModelSpec& m, KvDtype dtype, int tp);

// Whole model, unsharded (tp = 1): e.g. Llama 3 70B bf16 = 2 x 80 x 8 x 128 x 2 B = 327,680 B.
double kvBytesPerToken(const ModelSpec& m, KvDtype dtype);

// Bytes one request of `contextTokens` holds on one GPU for layers [firstLayer, endLayer): windowed
// layers keep at most slidingWindow tokens (arXiv:2310.06825 sec. 2, rolling buffer cache).
double kvBytesPerRequest(const ModelSpec& m, KvDtype dtype, int tp, int firstLayer, int endLayer, double contextTokens);

} // namespace parallax::core
