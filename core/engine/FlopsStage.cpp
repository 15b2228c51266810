// SPDX-License-Identifier: Apache-2.0
#include "core/engine/FlopsStage.h"

#include "core/Units.h"
#include "core/model/LayerShape.h"
#include "core/model/ModelMath.h"

namespace parallax::core {

void flopsStage(const Scenario& scenario, Report& report)
{
    const ModelSpec& model = scenario.model;
    const TrainingConfig& train = scenario.training;
    // FLOPs (arXiv:2205.05198 eqs. 7-8): model FLOPs are 3x the forward; hardware FLOPs add the
    // recomputed forward work.
    const double tokensPerStep = static_cast<double>(train.globalBatch) * report.seqLen;
    const double forwardPerToken = forwardFlopsPerToken(model, report.seqLen);
    report.modelFlopsPerStep = 3.0 * forwardPerToken * tokensPerStep;
    // Recomputed forward work per token of one layer. Layers of a kind (dense / MoE, full / windowed
    // attention) have one shape and span, so it is computed once per kind and summed in layer order.
    namespace rm = recompute_module;
    const unsigned modules = selectiveModules(train);
    auto recomputedPerToken = [&](int l) {
        const double layerFlops = layerForwardFlopsPerToken(model, l, report.seqLen);
        const LayerShape s = layerShape(model, l);
        const double scores = 2.0 * model.attentionSpan(l, report.seqLen) * s.heads * (s.qkHeadDim + s.vHeadDim);
        // Hardware FLOPs are the work the kernels of the time model run, so that HFU stays below the
        // peak: a fused kernel's backward re-forms P = softmax(QK^T) over the causal half, a quarter of
        // `scores` (arXiv:2307.08691 Algorithm 2), charged inside its 2.5x backward; its selective
        // recompute re-runs the forward over the causal half.
        const double fusedOwn = train.flashAttention ? 0.25 * scores : 0.0;
        if (train.recompute == Recompute::Full)
            return fusedOwn + layerFlops;
        double again = (modules & rm::kCoreAttn) != 0 ? (train.flashAttention ? 0.5 : 1.0) * scores : 0.0;
        // The linears of the other recomputed modules: 2 in x out per token (a routed expert's top_k times).
        for (const LinearShape& lin : s.linears) {
            const LinearPart part = lin.part;
            const bool moeLayer = (modules & rm::kMoe) != 0 && s.moe
                && (part == LinearPart::Router || part == LinearPart::SharedExpert || part == LinearPart::RoutedExpert);
            const bool rerun = moeLayer || ((modules & rm::kMlaUpProj) != 0 && part == LinearPart::MlaUpProjection)
                || ((modules & rm::kMlp) != 0 && part == LinearPart::DenseMlp)
                || ((modules & rm::kSharedExperts) != 0 && part == LinearPart::SharedExpert);
            if (rerun)
                again += 2.0 * lin.inFeatures * lin.outFeatures * (part == LinearPart::RoutedExpert ? s.topK : 1.0);
        }
        return fusedOwn + again;
    };
    const double recomputePerToken = sumOverLayers(model, 0, model.layers, 0.0, recomputedPerToken);
    report.hardwareFlopsPerStep = report.modelFlopsPerStep + recomputePerToken * tokensPerStep;
    const double step = report.stepTimeSeconds;
    if (step > 0 && report.gpus > 0) {
        report.tflopsPerGpu = report.modelFlopsPerStep / step / report.gpus / kTera;
        report.mfu = report.modelFlopsPerStep / step / report.gpus / report.peakFlopsPerSecond;
        report.hfu = report.hardwareFlopsPerStep / step / report.gpus / report.peakFlopsPerSecond;
        report.tokensPerSecond = tokensPerStep / step;
    }
}

} // namespace parallax::core
