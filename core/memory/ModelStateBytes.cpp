// SPDX-License-Identifier: Apache-2.0
#include "core/memory/ModelStateBytes.h"

namespace parallax::core {

namespace {
constexpr double kFp32 = 4.0;
constexpr double kHalf = 2.0;
} // namespace

double gradBufferBytesPerParam(bool gradReduceInFp32)
{
    return gradReduceInFp32 ? kFp32 : kHalf;
}

ModelStateBytes modelStateBytes(const ParameterShard& params, int zeroStage, bool gradReduceInFp32,
    const OptimizerPrecision& optimizer, double dpGroup, double edpGroup)
{
    auto shard = [&](double perParam, bool sharded) {
        return perParam * (params.dense / (sharded ? dpGroup : 1.0) + params.expert / (sharded ? edpGroup : 1.0));
    };
    ModelStateBytes b;
    b.weights = shard(kWeightBytesPerParam, zeroStage >= 3);
    b.grads = shard(gradBufferBytesPerParam(gradReduceInFp32), zeroStage >= 2);
    const double shardParams = shard(1.0, zeroStage >= 1);
    b.optimizer = optimizerStateBytesPerParam(optimizer) * shardParams;
    // 16-bit gradients: the optimizer's fp32 copy of its gradient shard (Megatron-Core
    // DistributedOptimizer._copy_model_grads_to_main_grads; the "4 + 16/d" row of its docs).
    const double gradBuffer = gradBufferBytesPerParam(gradReduceInFp32);
    b.mainGradShard = mainGradCopyBytesPerParam(optimizer, gradBuffer) * shardParams;
    return b;
}

double zeroThreeGatheredBytes(double largestModuleParams)
{
    return 2.0 * kHalf * largestModuleParams;
}

} // namespace parallax::core
