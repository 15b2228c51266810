// SPDX-License-Identifier: Apache-2.0
// training.optimizer (Megatron-Core --use-precision-aware-optimizer and its dtypes): the bytes each
// choice keeps, the Adam traffic it moves, how it reads, validates, and survives a launch round trip.
#include "core/parallel/OptimizerPrecision.h"
#include "../TestScenarios.h"
#include "core/Engine.h"
#include "core/io/ScenarioIo.h"
#include "core/launch/LaunchArgsImporter.h"
#include "core/launch/MegatronArgsWriter.h"
#include "core/launch/NemoRecipeWriter.h"
#include "core/memory/ModelStateBytes.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace parallax::core;

namespace {
OptimizerPrecision bf16Moments()
{
    OptimizerPrecision o;
    o.precisionAware = true;
    o.expAvg = StateDType::Bf16;
    o.expAvgSq = StateDType::Bf16;
    return o;
}
} // namespace

// Bytes per parameter: fp32 main parameters and moments by default (12); the precision-aware
// optimizer keeps a 16-bit remainder of the fp32 main parameter (OptimizerConfig.store_param_remainders)
// and each moment in its dtype.
TEST(OptimizerPrecision, StateBytesPerParameter)
{
    const OptimizerPrecision none;
    EXPECT_DOUBLE_EQ(optimizerStateBytesPerParam(none), 12.0);
    EXPECT_DOUBLE_EQ(adamTrafficBytesPerParam(none), 28.0); // arXiv:1910.02054 sec. 3.1 sizes, read + write
    OptimizerPrecision ignored = none; // dtypes are read only with precision_aware
    ignored.expAvg = StateDType::Fp8;
    EXPECT_DOUBLE_EQ(optimizerStateBytesPerParam(ignored), 12.0);

    OptimizerPrecision o = bf16Moments();
    EXPECT_DOUBLE_EQ(mainParamBytesPerParam(o), 2.0);
    EXPECT_DOUBLE_EQ(optimizerStateBytesPerParam(o), 2.0 + 2.0 + 2.0);
    EXPECT_DOUBLE_EQ(adamTrafficBytesPerParam(o), 2 * (4.0 + 2.0 + 2.0) + 4.0);
    o.storeParamRemainders = false;
    EXPECT_DOUBLE_EQ(optimizerStateBytesPerParam(o), 4.0 + 2.0 + 2.0);
    o.mainParams = StateDType::Fp16;
    o.expAvg = o.expAvgSq = StateDType::Fp8;
    EXPECT_DOUBLE_EQ(optimizerStateBytesPerParam(o), 2.0 + 1.0 + 1.0);
    EXPECT_DOUBLE_EQ(adamTrafficBytesPerParam(o), 2 * (2.0 + 1.0 + 1.0) + 4.0);
    o.mainGrads = StateDType::Bf16;
    EXPECT_DOUBLE_EQ(adamTrafficBytesPerParam(o), 2 * (2.0 + 1.0 + 1.0) + 2.0);
}

// The optimizer copies the reduced gradient shard only when the grad buffer's dtype is not the one
// it reads: 4 B/d for bf16 buffers by default (Megatron-Core "4 + 16/d"), none when main_grads is bf16.
TEST(OptimizerPrecision, MainGradientCopyFollowsTheDtypes)
{
    const ParameterShard one { 1.0, 0.0 };
    const OptimizerPrecision none;
    EXPECT_DOUBLE_EQ(modelStateBytes(one, 1, true, none, 8, 8).mainGradShard, 0.0);
    EXPECT_DOUBLE_EQ(modelStateBytes(one, 1, false, none, 8, 8).mainGradShard, 4.0 / 8);
    OptimizerPrecision o = bf16Moments();
    o.mainGrads = StateDType::Bf16;
    EXPECT_DOUBLE_EQ(modelStateBytes(one, 1, false, o, 8, 8).mainGradShard, 0.0);
    EXPECT_DOUBLE_EQ(modelStateBytes(one, 1, true, o, 8, 8).mainGradShard, 2.0 / 8);
    const ModelStateBytes st = modelStateBytes(ParameterShard { 16.0, 32.0 }, 1, true, bf16Moments(), 8, 4);
    EXPECT_DOUBLE_EQ(st.optimizer, 6.0 * (16.0 / 8 + 32.0 / 4));
}

