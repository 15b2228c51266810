// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <string>

namespace parallax::core {

// Storage dtype of one optimizer buffer.
enum class StateDType { Fp32, Fp16, Bf16, Fp8 };
inline constexpr std::array<StateDType, 4> kStateDTypes { StateDType::Fp32, StateDType::Fp16, StateDType::Bf16,
    StateDType::Fp8 };

// Megatron-Core's precision-aware optimizer (OptimizerConfig.use_precision_aware_optimizer,
// --use-precision-aware-optimizer): Transformer Engine's FusedAdam keeps the main parameters, the
// gradients it reads and the Adam moments in the dtypes chosen (megatron/core/optimizer/
// optimizer_config.py), inside the DistributedOptimizer (core/optimizer/distrib_optimizer.py).
// Off, every field but precisionAware is ignored: fp32 main parameters and moments (12 B / param).
struct OptimizerPrecision {
    bool precisionAware = false;
    StateDType mainParams = StateDType::Fp32; // --main-params-dtype: fp32 | fp16
    StateDType mainGrads = StateDType::Fp32; // --main-grads-dtype: fp32 | bf16
    StateDType expAvg = StateDType::Fp32; // --exp-avg-dtype: fp32 | fp16 | bf16 | fp8
    StateDType expAvgSq = StateDType::Fp32; // --exp-avg-sq-dtype: fp32 | fp16 | bf16 | fp8
    // OptimizerConfig.store_param_remainders (default true, --no-store-param-remainders): with fp32
    // main parameters of bf16 weights FusedAdam stores only the low 16 bits the bf16 copy lacks.
    bool storeParamRemainders = true;
    bool operator==(const OptimizerPrecision&) const = default;
};

// The fields of training.optimizer, for the reader's and the validator's messages.
enum class OptimizerField { MainParams, MainGrads, ExpAvg, ExpAvgSq };
inline constexpr std::array<OptimizerField, 4> kOptimizerFields { OptimizerField::MainParams, OptimizerField::MainGrads,
    OptimizerField::ExpAvg, OptimizerField::ExpAvgSq };

constexpr double stateDTypeBytes(StateDType d)
{
    switch (d) {
    case StateDType::Fp32:
        return 4.0;
    case StateDType::Fp16:
    case StateDType::Bf16:
        return 2.0;
    case StateDType::Fp8:
        return 1.0;
    }
    return 4.0;
}
const char* toString(StateDType d);
// torch's name, as Megatron-Core's OptimizerConfig holds it: "torch.bfloat16"; fp8 is "torch.uint8".
const char* torchDtypeName(StateDType d);
// "bf16" or "torch.bfloat16" (a NeMo recipe's spelling) as its dtype; false if neither.
bool parseStateDType(const std::string& s, StateDType& out);
// Whether Megatron-Core offers `d` for `field` (its argparse choices).
bool stateDTypeAllowed(OptimizerField field, StateDType d);
// "fp32, fp16, bf16, fp8" or the subset `field` offers.
std::string stateDTypeChoices(OptimizerField field);
const char* fieldKey(OptimizerField field); // "main_params_dtype", ...
std::string megatronFlag(OptimizerField field); // "--main-params-dtype", ...
// The member that holds `field`'s dtype, to read or set it: o.*fieldMember(f).
StateDType OptimizerPrecision::*fieldMember(OptimizerField field);
StateDType fieldValue(const OptimizerPrecision& o, OptimizerField field);

// Bytes per parameter of the main-parameter copy: 4 (fp32), 2 as remainders or fp16.
double mainParamBytesPerParam(const OptimizerPrecision& o);
// Bytes per parameter the optimizer holds: main parameters + exp_avg + exp_avg_sq (12 by default).
double optimizerStateBytesPerParam(const OptimizerPrecision& o);
// Bytes per parameter of the gradient the optimizer reads: 4 (fp32) or 2 (bf16 --main-grads-dtype).
double mainGradBytesPerParam(const OptimizerPrecision& o);
// Bytes per parameter the optimizer copies the reduced gradient shard into before the step: none
// when the grad buffer already holds the dtype the optimizer reads (the precision-aware optimizer
// hands FusedAdam the buffer's shard as its decoupled gradient), else the main-gradient dtype.
double mainGradCopyBytesPerParam(const OptimizerPrecision& o, double gradBufferBytesPerParam);
// HBM traffic of one Adam update per parameter: the main parameters and both moments read and
// written, the gradient read (28 B with fp32 states: arXiv:1910.02054 sec. 3.1 state sizes).
double adamTrafficBytesPerParam(const OptimizerPrecision& o);

// "precision-aware optimizer (exp_avg bf16, exp_avg_sq bf16)"; empty when off.
std::string optimizerPrecisionText(const OptimizerPrecision& o);
// A problem with `o` under `zeroStage`: the field (training.optimizer.<key>) and the fix; an empty
// field when there is none.
struct OptimizerPrecisionProblem {
    std::string field;
    std::string text;
};
OptimizerPrecisionProblem optimizerPrecisionProblem(const OptimizerPrecision& o, int zeroStage);

} // namespace parallax::core
