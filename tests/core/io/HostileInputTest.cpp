// SPDX-License-Identifier: Apache-2.0
// Issue 16: hostile input gets a message naming the file or field, never a crash, an exception
// out of the core, undefined behaviour, or a save that loses data.
#include "core/calibration/Calibration.h"
#include "core/io/AtomicFile.h"
#include "core/io/BoundedRead.h"
#include "core/io/JsonText.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/validation/PublishedRun.h"
#include "core/validation/ValidationSuite.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

using namespace parallax::core;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string defaultScenarioText()
{
    return PresetLibrary::instance().scenario(kDefaultScenarioPreset)->json;
}

json defaultScenario()
{
    return json::parse(defaultScenarioText());
}

std::string withTp(const std::string& tpText)
{
    json j = defaultScenario();
    j["parallel"]["tp"] = 12345;
    std::string text = j.dump();
    text.replace(text.find("12345"), 5, tpText);
    return text;
}

std::string nested(int depth)
{
    return std::string(static_cast<std::size_t>(depth), '[') + std::string(static_cast<std::size_t>(depth), ']');
}

class TempDir {
public:
    TempDir()
    {
        char name[] = "/tmp/parallax-hostile-XXXXXX";
        m_path = ::mkdtemp(name);
    }
    ~TempDir() { fs::remove_all(m_path); }
    std::string file(const std::string& name) const { return (m_path / name).string(); }
    std::vector<std::string> entries() const
    {
        std::vector<std::string> out;
        for (const auto& e : fs::directory_iterator(m_path))
            out.push_back(e.path().filename().string());
        return out;
    }

private:
    fs::path m_path;
};

void writeText(const std::string& path, const std::string& text)
{
    std::ofstream(path, std::ios::binary) << text;
}

std::string readText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

} // namespace

TEST(BoundedRead, RefusesWhatIsNotARegularFileNamingIt)
{
    TempDir dir;
    const std::string fifo = dir.file("pipe");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const struct {
        std::string path;
        std::string says;
    } cases[] = { { "/dev/zero", "is a device" }, { "/tmp", "is a directory" }, { fifo, "is a pipe" },
        { dir.file("missing.json"), "cannot open" } };
    for (const auto& c : cases) {
        std::string content, error;
        EXPECT_FALSE(io::readFileBounded(c.path, content, error)) << c.path;
        EXPECT_NE(error.find(c.says), std::string::npos) << error;
        EXPECT_NE(error.find(c.path), std::string::npos) << error;
    }
}

TEST(BoundedRead, RefusesAFileOverTheCapAndStatesTheLimit)
{
    TempDir dir;
    const std::string path = dir.file("big.json");
    writeText(path, std::string(3 * 1024 * 1024, ' '));
    std::string content, error;
    EXPECT_FALSE(io::readFileBounded(path, content, error, 2 * 1024 * 1024));
    EXPECT_NE(error.find("limited to 2 MiB"), std::string::npos) << error;
    EXPECT_TRUE(io::readFileBounded(path, content, error));
    EXPECT_EQ(content.size(), 3u * 1024 * 1024);
}

TEST(JsonNesting, CountsBracketsOutsideStringsOnly)
{
    EXPECT_EQ(io::checkJsonNesting(nested(64)), "");
    EXPECT_EQ(io::checkJsonNesting("[\n[\n" + nested(63) + "]]", 64), "nesting deeper than 64 levels at line 3");
    EXPECT_EQ(io::checkJsonNesting("{\"k\": \"" + std::string(1000, '[') + "\\\"[\"}"), "");
}

TEST(ScenarioReader, DeepNestingIsRefusedBeforeTheRecursiveParse)
{
    // 100k levels overflowed the stack in nlohmann's parser, copy and dump (SIGSEGV).
    json j = defaultScenario();
    j["future_key"] = "HERE";
    std::string text = j.dump();
    text.replace(text.find("\"HERE\""), 6, nested(100000));
    LoadError error;
    EXPECT_FALSE(parseScenario(text, error));
    EXPECT_NE(error.text().find("nesting deeper than 64 levels at line 1"), std::string::npos) << error.text();
}

TEST(ScenarioReader, DeepUnknownKeyWithinTheCapSavesToABoundedFile)
{
    json j = defaultScenario();
    j["future_key"] = "HERE";
    std::string text = j.dump();
    // 60 levels, then 200,000 numbers: pretty-printed at that depth each would take a 120-column line.
    std::string wide = std::string(60, '[');
    for (int i = 0; i < 200000; ++i)
        wide += "0,";
    wide.back() = ']';
    wide += std::string(59, ']');
    text.replace(text.find("\"HERE\""), 6, wide);
    LoadError error;
    auto s = parseScenario(text, error);
    ASSERT_TRUE(s) << error.text();
    const std::string saved = serializeScenario(*s);
    EXPECT_LT(saved.size(), 2 * text.size()) << "pretty-printing grows with depth";
    auto again = parseScenario(saved, error);
    ASSERT_TRUE(again) << error.text();
    ASSERT_TRUE(s->extra && again->extra);
    EXPECT_EQ(again->extra->at("future_key"), s->extra->at("future_key"));
}

