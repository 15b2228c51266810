// SPDX-License-Identifier: Apache-2.0
#include "core/search/DecisionMatrix.h"
#include "core/Engine.h"
#include "core/search/DecisionMatrixMarkdown.h"
#include "core/search/SearchJson.h"

#include <atomic>
#include <gtest/gtest.h>

using namespace parallax::core;

namespace {

// Llama 3 8B and 70B on one and two HGX H100 nodes, 64 sequences of 2048 tokens: the 70B on 8 GPUs fits nowhere.
DecisionMatrixSettings twoByTwo()
{
    DecisionMatrixSettings settings;
    settings.models = { "llama3-8b", "llama3-70b" };
    settings.gpuCounts = { 8, 16 };
    settings.globalBatch = 64;
    settings.seqLen = 2048;
    return settings;
}

// A two-by-two matrix: one cell where nothing fits (a fix is computed), three that fit.
TEST(DecisionMatrix, CellsRecommendWhatFitsAndFixWhatDoesNot)
{
    const DecisionMatrixSettings settings = twoByTwo();
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

    // The Markdown table: one row per model, one column per count, each cell the engine's figures.
    const std::string md = decisionMatrixToMarkdown(m);
    EXPECT_NE(md.find("| model | 8 GPUs | 16 GPUs |\n|---|---|---|\n"), std::string::npos) << md;
    EXPECT_NE(md.find("| Llama 3 70B | " + matrixNothingFits(big, m.hbmBytes) + "<br>"), std::string::npos) << md;
    EXPECT_NE(
        md.find(describe(*m.cells[0].recommended) + "<br>" + matrixCellFigures(*m.cells[0].report)), std::string::npos);
    EXPECT_NE(matrixBriefFix(big.fix).find("GPUs"), std::string::npos) << matrixBriefFix(big.fix);
    DecisionMatrix partial = m;
    partial.cells.resize(1); // a cancelled fill
    EXPECT_NE(decisionMatrixToMarkdown(partial).find("not searched"), std::string::npos);
}

// Cancel keeps the cells finished before it and no cell searched in part; a cancelled fix claims nothing.
TEST(DecisionMatrix, CancelKeepsOnlyFinishedCells)
{
    const DecisionMatrixSettings settings = twoByTwo();
    std::atomic<bool> cancel { false };
    const DecisionMatrix m = buildDecisionMatrix(
        settings, nullptr, [&](int done, int) { cancel.store(done == 1); }, &cancel);
    ASSERT_EQ(m.cells.size(), 1u);
    EXPECT_TRUE(m.cells[0].recommended);
    EXPECT_EQ(matrixCell(m, 0, 0), &m.cells[0]);
    EXPECT_EQ(matrixCell(m, 0, 1), nullptr); // not reached
    EXPECT_EQ(matrixCell(m, 0, 2), nullptr); // outside the table
    EXPECT_EQ(matrixRowName(m, 1), "Llama 3 70B");
    const DecisionMatrix none = buildDecisionMatrix(settings, nullptr, {}, &cancel);
    EXPECT_TRUE(none.cells.empty());

    // 70B on 8 GPUs fits nowhere; with the search cancelled, its fix is empty rather than "nothing tried fits".
    const Scenario big = decisionMatrixScenario(settings, "llama3-70b", 8);
    SearchOptions o;
    o.topK = 1;
    const SearchResult r = searchConfigurations(big, o);
    ASSERT_TRUE(r.candidates.empty());
    EXPECT_FALSE(fixForNothingFits(big, r, nullptr).text.empty());
    const FitFix cancelled = fixForNothingFits(big, r, nullptr, &cancel);
    EXPECT_TRUE(cancelled.text.empty());
    EXPECT_TRUE(cancelled.changes.empty());
}

// Settings the matrix cannot fill name their field; the guide's defaults and a GB200 rack pass.
TEST(DecisionMatrix, SettingsCheckNamesTheField)
{
    DecisionMatrixSettings s;
    EXPECT_FALSE(checkDecisionMatrixSettings(s));
    s.gpu = "gb200";
    s.gpusPerNode = 72;
    s.gpuCounts = { 72, 576 };
    EXPECT_FALSE(checkDecisionMatrixSettings(s));
    s.gpuCounts = { 72, 100 };
    auto p = checkDecisionMatrixSettings(s);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->field, "gpu-counts");
    EXPECT_NE(p->text.find("100 is not a whole number of 72-GPU nodes"), std::string::npos) << p->text;
    s.gpuCounts = std::vector<int>(kMaxMatrixGpuCounts + 1, 72);
    EXPECT_EQ(checkDecisionMatrixSettings(s)->field, "gpu-counts");
    s.gpuCounts = { 72 };
    s.models = { "llama3-70b", "no-such-model" };
    p = checkDecisionMatrixSettings(s);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->field, "models");
    EXPECT_NE(p->text.find("\"no-such-model\""), std::string::npos);
    s.models = {};
    EXPECT_EQ(checkDecisionMatrixSettings(s)->field, "models");
    s.models = { "llama3-70b" };
    s.gpu = "h300";
    EXPECT_EQ(checkDecisionMatrixSettings(s)->field, "gpu");
    s.gpu = "a100-sxm-80gb"; // no fp8 tensor cores: every configuration would be rejected
    s.gpusPerNode = 8;
    s.gpuCounts = { 8 };
    s.dtype = DType::Fp8;
    p = checkDecisionMatrixSettings(s);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->field, "dtype");
    s.dtype = DType::Bf16;
    EXPECT_FALSE(checkDecisionMatrixSettings(s));

    std::string bad;
    EXPECT_EQ(parseGpuCounts(" 8, 64 ,1024,", bad), (std::vector<int> { 8, 64, 1024 }));
    EXPECT_FALSE(parseGpuCounts("8,sixty-four", bad));
    EXPECT_EQ(bad, "sixty-four");
    EXPECT_FALSE(parseGpuCounts("8,0", bad));
    EXPECT_FALSE(parseGpuCounts("99999999999", bad));
}

} // namespace
