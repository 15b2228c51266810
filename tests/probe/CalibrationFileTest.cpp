// SPDX-License-Identifier: Apache-2.0
// The file the probe writes (writeCalibration + writeFileAtomically) and what the engine reads
// back (readCalibration / loadCalibrationFile).

#include "core/calibration/Calibration.h"
#include "core/probe/NcclLibrary.h"
#include "core/probe/ProbeOutput.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <unistd.h>

using namespace parallax;
using core::Calibration;

namespace {

// A calibration as an 8 x H200 run would produce it, every field set.
Calibration fullCalibration()
{
    Calibration c;
    c.probeVersion = "0.1.0";
    c.date = "2025-11-30T02:18:00Z";
    c.gpuName = "NVIDIA H200";
    c.gpuCount = 8;
    c.computeCapability = "9.0";
    c.smCount = 132;
    c.gpuMemoryBytes = 150754820096.0;
    c.smClockMHz = 1980;
    c.memoryClockMHz = 3201;
    c.driver = "570.124.06, CUDA 12.8";
    c.cudaRuntime = "13.0";
    c.warmup = 5;
    c.repeats = 20;
    c.gemm.push_back({ 8192, 1280, 8192, core::DType::Bf16, 612.345e12, 0, "qkv.fwd", { 608.1e12, 615.25e12 }, 0.031 });
    c.gemm.push_back({ 16384, 16384, 16384, core::DType::Fp8, 1290.5e12, 0, "square", { 1281e12, 1299e12 }, 0.12 });
    for (auto& g : c.gemm)
        g.spread = (g.percentiles.p90 - g.percentiles.p10) / g.flopsPerSecond;
    c.attentionFlopsPerSecond = 480.5e12;
    c.attentionPercentiles = { 478e12, 481.9e12 };
    c.attentionShape = { 1, 8, 8192, 128 };
    c.hbmBufferBytes = 1073741824.0;
    c.hbmBytesPerSecond = 4321.5e9;
    c.hbmPercentiles = { 4300e9, 4330e9 };
    c.deviceCopyBytesPerSecond = 4102.25e9;
    c.deviceCopyPercentiles = { 4090e9, 4110e9 };
    c.copyBufferBytes = 268435456.0;
    c.hostToDeviceBytesPerSecond = 53.5e9;
    c.hostToDevicePercentiles = { 53.1e9, 53.7e9 };
    c.deviceToHostBytesPerSecond = 54.25e9;
    c.deviceToHostPercentiles = { 54e9, 54.5e9 };
    c.peers.push_back({ 0, 1, 389.5e9, { 388e9, 390e9 } });
    c.peers.push_back({ 1, 0, 390.5e9, { 389e9, 391e9 } });
    c.peerBytesPerSecond = 390e9;
    c.peerPercentiles = { 389.6e9, 390.4e9 };
    c.collectives.push_back({ core::CollectiveKind::AllReduce, 8, 1073741824.0, 480.25e9, { 478e9, 482e9 } });
    c.collectives.push_back({ core::CollectiveKind::AllToAll, 8, 65536.0, 12.5e9, { 12e9, 13e9 } });
    c.failures.push_back({ "gemm fp8 logits.wgrad 8192x16128x8192", "verification failed: D[0,1,2] = 3" });
    return c;
}

::testing::AssertionResult near(double expected, double actual)
{
    if (std::abs(expected - actual) <= 1e-6 * std::abs(expected))
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << actual << " is not " << expected;
}

void expectSame(const Calibration& a, const Calibration& b)
{
    EXPECT_EQ(a.probeVersion, b.probeVersion);
    EXPECT_EQ(a.date, b.date);
    EXPECT_EQ(a.gpuName, b.gpuName);
    EXPECT_EQ(a.gpuCount, b.gpuCount);
    EXPECT_EQ(a.computeCapability, b.computeCapability);
    EXPECT_EQ(a.smCount, b.smCount);
    EXPECT_TRUE(near(a.gpuMemoryBytes, b.gpuMemoryBytes));
    EXPECT_TRUE(near(a.smClockMHz, b.smClockMHz));
    EXPECT_TRUE(near(a.memoryClockMHz, b.memoryClockMHz));
    EXPECT_EQ(a.driver, b.driver);
    EXPECT_EQ(a.cudaRuntime, b.cudaRuntime);
    EXPECT_EQ(a.warmup, b.warmup);
    EXPECT_EQ(a.repeats, b.repeats);
    ASSERT_EQ(a.gemm.size(), b.gemm.size());
    for (std::size_t i = 0; i < a.gemm.size(); ++i) {
        EXPECT_EQ(a.gemm[i].label, b.gemm[i].label);
        EXPECT_EQ(a.gemm[i].m, b.gemm[i].m);
        EXPECT_EQ(a.gemm[i].n, b.gemm[i].n);
        EXPECT_EQ(a.gemm[i].k, b.gemm[i].k);
        EXPECT_EQ(a.gemm[i].dtype, b.gemm[i].dtype);
        EXPECT_TRUE(near(a.gemm[i].flopsPerSecond, b.gemm[i].flopsPerSecond));
        EXPECT_TRUE(near(a.gemm[i].percentiles.p10, b.gemm[i].percentiles.p10));
        EXPECT_TRUE(near(a.gemm[i].percentiles.p90, b.gemm[i].percentiles.p90));
        EXPECT_NEAR(a.gemm[i].spread, b.gemm[i].spread, 1e-5);
        EXPECT_TRUE(near(a.gemm[i].maxErrorToBound, b.gemm[i].maxErrorToBound));
    }
    ASSERT_TRUE(b.attentionFlopsPerSecond);
    EXPECT_TRUE(near(*a.attentionFlopsPerSecond, *b.attentionFlopsPerSecond));
    EXPECT_TRUE(near(a.attentionPercentiles.p90, b.attentionPercentiles.p90));
    EXPECT_EQ(a.attentionShape.heads, b.attentionShape.heads);
    EXPECT_EQ(a.attentionShape.seqLen, b.attentionShape.seqLen);
    EXPECT_EQ(a.attentionShape.headDim, b.attentionShape.headDim);
    EXPECT_EQ(a.attentionShape.batch, b.attentionShape.batch);
    for (auto [x, y] : { std::pair { a.hbmBytesPerSecond, b.hbmBytesPerSecond },
             std::pair { a.deviceCopyBytesPerSecond, b.deviceCopyBytesPerSecond },
             std::pair { a.hostToDeviceBytesPerSecond, b.hostToDeviceBytesPerSecond },
             std::pair { a.deviceToHostBytesPerSecond, b.deviceToHostBytesPerSecond },
             std::pair { a.peerBytesPerSecond, b.peerBytesPerSecond } }) {
        ASSERT_TRUE(x && y);
        EXPECT_TRUE(near(*x, *y));
    }
    for (auto [x, y] : { std::pair { a.hbmPercentiles, b.hbmPercentiles },
             std::pair { a.deviceCopyPercentiles, b.deviceCopyPercentiles },
             std::pair { a.hostToDevicePercentiles, b.hostToDevicePercentiles },
             std::pair { a.deviceToHostPercentiles, b.deviceToHostPercentiles },
             std::pair { a.peerPercentiles, b.peerPercentiles } }) {
        EXPECT_TRUE(near(x.p10, y.p10));
        EXPECT_TRUE(near(x.p90, y.p90));
    }
    EXPECT_TRUE(near(a.hbmBufferBytes, b.hbmBufferBytes));
    EXPECT_TRUE(near(a.copyBufferBytes, b.copyBufferBytes));
    ASSERT_EQ(a.peers.size(), b.peers.size());
    for (std::size_t i = 0; i < a.peers.size(); ++i) {
        EXPECT_EQ(a.peers[i].source, b.peers[i].source);
        EXPECT_EQ(a.peers[i].destination, b.peers[i].destination);
        EXPECT_TRUE(near(a.peers[i].bytesPerSecond, b.peers[i].bytesPerSecond));
    }
    ASSERT_EQ(a.collectives.size(), b.collectives.size());
    for (std::size_t i = 0; i < a.collectives.size(); ++i) {
        EXPECT_EQ(a.collectives[i].kind, b.collectives[i].kind);
        EXPECT_EQ(a.collectives[i].ranks, b.collectives[i].ranks);
        EXPECT_EQ(a.collectives[i].bytes, b.collectives[i].bytes);
        EXPECT_TRUE(near(a.collectives[i].busBytesPerSecond, b.collectives[i].busBytesPerSecond));
        EXPECT_TRUE(near(a.collectives[i].percentiles.p10, b.collectives[i].percentiles.p10));
    }
    ASSERT_EQ(a.failures.size(), b.failures.size());
    EXPECT_EQ(a.failures[0].what, b.failures[0].what);
    EXPECT_EQ(a.failures[0].reason, b.failures[0].reason);
}

std::filesystem::path scratchDirectory(const std::string& name)
{
    const auto dir = std::filesystem::temp_directory_path()
        / ("parallax-probe-test-" + name + "-" + std::to_string(static_cast<long>(getpid())));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

} // namespace

TEST(CalibrationFile, WriteThenReadRoundTrips)
{
    const Calibration written = fullCalibration();
    const std::string text = core::writeCalibration(written);
    std::string error;
    const auto read = core::readCalibration(text, error);
    ASSERT_TRUE(read) << error;
    EXPECT_TRUE(error.empty());
    expectSame(written, *read);
    // Writing what was read gives the same text: the format has one spelling of everything.
    EXPECT_EQ(core::writeCalibration(*read), text);
}

TEST(CalibrationFile, KeysCarryTheirUnits)
{
    const nlohmann::json j = nlohmann::json::parse(core::writeCalibration(fullCalibration()));
    EXPECT_EQ(j.at("format"), "parallax-calibration");
    EXPECT_EQ(j.at("version"), 1);
    EXPECT_EQ(j.at("gpu").at("name"), "NVIDIA H200");
    EXPECT_EQ(j.at("gpu").at("sm_clock_mhz"), 1980);
    EXPECT_DOUBLE_EQ(j.at("gemm")[0].at("tflops_median").get<double>(), 612.345);
    EXPECT_EQ(j.at("gemm")[0].at("dtype"), "bf16");
    EXPECT_EQ(j.at("gemm")[1].at("dtype"), "fp8");
    EXPECT_DOUBLE_EQ(j.at("hbm").at("stream_gb_per_s_median").get<double>(), 4321.5);
    EXPECT_DOUBLE_EQ(j.at("copies").at("host_to_device_gb_per_s_p10").get<double>(), 53.1);
    EXPECT_EQ(j.at("collectives")[0].at("kind"), "all_reduce");
    EXPECT_EQ(j.at("collectives")[0].at("bytes"), 1073741824);
    EXPECT_DOUBLE_EQ(j.at("collectives")[1].at("bus_gb_per_s_median").get<double>(), 12.5);
    EXPECT_EQ(j.at("copies").at("peer")[1].at("src"), 1);
}

TEST(CalibrationFile, AtomicWriteThenLoad)
{
    const auto dir = scratchDirectory("atomic");
    const std::string path = (dir / "calibration.json").string();
    std::string error;
    ASSERT_TRUE(probe::writeFileAtomically(path, "old", error)) << error;
    ASSERT_TRUE(probe::writeFileAtomically(path, core::writeCalibration(fullCalibration()), error)) << error;
    // Nothing but the file itself is left behind.
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator {}), 1);
    const auto loaded = core::loadCalibrationFile(path, error);
    ASSERT_TRUE(loaded) << error;
    EXPECT_EQ(loaded->path, path);
    expectSame(fullCalibration(), *loaded);

    EXPECT_FALSE(probe::writeFileAtomically((dir / "missing" / "x.json").string(), "{}", error));
    EXPECT_NE(error.find("missing/x.json.tmp."), std::string::npos) << error;
    std::filesystem::remove_all(dir);
}

