// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/inference/InferenceConfig.h"
#include "core/model/ModelSpec.h"

namespace parallax::core {

// Speculative decoding with the model's own multi-token-prediction module as the drafter (arXiv:2412.19437
// sec. 5.4.3; vLLM speculative method "mtp", SGLang's EAGLE worker on an MTP checkpoint). Each step the module
// proposes `speculative_tokens` tokens one after another, then the model scores them and the token after them
// in one forward and keeps the longest accepted prefix plus its own next token.

// Draft tokens one step proposes: the scenario's, or 0 when the model has no MTP module to draft with.
int draftTokensPerStep(const ModelSpec& m, const InferenceConfig& c);

// Tokens a step emits per request when each of k drafts is accepted with probability alpha given the ones
// before it: 1 + alpha + ... + alpha^k = (1 - alpha^(k+1)) / (1 - alpha) (arXiv:2211.17192 sec. 3.1, eq. 1).
double acceptedTokensPerStep(int draftTokens, double acceptance);

// The drafter's weights on the GPU that runs it (the last pipeline stage): per MTP depth a block like the last
// layer, split as the model's layers are, and its 2h -> h projection with three RMSNorms, which vLLM loads as a
// plain replicated nn.Linear (vllm/model_executor/models/deepseek_mtp.py) in bf16. Its embedding and head are
// the model's. 0 without speculative decoding.
double draftWeightBytes(const ModelSpec& m, const InferenceConfig& c, int tp, int expertShards);

// The drafter's KV cache per request on that GPU: one layer per MTP depth (vLLM allocates the drafter's
// attention layers in the same pool; repeated drafts with one depth reuse its cache). 0 without speculation.
double draftKvBytesPerRequest(const ModelSpec& m, const InferenceConfig& c, int tp, double contextTokens);

} // namespace parallax::core
