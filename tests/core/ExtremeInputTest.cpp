// SPDX-License-Identifier: Apache-2.0
// Issue 16: inputs at the edges of the accepted ranges still give physical answers and fixes that
// work.
#include "TestScenarios.h"
#include "core/Engine.h"
#include "core/Validation.h"
#include "core/io/ScenarioIo.h"

#include <gtest/gtest.h>

#include <regex>

using namespace parallax::core;
using namespace parallax::test;

// HFU counts the work the kernels run; it cannot exceed the peak however long the sequence
// (it was 107% at 1M tokens and 113% at 10M with selective recompute).
TEST(ExtremeInput, UtilizationStaysBelowThePeakAtLongSequences)
{
    for (const Recompute r : { Recompute::None, Recompute::Selective, Recompute::Full }) {
        for (const bool flash : { true, false }) {
            for (const int seq : { 8192, 1 << 20, 10'000'000 }) {
                ParallelConfig p = degrees(8, 8, 1);
                p.vpp = 2;
                p.schedule = ScheduleKind::Interleaved1F1B;
                Scenario s = makeScenario("llama3-70b", "h100-sxm", 8, 8, p, batch(1, 512, seq, r));
                s.training.flashAttention = flash;
                EvaluateOptions options;
                options.keepTimeline = false;
                const Report report = evaluate(s, options);
                ASSERT_TRUE(report.valid) << seq;
                EXPECT_LT(report.mfu, 1.0) << "seq " << seq << " recompute " << toString(r) << " flash " << flash;
                EXPECT_LT(report.hfu, 1.0) << "seq " << seq << " recompute " << toString(r) << " flash " << flash;
                if (r != Recompute::None || flash) {
                    EXPECT_GT(report.hfu, report.mfu) << "recomputed work is hardware work";
                }
            }
        }
    }
}

// A fix for tp must pass every tp rule at once (heads, kv_heads, ffn_hidden, seq_len with SP and the
// GPU count): "use tp=6" failed three other rules where only 1, 2, 4 or 8 work.
TEST(ExtremeInput, TpFixSatisfiesEveryRule)
{
    const std::regex fix("use tp=([0-9]+)");
    for (const char* model : { "megatron-gpt-1.7b", "llama3-8b", "gpt3-175b", "mixtral-8x7b" }) {
        for (int tp = 3; tp <= 15; ++tp) {
            Scenario s = makeScenario(model, "h100-sxm", 2, 8, degrees(tp, 1, 1), batch(1, 64, 2048));
            const ValidationResult bad = validateScenario(s);
            for (const Message& e : bad.errors) {
                std::smatch m;
                if (e.field.rfind("parallel.tp", 0) != 0 || !std::regex_search(e.text, m, fix))
                    continue;
                const int suggested = std::stoi(m[1]);
                Scenario fixed = s;
                fixed.parallel.tp = suggested;
                fixed.parallel.sp = suggested > 1;
                fixed.parallel.dp = 16 / suggested;
                for (const Message& again : validateScenario(fixed).errors)
                    EXPECT_TRUE(
                        again.field != "parallel.tp" && again.field != "parallel.sp" && again.field != "parallel.dp")
                        << model << " tp=" << tp << " suggested tp=" << suggested << " but: " << again.field << ": "
                        << again.text;
            }
        }
    }
}