TEST(ScenarioReader, EveryJsonExceptionBecomesAFieldMessage)
{
    const struct {
        std::string text;
        std::string path;
        std::string says;
    } cases[] = {
        { withTp("1e400"), "parallel.tp", "outside the range of a double" },
        { withTp("-1e400"), "parallel.tp", "outside the range of a double" },
        { withTp("18446744073709551616"), "parallel.tp", "must be <= 65536" },
        { withTp("\"\xff\""), "", "not valid JSON in parallel.tp" },
        { withTp("0"), "parallel.tp", "must be >= 1, got 0" },
    };
    for (const auto& c : cases) {
        LoadError error;
        EXPECT_FALSE(parseScenario(c.text, error));
        EXPECT_EQ(error.path, c.path) << error.text();
        EXPECT_NE(error.text().find(c.says), std::string::npos) << error.text();
        EXPECT_EQ(error.text().find("json.exception"), std::string::npos) << error.text();
    }
}

// A file cut inside a long description: the message names the field, quotes only the end of what was read,
// and keeps its characters (the "≈" of the guide's presets) as valid UTF-8, a cut one as '?'.
TEST(ScenarioReader, TruncatedDescriptionIsQuotedShortAndReadable)
{
    json j = defaultScenario();
    j["description"] = std::string(400, 'x') + " bubble \u2248 18% and \u00e9t\u00e9";
    const std::string text = j.dump();
    // Cut after the first byte of the last "é".
    const std::string cut = text.substr(0, text.find("\xc3\xa9\"") + 1);
    LoadError error;
    EXPECT_FALSE(parseScenario(cut, error));
    const std::string message = error.text();
    EXPECT_NE(message.find("in description"), std::string::npos) << message;
    EXPECT_NE(message.find("\u2248 18% and \u00e9t?"), std::string::npos) << message;
    EXPECT_NE(message.find("...x"), std::string::npos) << message;
    EXPECT_EQ(message.find(std::string(200, 'x')), std::string::npos) << "the whole string quoted: " << message;
    EXPECT_NO_THROW((void)json(message).dump()) << "not valid UTF-8";
}

TEST(ScenarioReader, ModelOfTheWrongTypeSaysBothFormsAreAccepted)
{
    json j = defaultScenario();
    j["model"] = 70;
    LoadError error;
    EXPECT_FALSE(parseScenario(j.dump(), error));
    EXPECT_EQ(error.text(), "model: must be a model preset name (a string) or a model object, got a number");
}

TEST(ScenarioReader, AMillionGpusGetsTheSliceAdvice)
{
    for (const int nodes : { 12500, 125000 }) {
        json j = defaultScenario();
        j["cluster"] = { { "gpu", "h100-sxm" }, { "nodes", nodes }, { "gpus_per_node", 8 } };
        LoadError error;
        EXPECT_FALSE(parseScenario(j.dump(), error));
        EXPECT_NE(error.text().find("model one representative slice"), std::string::npos) << error.text();
    }
}

TEST(ScenarioReader, ScenarioFileErrorsNameTheFile)
{
    LoadError error;
    EXPECT_FALSE(loadScenarioFile("/tmp", error));
    EXPECT_NE(error.text().find("\"/tmp\" is a directory"), std::string::npos) << error.text();
    EXPECT_FALSE(loadScenarioFile("/dev/zero", error));
    EXPECT_NE(error.text().find("is a device"), std::string::npos) << error.text();
}

TEST(CalibrationReader, RangeAndDepthErrorsNameTheField)
{
    const std::string head = R"({"format":"parallax-calibration","version":1,"date":"2026-01-01","gpu":{"name":"x"},)";
    const struct {
        std::string text;
        std::string says;
    } cases[] = {
        { head + R"("hbm":{"buffer_bytes":1e72}})",
            "hbm.buffer_bytes: must be a whole number of bytes from 1 to 2^53" },
        { head + R"("hbm":{"buffer_bytes":1e400}})", "hbm.buffer_bytes: a number is outside the range of a double" },
        { head + R"("method":{"warmup":4294967296}})", "method.warmup: must be an integer from 0 to 2147483647" },
        { head + R"("method":{"warmup":18446744073709551615}})", "method.warmup: must be an integer from 0" },
        { R"({"format":)" + nested(1000) + "}", "nesting deeper than 64 levels" },
    };
    for (const auto& c : cases) {
        std::string error;
        EXPECT_FALSE(readCalibration(c.text, error));
        EXPECT_NE(error.find(c.says), std::string::npos) << error;
    }
}

