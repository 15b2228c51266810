// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace parallax::core {

enum class ScenarioMode { Training, Inference };

// Weight storage formats of serving engines (vLLM / SGLang quantization methods).
enum class WeightFormat { Bf16, Fp8, Int8, Int4, Nvfp4, Mxfp4 };
enum class KvDtype { Bf16, Fp8 };
// What drafts the tokens of speculative decoding, by vLLM's speculative_config "method" names: the model's own
// multi-token-prediction module, a separate smaller model (draft_model), or an EAGLE-3 head (arXiv:2503.01840).
enum class SpeculativeMethod { Mtp, DraftModel, Eagle3 };

// The `inference` block of a scenario (SCENARIO.md, second release). Parallel degrees come from
// `parallel`: tp, pp, dp (attention replicas; with ep > 1 this is DP-attention, experts sharded over
// ep ranks of the tp x dp group as SGLang's --enable-dp-attention and vLLM's --enable-expert-parallel).
struct InferenceConfig {
    WeightFormat weightFormat = WeightFormat::Bf16;
    KvDtype kvDtype = KvDtype::Bf16;
    int isl = 1024; // input (prompt) tokens per request
    int osl = 1024; // output tokens per request
    int contextLen = 0; // tokens a request may hold (input + output); 0 means isl + osl
    int concurrency = 0; // requests in flight; 0 means "max": solved from the KV capacity
    // Share of each GPU's HBM the engine may use; vLLM's --gpu-memory-utilization default 0.9
    // (vLLM engine arguments docs); the rest is left to other processes and the driver.
    double gpuMemoryUtilization = 0.9;
    // Speculative decoding: draft tokens proposed per step (vLLM num_speculative_tokens); 0 decodes one token per
    // step. The drafter is `speculativeMethod`'s: by default the model's own multi-token-prediction module (vLLM
    // --speculative-config method "mtp", SGLang --speculative-algorithm EAGLE on an MTP checkpoint).
    int speculativeTokens = 0;
    SpeculativeMethod speculativeMethod = SpeculativeMethod::Mtp;
    // The draft model of method draft_model (SGLang --speculative-algorithm STANDALONE, TensorRT-LLM decoding_type
    // DraftTarget): a model preset id whose tokenizer is the model's; empty with the other methods.
    std::string draftModel;
    // Probability that each draft token is accepted, given the ones before it were (arXiv:2211.17192
    // sec. 3.1's alpha). Default: DeepSeek-V3's MTP, "85%-90%" for the second token (arXiv:2412.19437
    // sec. 5.4.3), its low end; it depends on the traffic, so it is the user's to set.
    double draftAcceptance = 0.85;

    int effectiveContextLen() const { return contextLen > 0 ? contextLen : isl + osl; }
    bool solvesConcurrency() const { return concurrency <= 0; }
};

const char* toString(ScenarioMode m);
const char* toString(WeightFormat f);
const char* toString(KvDtype d);
const char* toString(SpeculativeMethod m); // "mtp", "draft_model", "eagle3"
bool parseScenarioMode(const std::string& s, ScenarioMode& out);
bool parseWeightFormat(const std::string& s, WeightFormat& out);
bool parseKvDtype(const std::string& s, KvDtype& out);
bool parseSpeculativeMethod(const std::string& s, SpeculativeMethod& out);

} // namespace parallax::core
