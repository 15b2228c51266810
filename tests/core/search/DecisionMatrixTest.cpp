// SPDX-License-Identifier: Apache-2.0
#include "core/search/DecisionMatrix.h"
#include "core/Engine.h"
#include "core/search/SearchJson.h"

#include <gtest/gtest.h>

using namespace parallax::core;

namespace {

// A two-by-two matrix: one cell where nothing fits (a fix is computed), three that fit.
TEST(DecisionMatrix, CellsRecommendWhatFitsAndFixWhatDoesNot)
{
    DecisionMatrixSettings settings;
    settings.models = { "llama3-8b", "llama3-70b" };
    settings.gpuCounts = { 8, 16 };
    settings.globalBatch = 64;
    settings.seqLen = 2048;
    int progressCalls = 0;
    const DecisionMatrix m = buildDecisionMatrix(settings, nullptr, [&](int, int) { ++progressCalls; });
    ASSERT_EQ(m.cells.size(), 4u);
    EXPECT_EQ(progressCalls, 4);
    for (const DecisionMatrixCell& c : m.cells) {
        SCOPED_TRACE(c.model + " on " + std::to_string(c.gpus));
        EXPECT_FALSE(c.why.empty());
        if (c.recommended) {
            EXPECT_TRUE(c.fix.text.empty());
            EvaluateOptions o;
            o.keepTimeline = false;
            const Report r = evaluate(applyPoint(decisionMatrixScenario(settings, c.model, c.gpus), *c.recommended), o);
            EXPECT_TRUE(r.valid);
            EXPECT_TRUE(r.fits);
        }
    }
    // 70B on 8 GPUs: 16 bytes per parameter alone exceed 8 x 80 GiB.
    const DecisionMatrixCell& big = m.cells[2];
    EXPECT_EQ(big.model, "llama3-70b");
    EXPECT_EQ(big.gpus, 8);
    EXPECT_FALSE(big.recommended);
    ASSERT_FALSE(big.fix.changes.empty());
    EXPECT_FALSE(big.fix.text.empty());
    bool moreGpus = false;
    for (const FitChange& f : big.fix.changes)
        moreGpus = moreGpus || (f.kind == "more-gpus" && f.gpus > 8);
    EXPECT_TRUE(moreGpus);
    const auto j = decisionMatrixToJson(m);
    ASSERT_EQ(j["cells"].size(), 4u);
    EXPECT_TRUE(j["cells"][2]["recommended"].is_null());
    EXPECT_TRUE(j["cells"][0]["recommended"].is_object());
    EXPECT_EQ(j["global_batch"], 64);
    EXPECT_EQ(j["seq_len"], 2048);
}

} // namespace
