// SPDX-License-Identifier: Apache-2.0
#include "core/parallel/OptimizerPrecision.h"

#include <array>

namespace parallax::core {

namespace {
constexpr std::array<const char*, 4> kNames { "fp32", "fp16", "bf16", "fp8" }; // in kStateDTypes order
constexpr double kRemainderBytes = 2.0; // the 16 bits of an fp32 value a bf16 copy does not hold
constexpr std::array<const char*, 4> kTorchNames { "torch.float32", "torch.float16", "torch.bfloat16",
    "torch.uint8" }; // in kStateDTypes order; Megatron-LM maps fp8 states to uint8 storage

// The dtypes Megatron-Core uses: the fields as given under the precision-aware optimizer, fp32 without it.
OptimizerPrecision effective(const OptimizerPrecision& o)
{
    return o.precisionAware ? o : OptimizerPrecision {};
}
} // namespace

const char* toString(StateDType d)
{
    return kNames[static_cast<std::size_t>(d)];
}

const char* torchDtypeName(StateDType d)
{
    return kTorchNames[static_cast<std::size_t>(d)];
}

bool parseStateDType(const std::string& s, StateDType& out)
{
    for (StateDType d : kStateDTypes) {
        if (s == toString(d) || s == torchDtypeName(d)) {
            out = d;
            return true;
        }
    }
    return false;
}

bool stateDTypeAllowed(OptimizerField field, StateDType d)
{
    // megatron/training/arguments.py choices of each flag.
    switch (field) {
    case OptimizerField::MainParams:
        return d == StateDType::Fp32 || d == StateDType::Fp16;
    case OptimizerField::MainGrads:
        return d == StateDType::Fp32 || d == StateDType::Bf16;
    case OptimizerField::ExpAvg:
    case OptimizerField::ExpAvgSq:
        return true;
    }
    return false;
}

std::string stateDTypeChoices(OptimizerField field)
{
    std::string out;
    for (StateDType d : kStateDTypes) {
        if (stateDTypeAllowed(field, d))
            out += (out.empty() ? "" : ", ") + std::string(toString(d));
    }
    return out;
}

const char* fieldKey(OptimizerField field)
{
    switch (field) {
    case OptimizerField::MainParams:
        return "main_params_dtype";
    case OptimizerField::MainGrads:
        return "main_grads_dtype";
    case OptimizerField::ExpAvg:
        return "exp_avg_dtype";
    case OptimizerField::ExpAvgSq:
        return "exp_avg_sq_dtype";
    }
    return "?";
}

std::string megatronFlag(OptimizerField field)
{
    std::string flag = std::string("--") + fieldKey(field);
    for (char& ch : flag)
        ch = ch == '_' ? '-' : ch;
    return flag;
}

StateDType OptimizerPrecision::*fieldMember(OptimizerField field)
{
    switch (field) {
    case OptimizerField::MainParams:
        return &OptimizerPrecision::mainParams;
    case OptimizerField::MainGrads:
        return &OptimizerPrecision::mainGrads;
    case OptimizerField::ExpAvg:
        return &OptimizerPrecision::expAvg;
    case OptimizerField::ExpAvgSq:
        break;
    }
    return &OptimizerPrecision::expAvgSq;
}

StateDType fieldValue(const OptimizerPrecision& o, OptimizerField field)
{
    return o.*fieldMember(field);
}

double mainParamBytesPerParam(const OptimizerPrecision& o)
{
    const OptimizerPrecision e = effective(o);
    if (e.precisionAware && e.mainParams == StateDType::Fp32 && e.storeParamRemainders)
        return kRemainderBytes;
    return stateDTypeBytes(e.mainParams);
}

double optimizerStateBytesPerParam(const OptimizerPrecision& o)
{
    const OptimizerPrecision e = effective(o);
    return mainParamBytesPerParam(e) + stateDTypeBytes(e.expAvg) + stateDTypeBytes(e.expAvgSq);
}

double mainGradBytesPerParam(const OptimizerPrecision& o)
{
    return stateDTypeBytes(effective(o).mainGrads);
}

double mainGradCopyBytesPerParam(const OptimizerPrecision& o, double gradBufferBytesPerParam)
{
    const double main = mainGradBytesPerParam(o);
    return main == gradBufferBytesPerParam ? 0.0 : main;
}

double adamTrafficBytesPerParam(const OptimizerPrecision& o)
{
    // With remainders FusedAdam reads and writes the bf16 weight and its 16-bit remainder: 4 B each way,
    // as an fp32 master costs.
    const OptimizerPrecision e = effective(o);
    const double state = stateDTypeBytes(e.mainParams) + stateDTypeBytes(e.expAvg) + stateDTypeBytes(e.expAvgSq);
    return 2.0 * state + stateDTypeBytes(e.mainGrads);
}

std::string optimizerPrecisionText(const OptimizerPrecision& o)
{
    if (!o.precisionAware)
        return {};
    std::string detail;
    for (OptimizerField f : kOptimizerFields) {
        const StateDType d = fieldValue(o, f);
        if (d == StateDType::Fp32)
            continue;
        std::string key = fieldKey(f);
        key.resize(key.size() - std::string("_dtype").size());
        detail += (detail.empty() ? "" : ", ") + key + " " + toString(d);
    }
    if (!o.storeParamRemainders)
        detail += (detail.empty() ? "" : ", ") + std::string("no param remainders");
    return "precision-aware optimizer" + (detail.empty() ? std::string() : " (" + detail + ")");
}

OptimizerPrecisionProblem optimizerPrecisionProblem(const OptimizerPrecision& o, int zeroStage)
{
    // The keys are built only for a problem: the engine checks every evaluation.
    for (OptimizerField f : kOptimizerFields) {
        const StateDType d = fieldValue(o, f);
        if (stateDTypeAllowed(f, d) && (d == StateDType::Fp32 || o.precisionAware))
            continue;
        const std::string key = std::string("training.optimizer.") + fieldKey(f);
        if (!stateDTypeAllowed(f, d))
            return { key,
                std::string("Megatron-Core does not offer ") + toString(d) + " here; use one of "
                    + stateDTypeChoices(f) };
        if (d != StateDType::Fp32 && !o.precisionAware)
            return { key,
                std::string(toString(d)) + " needs training.optimizer.precision_aware true "
                    + "(Megatron-Core --use-precision-aware-optimizer); set it, or " + fieldKey(f) + " to fp32" };
    }
    if (!o.storeParamRemainders && !o.precisionAware)
        return { "training.optimizer.store_param_remainders",
            "only the precision-aware optimizer stores remainders; set training.optimizer.precision_aware true "
            "or drop the key" };
    if (o.precisionAware && zeroStage < 1)
        return { "training.optimizer.precision_aware",
            "Megatron-Core runs the precision-aware optimizer inside its distributed optimizer; set parallel.zero "
            "to 1 or more, or precision_aware to false" };
    return {};
}

} // namespace parallax::core
