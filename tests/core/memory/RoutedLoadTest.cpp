// SPDX-License-Identifier: Apache-2.0
// The routed tokens' stored activations at the load a pipeline rank sums over its MoE layers
// (core/memory/ActivationMemory.h storedRoutedLoadFactor), against the per-layer busiest load that times
// each layer.
#include "../TestScenarios.h"
#include "core/Engine.h"
#include "core/costs/CostModel.h"
#include "core/memory/ActivationMemory.h"
#include "core/model/LayerShape.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace parallax::core;
using parallax::test::batch;
using parallax::test::degrees;
using parallax::test::makeScenario;

TEST(RoutedLoad, SummedLoadSpreadsAsOneOverRootN)
{
    EXPECT_DOUBLE_EQ(storedRoutedLoadFactor(1.25, 1), 1.25); // one layer: its own busiest GPU
    EXPECT_DOUBLE_EQ(storedRoutedLoadFactor(1.25, 0), 1.25);
    EXPECT_DOUBLE_EQ(storedRoutedLoadFactor(1.25, 16), 1.0625);
    EXPECT_DOUBLE_EQ(storedRoutedLoadFactor(1.0, 64), 1.0); // balanced stays balanced
    // A layer's routed part moves to the summed factor, the rest stays.
    EXPECT_DOUBLE_EQ(rankMoeLayerActivationBytes(100.0, 50.0, 1.25, 16), 100.0 - 50.0 * (1.0 - 1.0625 / 1.25));
    EXPECT_DOUBLE_EQ(rankMoeLayerActivationBytes(100.0, 0.0, 1.25, 16), 100.0);
}

// DeepSeek-V3's MoE layer under its preset's recompute (layernorm, mla_up_proj, moe_act) in FP8: each of
// the top-8 copies of a token stores its fp8 dispatched input (7168 B) and the 16-bit SwiGLU input
// (2 x 2048 x 2 B), at the per-layer load factor.
TEST(RoutedLoad, RoutedPartIsTheDispatchedCopies)
{
    auto m = PresetLibrary::instance().model("deepseek-v3");
    ASSERT_TRUE(m);
    ActivationContext c;
    c.seqLen = 4096;
    c.fp8 = true;
    c.recompute = Recompute::Selective;
    c.recomputeModules = recompute_module::kLayernorm | recompute_module::kMlaUpProj | recompute_module::kMoeAct;
    c.expertLoadImbalance = 1.25;
    const LayerShape moe = layerShape(*m, m->moe->firstDenseLayers);
    EXPECT_NEAR(routedActivationBytes(*m, moe, c), 4096.0 * 8 * 1.25 * (7168 + 2 * 2048 * 2), 1e-3);
    EXPECT_DOUBLE_EQ(routedActivationBytes(*m, layerShape(*m, 0), c), 0.0); // a dense layer routes nothing
}

// Mixtral 8x7B on one node, pp 1: the rank stores one micro-batch of all 32 MoE layers, each with its
// routed part at storedRoutedLoadFactor(1.25, 32) = 1.044, not 1.25.
TEST(RoutedLoad, EngineStoresTheSummedLoad)
{
    ParallelConfig p = degrees(1, 1, 8, 1, 8);
    TrainingConfig t = batch(1, 64, 4096, Recompute::None);
    const Scenario s = makeScenario("mixtral-8x7b", "h100-sxm", 1, 8, p, t);
    const Report r = evaluate(s);
    ASSERT_TRUE(r.valid) << (r.errors.empty() ? "" : r.errors[0].text);
    ASSERT_EQ(r.stages.size(), 1u);
    ActivationContext c;
    c.seqLen = 4096;
    c.expertLoadImbalance = EfficiencyDefaults {}.expertLoadImbalance;
    const LayerShape shape = layerShape(s.model, 0);
    const double layer = layerActivationBytes(s.model, shape, c);
    const double routed = routedActivationBytes(s.model, shape, c);
    ASSERT_GT(routed, 0.5 * layer);
    const double expected = 32 * rankMoeLayerActivationBytes(layer, routed, c.expertLoadImbalance, 32);
    EXPECT_NEAR(r.stages[0].activationsBytes, expected, 1e-6 * expected);
    EXPECT_LT(r.stages[0].activationsBytes, 32 * layer * 0.9);
}
