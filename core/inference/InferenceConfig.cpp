// SPDX-License-Identifier: Apache-2.0
#include "core/inference/InferenceConfig.h"

namespace parallax::core {

const char* toString(ScenarioMode m)
{
    return m == ScenarioMode::Inference ? "inference" : "training";
}

const char* toString(WeightFormat f)
{
    switch (f) {
    case WeightFormat::Bf16:
        return "bf16";
    case WeightFormat::Fp8:
        return "fp8";
    case WeightFormat::Int8:
        return "int8";
    case WeightFormat::Int4:
        return "int4";
    case WeightFormat::Nvfp4:
        return "nvfp4";
    case WeightFormat::Mxfp4:
        return "mxfp4";
    }
    return "bf16";
}

const char* toString(KvDtype d)
{
    return d == KvDtype::Fp8 ? "fp8" : "bf16";
}

const char* toString(SpeculativeMethod m)
{
    switch (m) {
    case SpeculativeMethod::DraftModel:
        return "draft_model";
    case SpeculativeMethod::Eagle3:
        return "eagle3";
    case SpeculativeMethod::Mtp:
        break;
    }
    return "mtp";
}

bool parseSpeculativeMethod(const std::string& s, SpeculativeMethod& out)
{
    for (SpeculativeMethod m : { SpeculativeMethod::Mtp, SpeculativeMethod::DraftModel, SpeculativeMethod::Eagle3 }) {
        if (s == toString(m)) {
            out = m;
            return true;
        }
    }
    return false;
}

bool parseScenarioMode(const std::string& s, ScenarioMode& out)
{
    if (s == "training")
        out = ScenarioMode::Training;
    else if (s == "inference")
        out = ScenarioMode::Inference;
    else
        return false;
    return true;
}

bool parseWeightFormat(const std::string& s, WeightFormat& out)
{
    for (WeightFormat f : { WeightFormat::Bf16, WeightFormat::Fp8, WeightFormat::Int8, WeightFormat::Int4,
             WeightFormat::Nvfp4, WeightFormat::Mxfp4 }) {
        if (s == toString(f)) {
            out = f;
            return true;
        }
    }
    return false;
}

bool parseKvDtype(const std::string& s, KvDtype& out)
{
    if (s == "bf16")
        out = KvDtype::Bf16;
    else if (s == "fp8")
        out = KvDtype::Fp8;
    else
        return false;
    return true;
}

} // namespace parallax::core