// In the engine: every stage's optimizer bytes halve with bf16 moments, the peak falls by exactly
// that, and the Adam step reads and writes fewer bytes.
TEST(OptimizerPrecision, EngineChargesTheSmallerStates)
{
    Scenario s = parallax::test::presetScenario("deepseek-v3-2048xh800");
    s.training.optimizer = OptimizerPrecision {};
    const Report base = evaluate(s);
    ASSERT_TRUE(base.valid);
    s.training.optimizer = bf16Moments();
    const Report low = evaluate(s);
    ASSERT_TRUE(low.valid);
    ASSERT_EQ(base.stages.size(), low.stages.size());
    for (std::size_t r = 0; r < base.stages.size(); ++r) {
        EXPECT_NEAR(low.stages[r].optimizerBytes, base.stages[r].optimizerBytes / 2, 1.0);
        EXPECT_DOUBLE_EQ(low.stages[r].weightsBytes, base.stages[r].weightsBytes);
        EXPECT_NEAR(low.stages[r].totalBytes(), base.stages[r].totalBytes() - base.stages[r].optimizerBytes / 2,
            base.stages[r].totalBytes() * 1e-9);
    }
    EXPECT_LT(low.step.optimizerSeconds, base.step.optimizerSeconds);
}

// The scenario file: Megatron's names and choices, field-named errors, written back only when set.
TEST(OptimizerPrecision, ScenarioFieldReadsValidatesAndWrites)
{
    Scenario s = parallax::test::presetScenario("guide-70b-64xh100");
    nlohmann::json j = scenarioToJson(s);
    EXPECT_FALSE(j["training"].contains("optimizer"));
    j["parallel"]["zero"] = 1;
    j["training"]["optimizer"]
        = { { "precision_aware", true }, { "exp_avg_dtype", "bf16" }, { "exp_avg_sq_dtype", "fp8" } };
    LoadError error;
    auto read = parseScenario(j.dump(), error);
    ASSERT_TRUE(read) << error.text();
    EXPECT_TRUE(read->training.optimizer.precisionAware);
    EXPECT_EQ(read->training.optimizer.expAvgSq, StateDType::Fp8);
    EXPECT_EQ(scenarioToJson(*read)["training"]["optimizer"], j["training"]["optimizer"]);
    EXPECT_EQ(
        optimizerPrecisionText(read->training.optimizer), "precision-aware optimizer (exp_avg bf16, exp_avg_sq fp8)");
    EXPECT_TRUE(evaluate(*read).valid);

    j["training"]["optimizer"]["main_params_dtype"] = "bf16"; // Megatron offers fp32 or fp16 only
    EXPECT_FALSE(parseScenario(j.dump(), error));
    EXPECT_EQ(error.path, "training.optimizer.main_params_dtype");
    EXPECT_NE(error.message.find("fp32, fp16"), std::string::npos);

    j["training"]["optimizer"] = { { "exp_avg_dtype", "bf16" } };
    read = parseScenario(j.dump(), error);
    ASSERT_TRUE(read) << error.text();
    Report r = evaluate(*read);
    ASSERT_FALSE(r.valid);
    EXPECT_EQ(r.errors.front().field, "training.optimizer.exp_avg_dtype");
    EXPECT_NE(r.errors.front().text.find("precision_aware true"), std::string::npos);

    read->training.optimizer.precisionAware = true;
    read->parallel.zero = 0;
    r = evaluate(*read);
    ASSERT_FALSE(r.valid);
    EXPECT_EQ(r.errors.front().field, "training.optimizer.precision_aware");
    EXPECT_NE(r.errors.front().text.find("parallel.zero"), std::string::npos);
}

// Megatron-LM flags and the NeMo recipe carry the dtypes, and import reads them back.
TEST(OptimizerPrecision, LaunchConfigurationsCarryTheDtypes)
{
    Scenario s = parallax::test::presetScenario("guide-70b-64xh100");
    s.parallel.zero = 1;
    OptimizerPrecision o = bf16Moments();
    o.mainGrads = StateDType::Bf16;
    o.storeParamRemainders = false;
    s.training.optimizer = o;
    const std::string megatron = MegatronArgsWriter::write(s);
    for (const char* flag : { "--use-precision-aware-optimizer", "--main-grads-dtype bf16", "--exp-avg-dtype bf16",
             "--exp-avg-sq-dtype bf16", "--no-store-param-remainders" })
        EXPECT_NE(megatron.find(flag), std::string::npos) << flag;
    const std::string nemo = NemoRecipeWriter::write(s);
    EXPECT_NE(nemo.find("recipe.optim.config.exp_avg_dtype = torch.bfloat16"), std::string::npos);
    for (const std::string& text : { megatron, nemo }) {
        const auto back = LaunchArgsImporter::import(text, {});
        ASSERT_TRUE(back.scenario) << back.error;
        EXPECT_EQ(back.scenario->training.optimizer, o) << text;
    }
}
