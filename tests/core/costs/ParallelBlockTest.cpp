// SPDX-License-Identifier: Apache-2.0
// The parallel attention + MLP block (PaLM, arXiv:2204.02311 sec. 2; GPT-J; GPT-NeoX use_parallel_residual;
// MegaScale's PTB, arXiv:2402.15627 sec. 3.1): one norm, one TP reduction of the summed outputs, the MLP's
// input saved once with the attention's. Each test fails if the engine priced the block as a serial one.
#include "../TestScenarios.h"
#include "core/Engine.h"
#include "core/costs/CostModel.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/launch/MegatronArgsWriter.h"
#include "core/memory/ActivationMemory.h"
#include "core/model/LayerShape.h"

#include <gtest/gtest.h>

using namespace parallax::core;
using namespace parallax::test;

namespace {

ModelSpec neox(bool parallel)
{
    ModelSpec m = *PresetLibrary::instance().model("gpt-neox-20b");
    m.parallelBlock = parallel;
    return m;
}

ActivationContext context(int tp, bool sp)
{
    ActivationContext c;
    c.seqLen = 2048;
    c.microBatch = 1;
    c.tp = tp;
    c.sp = sp;
    c.recompute = Recompute::None;
    c.flashAttention = true;
    return c;
}

const ComputeRates& a100()
{
    static const ComputeRates rates(
        *PresetLibrary::instance().gpu("a100-sxm-80gb"), DType::Bf16, nullptr, EfficiencyDefaults {});
    return rates;
}

LayerCommGroups nvlinkTp(int size)
{
    LayerCommGroups g;
    g.tp.size = g.tp.inner = size;
    g.tp.intra = { 240e9, 5e-6 };
    g.tp.inter = { 25e9, 5e-6 };
    return g;
}

} // namespace

TEST(ParallelBlock, OneTensorParallelReductionPerLayerAndFewerElementwisePasses)
{
    for (const bool sp : { false, true }) {
        const ActivationContext c = context(8, sp);
        const ModelSpec serial = neox(false), parallel = neox(true);
        const LayerTimes a
            = layerTimes(serial, layerShape(serial, 0), c, a100(), nvlinkTp(8), EfficiencyDefaults {}, false);
        const LayerTimes b
            = layerTimes(parallel, layerShape(parallel, 0), c, a100(), nvlinkTp(8), EfficiencyDefaults {}, false);
        ASSERT_GT(a.tpForward, 0.0);
        EXPECT_NEAR(b.tpForward, 0.5 * a.tpForward, 1e-15) << "sp " << sp;
        EXPECT_NEAR(b.tpBackward, 0.5 * a.tpBackward, 1e-15) << "sp " << sp;
        // One norm and one three-input add: 4 of the 14 h-wide 16-bit passes fewer, forward and backward.
        const double tokens = 2048, h = 6144, rep = sp ? 1.0 / 8 : 1.0;
        const double saved = a100().layerKernelSeconds(2.0 * tokens * 4.0 * h * rep);
        EXPECT_NEAR(a.forwardCompute - b.forwardCompute, saved, 1e-12 * a.forwardCompute);
        EXPECT_NEAR(a.backwardInputCompute - b.backwardInputCompute, saved, 1e-12 * a.backwardInputCompute);
        EXPECT_DOUBLE_EQ(a.backwardWeightCompute, b.backwardWeightCompute); // the same GEMMs
    }
}

// arXiv:2205.05198 Table 2 with the MLP's norm input and normed input gone: 10 sbh of replicated tensors
// become 6 (no SP), 34 sbh / t become 30 sbh / t (SP).
TEST(ParallelBlock, ActivationsLoseTheMlpNormInputAndItsOutput)
{
    ModelSpec m = neox(true);
    m.dropout = true; // Table 2's block
    const ModelSpec serial = [&] {
        ModelSpec x = m;
        x.parallelBlock = false;
        return x;
    }();
    const double s = 2048, h = 6144, a = 64, t = 8;
    for (const bool sp : { false, true }) {
        ActivationContext c = context(8, sp);
        c.flashAttention = false;
        const double expected = sp ? s * h / t * (30 + 5 * a * s / h) : s * h * (6 + 24 / t + 5 * a * s / (h * t));
        EXPECT_NEAR(layerActivationBytes(m, layerShape(m, 0), c) / expected, 1.0, 1e-12) << "sp " << sp;
        const double before = sp ? s * h / t * (34 + 5 * a * s / h) : s * h * (10 + 24 / t + 5 * a * s / (h * t));
        EXPECT_NEAR(layerActivationBytes(serial, layerShape(serial, 0), c) / before, 1.0, 1e-12) << "sp " << sp;
    }
}

TEST(ParallelBlock, ServingReducesOncePerLayer)
{
    Scenario serial = makeScenario("gpt-neox-20b", "h100-sxm", 1, 8, degrees(8, 1, 1), TrainingConfig {});
    serial.mode = ScenarioMode::Inference;
    serial.model.parallelBlock = false;
    Scenario parallel = serial;
    parallel.model.parallelBlock = true;
    const Report a = evaluate(serial), b = evaluate(parallel);
    ASSERT_TRUE(a.valid && b.valid) << (a.errors.empty() ? "" : a.errors.front().text);
    ASSERT_GT(a.inference->decode.tpSeconds, 0.0);
    EXPECT_NEAR(b.inference->decode.tpSeconds, 0.5 * a.inference->decode.tpSeconds, 1e-12);
    EXPECT_LT(b.inference->ttftSeconds, a.inference->ttftSeconds);
}

TEST(ParallelBlock, ScenarioRoundTripExportNoteAndMoeRefusal)
{
    Scenario s = makeScenario("gpt-neox-20b", "a100-sxm-80gb", 12, 8, degrees(2, 4, 12), batch(4, 1536));
    ASSERT_TRUE(s.model.parallelBlock); // the preset's
    const Report r = evaluate(s);
    ASSERT_TRUE(r.valid) << (r.errors.empty() ? "" : r.errors.front().text);
    LoadError error;
    const auto back = parseScenario(serializeScenario(s), error);
    ASSERT_TRUE(back) << error.text();
    EXPECT_TRUE(back->model.parallelBlock);
    const std::string megatron = MegatronArgsWriter::write(s);
    EXPECT_NE(megatron.find("no parallel attention + MLP block"), std::string::npos) << megatron;

    Scenario moe = makeScenario("mixtral-8x7b", "h100-sxm", 1, 8, degrees(1, 1, 8, 1, 8), batch(1, 64));
    moe.model.parallelBlock = true;
    const Report refused = evaluate(moe);
    ASSERT_FALSE(refused.valid);
    bool named = false;
    for (const Message& e : refused.errors)
        named = named || e.field == "model.parallel_block";
    EXPECT_TRUE(named);
}