TEST(CalibrationFile, StrictReadNamesThePathInAProbeFile)
{
    // Damage one field of a file the probe wrote; the error names exactly that field.
    struct Case {
        std::function<void(nlohmann::json&)> damage;
        std::string error;
    };
    const Case cases[] = {
        { [](nlohmann::json& j) { j["gemm"][1]["tflops_median"] = 0; },
            "gemm[1].tflops_median: must be a positive number, got 0" },
        { [](nlohmann::json& j) { j["collectives"][1]["ranks"] = 1; },
            "collectives[1].ranks: must be an integer >= 2, got 1" },
        { [](nlohmann::json& j) { j["copies"]["peer"][0]["gb_per_s_p90"] = 1.0; },
            "copies.peer[0].gb_per_s_p90: must be >= gb_per_s_median (389.5), got 1" },
        { [](nlohmann::json& j) { j["hbm"]["stream_gb_per_second_median"] = 1.0; },
            "hbm.stream_gb_per_second_median: unknown key" },
        { [](nlohmann::json& j) { j["gpu"].erase("name"); }, "gpu.name: is missing" },
    };
    const nlohmann::json good = nlohmann::json::parse(core::writeCalibration(fullCalibration()));
    for (const Case& c : cases) {
        nlohmann::json j = good;
        c.damage(j);
        std::string error;
        EXPECT_FALSE(core::readCalibration(j.dump(), error));
        EXPECT_EQ(error, c.error);
    }

    const auto dir = scratchDirectory("strict");
    const std::string path = (dir / "bad.json").string();
    std::ofstream(path) << "{\"format\": \"parallax-calibration\", \"version\": 1}";
    std::string error;
    EXPECT_FALSE(core::loadCalibrationFile(path, error));
    EXPECT_EQ(error, path + ": date: is missing");
    std::filesystem::remove_all(dir);
}

