// SPDX-License-Identifier: Apache-2.0
#include "core/inference/WeightBytes.h"
#include "core/io/PresetLibrary.h"
#include "core/model/ModelMath.h"

#include <gtest/gtest.h>

using namespace parallax::core;

TEST(WeightBytes, FormatsIncludeTheirScales)
{
    EXPECT_DOUBLE_EQ(weightBytesPerParameter(WeightFormat::Bf16, 8192), 2.0);
    EXPECT_DOUBLE_EQ(weightBytesPerParameter(WeightFormat::Fp8, 8192), 1.0 + 4.0 / 16384); // fp32 per 128x128
    EXPECT_DOUBLE_EQ(weightBytesPerParameter(WeightFormat::Int8, 8192), 1.0 + 4.0 / 8192); // fp32 per row
    EXPECT_DOUBLE_EQ(weightBytesPerParameter(WeightFormat::Int4, 8192), 0.53125); // fp16 scale + zero per 128
    EXPECT_DOUBLE_EQ(weightBytesPerParameter(WeightFormat::Nvfp4, 8192), 0.5625); // e4m3 per 16
    EXPECT_DOUBLE_EQ(weightBytesPerParameter(WeightFormat::Mxfp4, 8192), 0.53125); // e8m0 per 32
}

TEST(WeightBytes, EmbeddingAndHeadStayBf16)
{
    const ModelSpec m = *PresetLibrary::instance().model("llama3-405b");
    const ServingWeightBytes b = servingWeightBytes(m, WeightFormat::Fp8, 1, 1, 0, m.layers, true, true);
    const double embedAndHead = embeddingParameters(m) + lmHeadParameters(m) + finalNormParameters(m);
    double norms = 0;
    for (int l = 0; l < m.layers; ++l)
        norms += layerParameters(m, l).norms;
    EXPECT_DOUBLE_EQ(b.bf16, 2.0 * (embedAndHead + norms));
    // Every parameter counted once: quantized linears + bf16 rest = the model.
    EXPECT_NEAR(b.quantized / weightBytesPerParameter(WeightFormat::Fp8, 0) + b.bf16 / 2.0, totalParameters(m), 1.0);
    // Hand count of the linears: 126 x (attention 570,425,344 + SwiGLU MLP 3 x 16384 x 53248).
    EXPECT_DOUBLE_EQ(b.quantized / (1.0 + 4.0 / 16384), 126.0 * (570425344.0 + 3.0 * 16384 * 53248));
}

TEST(WeightBytes, ExpertsSplitOverExpertShards)
{
    const ModelSpec m = *PresetLibrary::instance().model("deepseek-v3");
    const auto tp8 = servingWeightBytes(m, WeightFormat::Fp8, 8, 8, 0, m.layers, true, true);
    const auto dpAttention = servingWeightBytes(m, WeightFormat::Fp8, 1, 8, 0, m.layers, true, true);
    // DP-attention replicates attention (and the dense layers) on every GPU: more bytes per GPU than TP8.
    EXPECT_GT(dpAttention.total(), tp8.total());
    double routed = 0;
    for (int l = 0; l < m.layers; ++l)
        routed += layerParameters(m, l).routedExperts;
    EXPECT_GT(tp8.quantized, routed / 8 * (1.0 + 4.0 / 16384));
}
