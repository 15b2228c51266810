// SPDX-License-Identifier: Apache-2.0
// A run of the user's own as a validation record (check-log --record): validate models the design exactly as
// check-log predicted it, and the runs file grows by one record per run.
#include "core/launch/OwnRunRecord.h"
#include "../TestScenarios.h"

#include "core/Engine.h"
#include "core/io/BoundedRead.h"
#include "core/validation/ValidationSuite.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace parallax::core;

namespace {
LogCheck checkedRun(const std::string& preset)
{
    std::string error;
    const auto check = checkTrainingLog(parallax::test::presetScenario(preset),
        parallax::test::testData("megatron/synthetic-training.log"), 2, {}, error);
    EXPECT_TRUE(check) << error;
    return check ? *check : LogCheck {};
}
} // namespace

TEST(OwnRunRecord, ValidationPredictsWhatCheckLogPredicted)
{
    const LogCheck check = checkedRun("llama3-70b-64xh100");
    const nlohmann::json record = ownRunRecord(check, "logs/run-17.out", "2026-12-06");
    EXPECT_EQ(record["id"], "llama-3-70b-on-64-h100-run-17") << record["id"];
    EXPECT_EQ(record["system"], "Megatron-LM");
    EXPECT_DOUBLE_EQ(record["measured"]["iteration_time_s"].get<double>(), check.comparison.measuredSeconds);
    EXPECT_DOUBLE_EQ(record["measured"]["peak_memory_bytes"].get<double>(), check.comparison.measuredAllocatedBytes);

    const ValidationSummary s = runValidation(nlohmann::json::array({ record }));
    ASSERT_EQ(s.rows.size(), 1u);
    const ValidationRow& row = s.rows.front();
    EXPECT_EQ(row.run.source, "own runs");
    EXPECT_TRUE(row.run.assumptions.empty()); // the design is taken whole, nothing assumed
    EXPECT_DOUBLE_EQ(row.predictedStepSeconds, check.comparison.predictedSeconds);
    EXPECT_NEAR(row.error, check.comparison.stepError, 1e-12);
    EXPECT_DOUBLE_EQ(row.predictedPeakMemoryBytes, check.comparison.predictedAllocatedBytes);
    EXPECT_EQ(validationFamily(row.run), "h100-sxm x dense");
    EXPECT_EQ(s.perFamily.count("h100-sxm x dense"), 1u);
}

// DeepSeek-V3's plan is recorded as Megatron-LM ran it (1F1B, bf16 dispatch), and validated so.
TEST(OwnRunRecord, RecordsTheDesignAsTheFrameworkRanIt)
{
    const LogCheck check = checkedRun("deepseek-v3-2048xh800");
    ASSERT_EQ(check.changes.size(), 3u);
    const nlohmann::json record = ownRunRecord(check, "deepseek.out", "2026-12-06");
    EXPECT_EQ(record["scenario"]["parallel"]["schedule"], "1f1b");
    const ValidationSummary s = runValidation(nlohmann::json::array({ record }));
    ASSERT_EQ(s.rows.size(), 1u);
    EXPECT_DOUBLE_EQ(s.rows.front().predictedStepSeconds, check.comparison.predictedSeconds);
    EXPECT_EQ(validationFamily(s.rows.front().run), "h800-sxm x MoE");
}

TEST(OwnRunRecord, TheRunsFileGrowsAndReplacesByIdAtomically)
{
    const std::string dir = ::testing::TempDir() + "/own-runs";
    std::filesystem::create_directories(dir);
    const std::string path = dir + "/runs.json";
    std::filesystem::remove(path);
    const LogCheck check = checkedRun("llama3-70b-64xh100");
    std::string error;
    ASSERT_TRUE(addRunRecord(path, ownRunRecord(check, "a.out", "2026-12-06"), error)) << error;
    ASSERT_TRUE(addRunRecord(path, ownRunRecord(check, "b.out", "2026-12-06"), error)) << error;
    // The same log again replaces its record.
    ASSERT_TRUE(addRunRecord(path, ownRunRecord(check, "b.out", "2026-12-07"), error)) << error;
    std::string text;
    ASSERT_TRUE(io::readFileBounded(path, text, error)) << error;
    const nlohmann::json runs = nlohmann::json::parse(text);
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[1]["source"]["date"], "2026-12-07");
    EXPECT_EQ(runValidation(runs).rows.size(), 2u);
    // A file that is not an array of records is left alone, with the fix.
    std::ofstream(dir + "/scenario.json") << "{\"name\": \"x\"}";
    EXPECT_FALSE(addRunRecord(dir + "/scenario.json", ownRunRecord(check, "a.out", "2026-12-06"), error));
    EXPECT_NE(error.find("not a JSON array of run records"), std::string::npos) << error;
    std::string kept;
    ASSERT_TRUE(io::readFileBounded(dir + "/scenario.json", kept, error));
    EXPECT_EQ(kept, "{\"name\": \"x\"}");
    // A record of another kind (a number as its id) stays and the new one is added beside it: before, comparing
    // the ids threw out of check-log --record.
    std::ofstream(dir + "/odd.json") << "[{\"id\": 5}]";
    ASSERT_TRUE(addRunRecord(dir + "/odd.json", ownRunRecord(check, "a.out", "2026-12-06"), error)) << error;
    ASSERT_TRUE(io::readFileBounded(dir + "/odd.json", kept, error)) << error;
    EXPECT_EQ(nlohmann::json::parse(kept).size(), 2u);
}

// check-log --record and File > Record Training Log: named after the log's file name, dated today.
TEST(OwnRunRecord, RecordRunNamesTheLogFileAndToday)
{
    const std::string dir = ::testing::TempDir() + "/own-runs-today";
    std::filesystem::create_directories(dir);
    const std::string path = dir + "/runs.json";
    std::filesystem::remove(path);
    std::string error;
    const auto id = recordRun(checkedRun("llama3-70b-64xh100"), "/cluster/logs/run-9.out", path, error);
    ASSERT_TRUE(id) << error;
    EXPECT_EQ(*id, "llama-3-70b-on-64-h100-run-9");
    std::string text;
    ASSERT_TRUE(io::readFileBounded(path, text, error)) << error;
    const nlohmann::json runs = nlohmann::json::parse(text);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0]["source"]["title"], "Own measurement: run-9.out");
    const std::string date = runs[0]["source"]["date"];
    ASSERT_EQ(date.size(), 10u);
    EXPECT_EQ(date.substr(0, 2), "20");
    EXPECT_EQ(date[4], '-');
    EXPECT_EQ(date[7], '-');
    EXPECT_FALSE(recordRun(checkedRun("llama3-70b-64xh100"), "run-9.out", dir, error)); // a directory
}