TEST(CalibrationReader, WhatTheWriterWritesTheReaderReads)
{
    Calibration c;
    c.gpuName = "NVIDIA H100";
    c.date = "2026-01-01";
    c.hbmBytesPerSecond = 3e12;
    c.hbmBufferBytes = 1e72; // held by the engine, never read from a file: the writer must clamp
    c.gpuMemoryBytes = 85899345920;
    std::string error;
    const auto again = readCalibration(writeCalibration(c), error);
    ASSERT_TRUE(again) << error;
    EXPECT_EQ(again->gpuMemoryBytes, c.gpuMemoryBytes);
    EXPECT_EQ(again->hbmBufferBytes, 9007199254740992.0);
}

TEST(CalibrationReader, FilesAreReadBounded)
{
    std::string error;
    EXPECT_FALSE(loadCalibrationFile("/dev/zero", error));
    EXPECT_NE(error.find("\"/dev/zero\" is a device"), std::string::npos) << error;
}

TEST(PublishedRunReader, NumbersOutOfRangeAreNotModelledWithTheField)
{
    const json base = json::parse(R"json({
      "id": "r", "source": { "arxiv": "2104.04473" },
      "model": { "name": "GPT", "layers": 24, "hidden": 2304, "heads": 24, "vocab": 51200, "seq_len": 2048 },
      "hardware": { "gpu": "NVIDIA A100 SXM 80GB", "gpus_per_node": 8, "gpu_count": 32 },
      "parallel": { "tp": 1, "pp": 1, "global_batch": 512 },
      "measured": { "iteration_time_s": 3.5 } })json");
    ASSERT_TRUE(convertPublishedRun(base).run) << convertPublishedRun(base).reason;
    const struct {
        const char* section;
        const char* key;
        double value;
    } cases[] = { { "model", "layers", 1e30 }, { "model", "hidden", -5 }, { "model", "heads", 3e9 },
        { "hardware", "gpus_per_node", 1e30 }, { "hardware", "gpu_count", 1e30 }, { "parallel", "tp", 1e30 },
        { "parallel", "zero_stage", 1e30 }, { "parallel", "global_batch_tokens", 1e300 } };
    for (const auto& c : cases) {
        json r = base;
        r[c.section][c.key] = c.value;
        if (std::string(c.key) == "global_batch_tokens")
            r["parallel"].erase("global_batch");
        const PublishedRunConversion conv = convertPublishedRun(r);
        EXPECT_FALSE(conv.run) << c.key;
        EXPECT_NE(conv.reason.find(c.key), std::string::npos) << conv.reason;
    }
}

TEST(PublishedRunReader, NoModelledRowIsNotWithinBounds)
{
    const json records = json::parse(R"([{"id": "a", "model": {}}, {"id": "b"}])");
    const ValidationSummary summary = runValidation(records);
    EXPECT_TRUE(summary.rows.empty());
    EXPECT_FALSE(summary.withinBounds());
}

TEST(AtomicSave, KeepsPermissionsAndLeavesNoTemporaries)
{
    TempDir dir;
    const std::string path = dir.file("s.parallax.json");
    writeText(path, "old");
    ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
    // A crashed save of an earlier process left its temporary (pid 2^22 + 1 is above Linux's pid_max cap).
    writeText(path + ".tmp-4194305", "partial");
    std::string error;
    ASSERT_TRUE(io::writeFileAtomically(path, "new", error)) << error;
    EXPECT_EQ(readText(path), "new");
    struct stat st { };
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0640u);
    EXPECT_EQ(dir.entries(), std::vector<std::string> { "s.parallax.json" });
}

TEST(AtomicSave, AFailedWriteOrCopyLeavesTheOldFile)
{
    TempDir dir;
    const std::string path = dir.file("calibration.json");
    writeText(path, "previous");
    std::string error;
    EXPECT_FALSE(io::copyFileAtomically(dir.file("vanished.json"), path, error));
    EXPECT_EQ(readText(path), "previous");
    EXPECT_FALSE(io::writeFileAtomically(dir.file("no-folder/x.json"), "{}", error));
    EXPECT_NE(error.find("no-folder/x.json"), std::string::npos) << error;
    if (fs::exists("/dev/full")) {
        // Writing to a full disk: write or fsync fails and says so, the target stays.
        EXPECT_FALSE(io::writeFileAtomically("/dev/full", "x", error));
    }
    writeText(dir.file("source.json"), "measured");
    ASSERT_TRUE(io::copyFileAtomically(dir.file("source.json"), path, error)) << error;
    EXPECT_EQ(readText(path), "measured");
}
