// SPDX-License-Identifier: Apache-2.0
#include "core/report/ReportMarkdown.h"
#include "core/Engine.h"
#include "core/io/ScenarioIo.h"
#include "core/search/NumberText.h"

#include <gtest/gtest.h>

using namespace parallax;

TEST(ReportMarkdown, HasHeadlineMemoryTableReasonsAndPictures)
{
    core::LoadError error;
    const auto s = core::loadScenarioFile(
        std::string(PARALLAX_SOURCE_DIR) + "/presets/scenarios/llama3-70b-64xh100.parallax.json", error);
    ASSERT_TRUE(s) << error.text();
    const core::Report r = core::evaluate(*s);
    core::MarkdownOptions o;
    o.reasons = { "fits with 29 GiB to spare", "TP stays on NVLink" };
    o.ganttPicture = "images/gantt.png";
    o.memoryPicture = "images/memory.svg";
    o.tracePath = "trace.json";
    const std::string md = core::reportToMarkdown(*s, r, o);
    EXPECT_EQ(md.rfind("# Llama 3 70B on 64 H100\n", 0), 0u);
    EXPECT_NE(md.find("| Step time |"), std::string::npos);
    EXPECT_NE(md.find(core::formatSeconds(r.stepTimeSeconds)), std::string::npos);
    EXPECT_NE(md.find(core::percentText(r.bubbleFraction)), std::string::npos);
    EXPECT_NE(md.find("## Why\n\n- fits with 29 GiB to spare\n- TP stays on NVLink\n"), std::string::npos);
    EXPECT_NE(md.find("![Pipeline schedule](images/gantt.png)"), std::string::npos);
    EXPECT_NE(md.find("![Memory per stage](images/memory.svg)"), std::string::npos);
    EXPECT_NE(md.find("[trace.json](trace.json)"), std::string::npos);
    EXPECT_EQ(md.find("Rank map"), std::string::npos); // no picture, no section
    // One table row per stage.
    for (const auto& st : r.stages)
        EXPECT_NE(
            md.find("| " + std::to_string(st.stage) + " | " + std::to_string(st.layers) + " |"), std::string::npos);
}

TEST(ReportMarkdown, DescribesTheScenarioInOneLineEach)
{
    core::LoadError error;
    const auto s = core::loadScenarioFile(
        std::string(PARALLAX_SOURCE_DIR) + "/presets/scenarios/llama3-70b-64xh100.parallax.json", error);
    ASSERT_TRUE(s) << error.text();
    const core::Report r = core::evaluate(*s);
    EXPECT_NE(core::describeCluster(*s).find("64 x "), std::string::npos);
    EXPECT_NE(core::describeCluster(*s).find("8 NVLink domains of 8"), std::string::npos);
    const std::string config = core::describeConfiguration(*s);
    EXPECT_NE(config.find("TP 8 (SP)"), std::string::npos);
    EXPECT_NE(config.find("PP 8"), std::string::npos);
    EXPECT_NE(config.find("VPP 2"), std::string::npos);
    EXPECT_NE(config.find("interleaved-1f1b"), std::string::npos);
    EXPECT_NE(core::describeModel(*s, r).find("sequence 8192"), std::string::npos);
    // The preset's published 70.6 B is the count to 1%: not repeated.
    EXPECT_EQ(core::describeModel(*s, r).find("published"), std::string::npos);
    // DeepSeek-V3's 671 B leaves out the MTP module the engine counts: said beside the count.
    const auto dsv3 = core::loadScenarioFile(
        std::string(PARALLAX_SOURCE_DIR) + "/presets/scenarios/deepseek-v3-2048xh800.parallax.json", error);
    ASSERT_TRUE(dsv3) << error.text();
    const std::string model = core::describeModel(*dsv3, core::evaluate(*dsv3));
    EXPECT_NE(model.find("of them in multi-token prediction (published: 671 B)"), std::string::npos) << model;
    EXPECT_EQ(core::formatSeconds(0.0123), "12.3 ms");
    EXPECT_EQ(core::formatSeconds(4.561), "4.56 s");
    EXPECT_EQ(core::percentText(0.1234), "12.3%");
}
