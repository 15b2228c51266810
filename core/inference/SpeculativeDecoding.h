// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/inference/InferenceConfig.h"
#include "core/model/LayerShape.h"
#include "core/model/ModelSpec.h"

namespace parallax::core {

// Speculative decoding (arXiv:2211.17192): each step a drafter proposes `speculative_tokens` tokens one after
// another, then the model scores them and the token after them in one forward and keeps the longest accepted
// prefix plus its own next token. The drafter is the model's own multi-token-prediction module
// (arXiv:2412.19437 sec. 5.4.3; vLLM speculative method "mtp", SGLang's EAGLE worker on an MTP checkpoint), or
// a separate smaller model of the same tokenizer (InferenceConfig::draftModel; vLLM method "draft_model",
// SGLang STANDALONE, TensorRT-LLM DraftTarget), which decodes its k tokens as a model of its own, or an EAGLE-3
// head (vLLM method "eagle3", SGLang EAGLE3, TensorRT-LLM Eagle3).

// The scenario's separate draft model (a preset), or nullptr when the MTP module drafts.
const ModelSpec* draftModelOf(const InferenceConfig& c);

// EAGLE-3's head (arXiv:2503.01840 sec. 3; vLLM llama_eagle3.py): one decoder layer like the model's last, whose
// QKV projection reads the token's embedding and the fused feature side by side (2h wide), an fc that fuses the
// model's low, middle and high hidden states (3h -> h, replicated), and its own LM head over a draft vocabulary
// mapped to the model's (d2t); the embedding is the model's. Modelled for dense models without MLA.
bool eagle3Fits(const ModelSpec& m);
LayerShape eagle3LayerShape(const ModelSpec& m);
// draft_vocab_size of the published EAGLE-3 Llama heads (yuhuili/EAGLE3-LLaMA3.1-Instruct-8B config.json).
inline constexpr double kEagle3DraftVocab = 32000;

// The weight format of a draft model or an EAGLE-3 head: its own bf16 checkpoint (vLLM loads the drafter with the
// quantization its checkpoint states, SpeculativeConfig.quantization; the model's --quantization is not applied to it).
inline constexpr WeightFormat kDraftModelWeightFormat = WeightFormat::Bf16;

// Draft tokens one step proposes: the scenario's, or 0 when there is nothing to draft with (no draft model and
// no MTP module).
int draftTokensPerStep(const ModelSpec& m, const InferenceConfig& c);

// Tokens a step emits per request when each of k drafts is accepted with probability alpha given the ones
// before it: 1 + alpha + ... + alpha^k = (1 - alpha^(k+1)) / (1 - alpha) (arXiv:2211.17192 sec. 3.1, eq. 1).
double acceptedTokensPerStep(int draftTokens, double acceptance);

// The drafter's weights on the GPU that runs it (the last pipeline stage): per MTP depth a block like the last
// layer, split as the model's layers are, and its 2h -> h projection with three RMSNorms, which vLLM loads as a
// plain replicated nn.Linear (vllm/model_executor/models/deepseek_mtp.py) in bf16. Its embedding and head are
// the model's. A draft model: all of it, bf16, split over the model's tp (vLLM's default
// draft_tensor_parallel_size). An EAGLE-3 head: its layer and head split over tp, its fc replicated, bf16.
// 0 without speculative decoding.
double draftWeightBytes(const ModelSpec& m, const InferenceConfig& c, int tp, int expertShards);

// The drafter's KV cache per request on that GPU: one layer per MTP depth (vLLM allocates the drafter's
// attention layers in the same pool; repeated drafts with one depth reuse its cache), every layer of a draft
// model, the one layer of an EAGLE-3 head. 0 without speculation.
double draftKvBytesPerRequest(const ModelSpec& m, const InferenceConfig& c, int tp, double contextTokens);

// The same per token of context (the KV pool's share the drafter takes).
double draftKvBytesPerToken(const ModelSpec& m, const InferenceConfig& c, int tp);

} // namespace parallax::core
