// SPDX-License-Identifier: Apache-2.0
#include "InferenceTestSupport.h"

#include "core/inference/ServingSearch.h"
#include "core/report/ReportMarkdown.h"
#include "core/search/ConfigSearch.h"

#include <gtest/gtest.h>

using namespace parallax::core;
using parallax::test::servingScenario;

TEST(ServingSearch, RanksLayoutsByTokensPerGpuAndExplainsLosers)
{
    Scenario s = servingScenario("deepseek-v3", "h200", 8, 8);
    s.inference.weightFormat = WeightFormat::Fp8;
    s.inference.isl = 2048;
    s.inference.osl = 1024;
    const ServingSearchResult r = searchServingLayouts(s, { 0.2, 0.05 }, 5);
    ASSERT_FALSE(r.candidates.empty());
    for (std::size_t i = 1; i < r.candidates.size(); ++i)
        EXPECT_GE(r.candidates[i - 1].tokensPerSecondPerGpu, r.candidates[i].tokensPerSecondPerGpu);
    for (const auto& c : r.candidates) {
        EXPECT_LE(c.ttftSeconds, 0.2);
        EXPECT_LE(c.tpotSeconds, 0.05);
        EXPECT_FALSE(c.reason.empty());
    }
    bool memoryLoser = false, ttftLoser = false;
    for (const auto& c : r.rejected) {
        memoryLoser = memoryLoser || c.reason.find("budget") != std::string::npos;
        ttftLoser = ttftLoser || c.reason.find("exceeds the 200 ms limit") != std::string::npos;
    }
    EXPECT_TRUE(memoryLoser); // attention and experts replicated without EP: 627 GiB per GPU
    EXPECT_TRUE(ttftLoser);
}

TEST(ServingSearch, ATightCacheSaysHowMuchMoreItNeeds)
{
    Scenario s = servingScenario("llama3-70b", "h100-sxm", 8, 8);
    s.inference.isl = 30720;
    s.inference.osl = 2048;
    s.inference.concurrency = 64;
    const ServingSearchResult r = searchServingLayouts(s, {}, 20);
    bool said = false;
    for (const auto& c : r.candidates)
        said = said || c.reason.find("KV cache for 64 requests of 32K needs") != std::string::npos;
    EXPECT_TRUE(said);
}

TEST(ServingMarkdown, ExportCarriesTheServingNumbers)
{
    Scenario s = servingScenario("llama3-405b", "h100-sxm", 8, 8);
    s.inference.weightFormat = WeightFormat::Fp8;
    const Report r = evaluate(s);
    const std::string md = reportToMarkdown(s, r);
    EXPECT_NE(md.find("weights fp8"), std::string::npos);
    EXPECT_NE(md.find("## Memory per GPU"), std::string::npos);
    EXPECT_NE(md.find("| fits |"), std::string::npos) << md;
    EXPECT_EQ(md.find("Step time"), std::string::npos); // no training table for a serving scenario
}

TEST(ServingSearch, TheTrainingSearchRefusesAServingScenario)
{
    const SearchResult r = searchConfigurations(servingScenario("llama3-70b", "h100-sxm", 8, 8));
    EXPECT_NE(r.error.find("serving scenario"), std::string::npos) << r.error;
    EXPECT_TRUE(r.candidates.empty());
}