TEST(NcclLibrary, MissingLibraryIsAnErrorNotACrash)
{
    probe::NcclLibrary nccl;
    std::string error;
    EXPECT_FALSE(nccl.load("libparallax-no-such-nccl.so.2", error));
    EXPECT_FALSE(nccl.loaded());
    EXPECT_NE(error.find("libparallax-no-such-nccl.so.2"), std::string::npos) << error;
}

TEST(NcclLibrary, NameComesFromTheEnvironment)
{
    unsetenv("PARALLAX_NCCL_LIBRARY");
    EXPECT_EQ(probe::NcclLibrary::defaultName(), "libnccl.so.2");
    setenv("PARALLAX_NCCL_LIBRARY", "/opt/nccl/lib/libnccl.so.2", 1);
    EXPECT_EQ(probe::NcclLibrary::defaultName(), "/opt/nccl/lib/libnccl.so.2");
    unsetenv("PARALLAX_NCCL_LIBRARY");
}

TEST(NcclLibrary, BindsEverySymbolOfARealNccl)
{
    const std::string path = PARALLAX_NCCL_CANDIDATE;
    if (!std::filesystem::exists(path))
        GTEST_SKIP() << "no NCCL in the CUDA toolkit at " << path;
    probe::NcclLibrary nccl;
    std::string error;
    ASSERT_TRUE(nccl.load(path, error)) << error;
    // ncclGetVersion needs no GPU; "2.x.y" proves the symbols bound to the real library.
    EXPECT_EQ(nccl.versionText().rfind("2.", 0), 0u) << nccl.versionText();
    EXPECT_NE(nccl.errorText(1).find("(1)"), std::string::npos);
}
