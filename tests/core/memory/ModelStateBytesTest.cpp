// SPDX-License-Identifier: Apache-2.0
// Megatron-Core's parameter, gradient and optimizer buffers (core/memory/ModelStateBytes.h) and the
// memory terms built on them: each test fails without the term it names.
#include "../TestScenarios.h"

#include "core/Engine.h"
#include "core/memory/MemoryModel.h"
#include "core/memory/ModelStateBytes.h"
#include "core/model/LayerShape.h"
#include "core/model/ModelMath.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace parallax::core;
using namespace parallax::test;

// The table of the Megatron-Core "Distributed Optimizer" docs, bytes per parameter with d-way sharding:
// bf16 parameters + fp32 gradients 6 + 12/d; 16-bit gradients 4 + 16/d (of which 4/d only at the step).
TEST(ModelStateBytes, MatchesTheMegatronCoreTable)
{
    const ParameterShard one { 1.0, 0.0 };
    for (double d : { 1.0, 8.0, 64.0 }) {
        const ModelStateBytes fp32 = modelStateBytes(one, 1, true, OptimizerPrecision {}, d, d);
        EXPECT_DOUBLE_EQ(fp32.total(), 6.0 + 12.0 / d) << d;
        EXPECT_DOUBLE_EQ(fp32.mainGradShard, 0.0);
        const ModelStateBytes half = modelStateBytes(one, 1, false, OptimizerPrecision {}, d, d);
        EXPECT_DOUBLE_EQ(half.total(), 4.0 + 12.0 / d) << d;
        EXPECT_DOUBLE_EQ(half.total() + half.mainGradShard, 4.0 + 16.0 / d) << d;
    }
    // Without the distributed optimizer: 18 and 20 bytes (the table's left column).
    EXPECT_DOUBLE_EQ(modelStateBytes(one, 0, true, OptimizerPrecision {}, 8, 8).total(), 18.0);
    EXPECT_DOUBLE_EQ(modelStateBytes(one, 0, false, OptimizerPrecision {}, 8, 8).total()
            + modelStateBytes(one, 0, false, OptimizerPrecision {}, 8, 8).mainGradShard,
        20.0);
}

// --grad-reduce-in-bf16 (NeMo grad_reduce_in_fp32=False) halves the grad buffer in the engine.
TEST(ModelStateBytes, GradBufferFollowsTheReduceDtype)
{
    ParallelConfig p = degrees(8, 1, 8);
    p.zero = 1;
    Scenario s = makeScenario("llama3-70b", "h100-sxm", 8, 8, p, batch(1, 64, 4096));
    const Report fp32 = evaluate(s);
    s.parallel.gradReduceInFp32 = false;
    const Report bf16 = evaluate(s);
    ASSERT_TRUE(fp32.valid && bf16.valid);
    EXPECT_NEAR(bf16.stages[0].gradsBytes / fp32.stages[0].gradsBytes, 0.5, 1e-12);
    EXPECT_DOUBLE_EQ(bf16.stages[0].optimizerBytes, fp32.stages[0].optimizerBytes);
}

// With 16-bit gradients the fp32 gradient shard appears at the optimizer step; where it exceeds the
// activations (one GPU, short sequences) it sets the peak.
TEST(ModelStateBytes, MainGradientShardSetsThePeakWhenActivationsAreSmall)
{
    ParallelConfig p = degrees(1, 1, 1);
    p.zero = 1;
    p.gradReduceInFp32 = false;
    Scenario s = makeScenario("llama3-8b", "h100-sxm", 1, 1, p, batch(1, 1, 128));
    const Report r = evaluate(s);
    ASSERT_TRUE(r.valid);
    const StageMemory& st = r.stages[0];
    const double params = st.weightsBytes / kWeightBytesPerParam;
    // Everything outside the CUDA context and allocator reserve: states + max(activations + transients, 4 B/param).
    EXPECT_GE(
        st.weightsBytes + st.gradsBytes + st.optimizerBytes + st.activationsBytes + st.otherBytes - st.runtimeBytes,
        st.weightsBytes + st.gradsBytes + st.optimizerBytes + 4.0 * params - 1.0);
}

// ZeRO-3 gathers module by module: the transient is 4 bytes (16-bit weights and gradients) of the largest
// module (DeepSpeed's estimate_zero3_model_states_mem_needs), not whole layers.
TEST(ModelStateBytes, ZeroThreeGathersTheLargestModule)
{
    ModelSpec m = *PresetLibrary::instance().model("gpt3-175b");
    ParallelConfig p = degrees(1, 1, 64);
    // Inside the layers the MLP up projection h x 4h is the largest module; with the embedding, the
    // vocabulary table (V x h, slightly larger for GPT-3's 50257 tokens).
    const double h = static_cast<double>(m.hidden);
    EXPECT_DOUBLE_EQ(largestModuleParameters(m, p, 0, m.layers, false), 4.0 * h * h);
    const double largest = largestModuleParameters(m, p, 0, m.layers, true);
    EXPECT_DOUBLE_EQ(largest, std::max(4.0 * h * h, static_cast<double>(m.vocab) * h));
    EXPECT_DOUBLE_EQ(zeroThreeGatheredBytes(largest), 4.0 * largest);

    Scenario s = makeScenario("gpt3-175b", "a100-sxm-80gb", 8, 8, p, batch(1, 64, 2048, Recompute::Full));
    s.parallel.zero = 2;
    const Report z2 = evaluate(s);
    s.parallel.zero = 3;
    const Report z3 = evaluate(s);
    ASSERT_TRUE(z2.valid && z3.valid);
    const OtherMemoryDefaults other;
    const double transient = (z3.stages[0].otherBytes - z2.stages[0].otherBytes) / (1.0 + other.fragmentationFraction);
    EXPECT_NEAR(transient / (4.0 * largest), 1.0, 1e-9);
}

// The allocator reserve grows with the activation and transient tensors, not with the contiguous grad
// buffer: ZeRO-2 shrinks the gradients but leaves the reserve as it is.
TEST(ModelStateBytes, AllocatorReserveIgnoresTheContiguousBuffers)
{
    ParallelConfig p = degrees(8, 1, 8);
    p.zero = 1;
    Scenario s = makeScenario("llama3-70b", "h100-sxm", 8, 8, p, batch(1, 64, 4096));
    const Report z1 = evaluate(s);
    s.parallel.zero = 2;
    const Report z2 = evaluate(s);
    ASSERT_TRUE(z1.valid && z2.valid);
    ASSERT_LT(z2.stages[0].gradsBytes, z1.stages[0].gradsBytes / 4);
    EXPECT_DOUBLE_EQ(z2.stages[0].runtimeBytes, z1.stages[0].runtimeBytes);
}
