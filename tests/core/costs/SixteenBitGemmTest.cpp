// SPDX-License-Identifier: Apache-2.0
// Under FP8 training only Transformer Engine's modules run their GEMMs in fp8. Megatron-Core's output
// layer (tensor_parallel.ColumnParallelLinear in models/gpt/gpt_model.py), its MoE router
// (router_gating_linear) and unfused attention's batched GEMMs stay in bf16: each test fails if that
// GEMM were priced at the fp8 rate.
#include "core/costs/CostModel.h"
#include "core/io/PresetLibrary.h"
#include "core/model/LayerShape.h"

#include <gtest/gtest.h>

using namespace parallax::core;

namespace {

ComputeRates rates(DType dtype)
{
    return ComputeRates(*PresetLibrary::instance().gpu("h100-sxm"), dtype, nullptr, EfficiencyDefaults {});
}

ModelSpec llamaLike()
{
    ModelSpec m;
    m.name = "test";
    m.layers = 2;
    m.hidden = 8192;
    m.heads = 64;
    m.kvHeads = 8;
    m.ffnHidden = 28672;
    m.vocab = 128256;
    m.activation = Activation::SwiGlu;
    return m;
}

ActivationContext context(bool fp8)
{
    ActivationContext c;
    c.seqLen = 8192;
    c.microBatch = 1;
    c.tp = 4;
    c.sp = true;
    c.fp8 = fp8;
    return c;
}

} // namespace

TEST(SixteenBitGemm, SixteenBitRatesAreTheBf16Rates)
{
    const ComputeRates fp8 = rates(DType::Fp8);
    const ComputeRates bf16 = rates(DType::Bf16);
    for (const double m : { 512.0, 8192.0 }) {
        EXPECT_DOUBLE_EQ(fp8.sixteenBit().gemmSeconds(m, 32064, 8192), bf16.gemmSeconds(m, 32064, 8192));
        // The fp8 rate itself is faster: the test below would not see a difference otherwise.
        EXPECT_LT(fp8.gemmSeconds(m, 32064, 8192), 0.8 * bf16.gemmSeconds(m, 32064, 8192));
    }
    EXPECT_DOUBLE_EQ(fp8.sixteenBit().peakFlopsPerSecond(), bf16.peakFlopsPerSecond());
}

TEST(SixteenBitGemm, LmHeadRunsInBf16UnderFp8)
{
    const ModelSpec m = llamaLike();
    const CommGroup tp;
    const HeadTimes underFp8 = lmHeadTimes(m, context(true), rates(DType::Fp8), tp);
    const HeadTimes underBf16 = lmHeadTimes(m, context(false), rates(DType::Bf16), tp);
    EXPECT_DOUBLE_EQ(underFp8.forward, underBf16.forward);
    EXPECT_DOUBLE_EQ(underFp8.backwardInput, underBf16.backwardInput);
    EXPECT_DOUBLE_EQ(underFp8.backwardWeight, underBf16.backwardWeight);
    // The logits GEMM is most of the head: 2 x tokens x V/tp x h at the bf16 GEMM rate.
    const double tokens = 8192, v = 128256.0 / 4, h = 8192;
    EXPECT_GT(underFp8.forward, rates(DType::Bf16).gemmSeconds(tokens, v, h));
}

TEST(SixteenBitGemm, RouterRunsInBf16UnderFp8)
{
    // A layer of the router linear alone: its GEMM time is the same under fp8 and bf16, while a
    // Transformer Engine linear of the same shape is faster under fp8.
    const ModelSpec m = llamaLike();
    LayerShape router;
    router.linears.push_back({ "router", 8192, 28672, false, false, false, LinearPart::Router });
    LayerShape teLinear = router;
    teLinear.linears.front().part = LinearPart::DenseMlp;
    const LayerCommGroups groups;
    const EfficiencyDefaults d;
    const auto gemm = [&](const LayerShape& s, bool fp8) {
        const LayerTimes t = layerTimes(m, s, context(fp8), rates(fp8 ? DType::Fp8 : DType::Bf16), groups, d);
        return t.backwardWeightCompute; // weight-gradient GEMMs only: no element-wise or attention terms
    };
    EXPECT_DOUBLE_EQ(gemm(router, true), gemm(router, false));
    EXPECT_LT(gemm(teLinear, true), gemm(teLinear, false));
}
