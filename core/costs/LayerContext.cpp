// SPDX-License-Identifier: Apache-2.0
#include "core/costs/LayerContext.h"

#include "core/costs/MoeCosts.h"

namespace parallax::core {

LayerDegrees layerDegreesOf(const Scenario& s)
{
    const ParallelConfig& p = s.parallel;
    return { s.training.microBatch, p.tp, p.sp && p.tp > 1, p.cp, p.cpCommType, p.cpA2aSize, p.etp,
        s.training.recompute };
}

ActivationContext activationContextAt(
    const Scenario& s, int seqLen, const LayerDegrees& d, const EfficiencyDefaults& defaults)
{
    const TrainingConfig& train = s.training;
    ActivationContext ctx;
    ctx.seqLen = seqLen;
    ctx.microBatch = d.microBatch;
    ctx.tp = d.tp;
    ctx.sp = d.sp;
    ctx.cp = d.cp;
    ctx.cpCommType = d.cpCommType;
    ctx.cpA2aSize = d.cpA2aSize;
    ctx.etp = d.etp;
    ctx.recompute = d.recompute;
    ctx.recomputeModules = train.recomputeModules;
    ctx.expertLoadImbalance = s.model.isMoe() ? expertLoadFactor(train, defaults.expertLoadImbalance) : 1.0;
    ctx.flashAttention = train.flashAttention;
    ctx.tpCommOverlap = s.parallel.tpCommOverlap && d.tp > 1;
    ctx.fp8 = train.dtype == DType::Fp8;
    ctx.swigluFp8InputStore = train.activationFuncFp8InputStore;
    ctx.deepseekActivationCache = train.deepseekActivationCache;
    return ctx;
}

} // namespace parallax::core
