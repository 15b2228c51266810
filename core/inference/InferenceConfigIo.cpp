// SPDX-License-Identifier: Apache-2.0
#include "core/inference/InferenceConfigIo.h"

#include "core/Limits.h"
#include "core/io/JsonReader.h"
#include "core/io/PresetLibrary.h"

namespace parallax::core {

InferenceConfig readInferenceConfig(JsonReader& r)
{
    InferenceConfig c;
    const std::string weights = r.string("weight_dtype", "bf16");
    if (!parseWeightFormat(weights, c.weightFormat))
        r.fail("weight_dtype", "must be bf16, fp8, int8, int4, nvfp4 or mxfp4, got \"" + weights + "\"");
    const std::string kv = r.string("kv_dtype", "bf16");
    if (!parseKvDtype(kv, c.kvDtype))
        r.fail("kv_dtype", "must be bf16 or fp8, got \"" + kv + "\"");
    c.isl = static_cast<int>(r.integer("isl", 1, kMaxSeqLen, c.isl));
    c.osl = static_cast<int>(r.integer("osl", 1, kMaxSeqLen, c.osl));
    c.contextLen = static_cast<int>(r.integer("context_len", 1, kMaxSeqLen, 0));
    if (c.contextLen > 0 && c.contextLen < c.isl + c.osl)
        r.fail("context_len",
            "must hold isl + osl = " + std::to_string(c.isl + c.osl) + " tokens, got " + std::to_string(c.contextLen)
                + ": raise context_len or lower isl/osl");
    if (r.has("concurrency") && r.at("concurrency").is_string()) {
        const std::string v = r.string("concurrency");
        if (v != "max")
            r.fail("concurrency", "must be a number of requests or \"max\", got \"" + v + "\"");
        c.concurrency = 0;
    } else {
        c.concurrency = static_cast<int>(r.integer("concurrency", 1, 1 << 20, 0));
    }
    c.gpuMemoryUtilization = r.number("gpu_memory_utilization", 0.05, 1.0, c.gpuMemoryUtilization);
    c.speculativeTokens = static_cast<int>(r.integer("speculative_tokens", 0, kMaxSpeculativeTokens, 0));
    c.draftAcceptance = r.number("draft_acceptance", 0.0, 1.0, c.draftAcceptance);
    c.draftModel = r.string("draft_model", "");
    if (!c.draftModel.empty() && !PresetLibrary::instance().findModel(c.draftModel))
        r.fail("draft_model",
            "unknown model preset \"" + c.draftModel + "\"; known: " + PresetLibrary::instance().modelIds()
                + " (or leave it out: the model's MTP module drafts)");
    // Without a method: draft_model when a draft model is named, else the model's MTP module.
    c.speculativeMethod = c.draftModel.empty() ? SpeculativeMethod::Mtp : SpeculativeMethod::DraftModel;
    if (r.has("speculative_method")) {
        const std::string method = r.string("speculative_method");
        if (!parseSpeculativeMethod(method, c.speculativeMethod))
            r.fail("speculative_method", "must be mtp, draft_model or eagle3, got \"" + method + "\"");
    }
    if (c.speculativeMethod == SpeculativeMethod::DraftModel && c.draftModel.empty())
        r.fail("draft_model", "speculative_method draft_model needs the draft model's preset here");
    if (c.speculativeMethod != SpeculativeMethod::DraftModel && !c.draftModel.empty())
        r.fail("draft_model",
            std::string("is read only with speculative_method draft_model, got ") + toString(c.speculativeMethod)
                + ": remove draft_model or set speculative_method to draft_model");
    return c;
}

nlohmann::json inferenceConfigToJson(const InferenceConfig& c)
{
    nlohmann::json j { { "weight_dtype", toString(c.weightFormat) }, { "kv_dtype", toString(c.kvDtype) },
        { "isl", c.isl }, { "osl", c.osl }, { "gpu_memory_utilization", c.gpuMemoryUtilization } };
    if (c.contextLen > 0)
        j["context_len"] = c.contextLen;
    j["concurrency"] = c.solvesConcurrency() ? nlohmann::json("max") : nlohmann::json(c.concurrency);
    if (c.speculativeTokens > 0) {
        j["speculative_tokens"] = c.speculativeTokens;
        j["draft_acceptance"] = c.draftAcceptance;
    }
    if (c.speculativeMethod == SpeculativeMethod::Eagle3)
        j["speculative_method"] = toString(c.speculativeMethod); // the others follow from draft_model
    if (!c.draftModel.empty())
        j["draft_model"] = c.draftModel;
    return j;
}

} // namespace parallax::core
