// SPDX-License-Identifier: Apache-2.0
#include "core/calibration/Calibration.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace parallax::core;

namespace {

constexpr double kT = 1e12, kG = 1e9;
constexpr double kMiB = 1024.0 * 1024.0;

Calibration::GemmPoint gemmPoint(long m, long n, long k, DType dtype, double tflops)
{
    Calibration::GemmPoint p;
    p.m = m;
    p.n = n;
    p.k = k;
    p.dtype = dtype;
    p.flopsPerSecond = tflops * kT;
    return p;
}

Calibration::CollectivePoint collectivePoint(CollectiveKind kind, int ranks, double bytes, double gbPerSecond)
{
    Calibration::CollectivePoint p;
    p.kind = kind;
    p.ranks = ranks;
    p.bytes = bytes;
    p.busBytesPerSecond = gbPerSecond * kG;
    return p;
}

Calibration measured()
{
    Calibration c;
    c.gemm = {
        gemmPoint(1024, 1024, 1024, DType::Bf16, 500),
        gemmPoint(4096, 4096, 4096, DType::Bf16, 700),
        gemmPoint(16384, 16384, 16384, DType::Bf16, 800),
        gemmPoint(8192, 1024, 1024, DType::Bf16, 300), // same FLOPs as 2048^3, skinnier
        gemmPoint(2048, 2048, 2048, DType::Bf16, 600),
        gemmPoint(4096, 4096, 4096, DType::Fp8, 1400),
    };
    c.collectives = {
        collectivePoint(CollectiveKind::AllReduce, 8, 1 * kMiB, 100),
        collectivePoint(CollectiveKind::AllReduce, 8, 64 * kMiB, 400),
        collectivePoint(CollectiveKind::AllReduce, 8, 1024 * kMiB, 450),
        collectivePoint(CollectiveKind::AllReduce, 2, 64 * kMiB, 150),
        collectivePoint(CollectiveKind::AllGather, 8, 64 * kMiB, 350),
    };
    return c;
}

// The smallest file the strict reader accepts.
const char* kMinimal = R"({"format": "parallax-calibration", "version": 1, "date": "2025-11-30T02:18:00Z",
                           "gpu": {"name": "NVIDIA H200"}})";

} // namespace

TEST(Calibration, GemmIsNearestInLogFlopsAmongTheSameDtype)
{
    const Calibration c = measured();
    EXPECT_DOUBLE_EQ(*c.gemmFlopsPerSecond(4096, 4096, 4096, DType::Bf16), 700 * kT); // exact
    EXPECT_DOUBLE_EQ(*c.gemmFlopsPerSecond(5000, 5000, 5000, DType::Bf16), 700 * kT);
    EXPECT_DOUBLE_EQ(*c.gemmFlopsPerSecond(12000, 12000, 12000, DType::Bf16), 800 * kT);
    EXPECT_DOUBLE_EQ(*c.gemmFlopsPerSecond(100, 100, 100, DType::Bf16), 500 * kT); // below the range: the smallest
    EXPECT_DOUBLE_EQ(*c.gemmFlopsPerSecond(65536, 65536, 65536, DType::Bf16), 800 * kT);
    // Non-square: 8192 x 1280 x 8192 is 1.7e11 FLOPs, nearest to 4096^3 (1.4e11).
    EXPECT_DOUBLE_EQ(*c.gemmFlopsPerSecond(8192, 1280, 8192, DType::Bf16), 700 * kT);
    // fp8 has its own points, even when a bf16 point is nearer.
    EXPECT_DOUBLE_EQ(*c.gemmFlopsPerSecond(1024, 1024, 1024, DType::Fp8), 1400 * kT);
}

TEST(Calibration, GemmTiesInFlopsGoToTheNearestShape)
{
    const Calibration c = measured();
    // 8192 x 2048 x 512 has the FLOPs of 2048^3 and of 8192 x 1024 x 1024; it is closer to the latter.
    EXPECT_DOUBLE_EQ(*c.gemmFlopsPerSecond(8192, 2048, 512, DType::Bf16), 300 * kT);
    EXPECT_DOUBLE_EQ(*c.gemmFlopsPerSecond(2048, 2048, 2048, DType::Bf16), 600 * kT);
}

TEST(Calibration, GemmWithoutPointsOrShapeIsUnknown)
{
    Calibration c;
    EXPECT_FALSE(c.gemmFlopsPerSecond(1024, 1024, 1024, DType::Bf16));
    c.gemm.push_back(gemmPoint(1024, 1024, 1024, DType::Bf16, 500));
    EXPECT_FALSE(c.gemmFlopsPerSecond(1024, 1024, 1024, DType::Fp8));
    EXPECT_FALSE(c.gemmFlopsPerSecond(0, 1024, 1024, DType::Bf16));
    EXPECT_FALSE(c.gemmFlopsPerSecond(1024, -1, 1024, DType::Bf16));
}

TEST(Calibration, PeakGemmIsTheLargestMeasured)
{
    const Calibration c = measured();
    EXPECT_DOUBLE_EQ(*c.peakGemmFlopsPerSecond(DType::Bf16), 800 * kT);
    EXPECT_DOUBLE_EQ(*c.peakGemmFlopsPerSecond(DType::Fp8), 1400 * kT);
    EXPECT_FALSE(Calibration {}.peakGemmFlopsPerSecond(DType::Bf16));
}

TEST(Calibration, CollectiveIsNearestMeasuredSize)
{
    const Calibration c = measured();
    EXPECT_DOUBLE_EQ(*c.collectiveBusBytesPerSecond(CollectiveKind::AllReduce, 48 * kMiB), 400 * kG);
    EXPECT_DOUBLE_EQ(*c.collectiveBusBytesPerSecond(CollectiveKind::AllReduce, 2 * kMiB), 100 * kG);
    EXPECT_DOUBLE_EQ(*c.collectiveBusBytesPerSecond(CollectiveKind::AllReduce, 8 * 1024 * kMiB), 450 * kG);
    EXPECT_DOUBLE_EQ(*c.collectiveBusBytesPerSecond(CollectiveKind::AllGather, 1 * kMiB), 350 * kG);
    EXPECT_FALSE(c.collectiveBusBytesPerSecond(CollectiveKind::AllToAll, 64 * kMiB));
    EXPECT_FALSE(c.collectiveBusBytesPerSecond(CollectiveKind::AllReduce, 0));
    // Without a group size, the largest group measured (the full node) answers.
    EXPECT_DOUBLE_EQ(*c.collectiveBusBytesPerSecond(CollectiveKind::AllReduce, 64 * kMiB), 400 * kG);
}

TEST(Calibration, CollectivePrefersTheNearestGroupSize)
{
    const Calibration c = measured();
    EXPECT_DOUBLE_EQ(*c.collectiveBusBytesPerSecond(CollectiveKind::AllReduce, 2, 64 * kMiB), 150 * kG);
    EXPECT_DOUBLE_EQ(*c.collectiveBusBytesPerSecond(CollectiveKind::AllReduce, 3, 1 * kMiB), 150 * kG);
    EXPECT_DOUBLE_EQ(*c.collectiveBusBytesPerSecond(CollectiveKind::AllReduce, 8, 1 * kMiB), 100 * kG);
    EXPECT_DOUBLE_EQ(*c.collectiveBusBytesPerSecond(CollectiveKind::AllReduce, 16, 1024 * kMiB), 450 * kG);
    EXPECT_FALSE(c.collectiveBusBytesPerSecond(CollectiveKind::AllReduce, 0, 1 * kMiB));
}

TEST(Calibration, MinimalFileHasNoMeasurements)
{
    std::string error;
    const auto c = readCalibration(kMinimal, error);
    ASSERT_TRUE(c) << error;
    EXPECT_EQ(c->gpuName, "NVIDIA H200");
    EXPECT_EQ(c->date, "2025-11-30T02:18:00Z");
    EXPECT_FALSE(c->hbmBytesPerSecond);
    EXPECT_FALSE(c->peakGemmFlopsPerSecond(DType::Bf16));
    EXPECT_FALSE(c->collectiveBusBytesPerSecond(CollectiveKind::AllReduce, 1e6));
}

TEST(Calibration, StrictReadErrorsNameThePath)
{
    // Each case replaces one part of an otherwise valid file.
    const std::string head = R"({"format": "parallax-calibration", "version": 1, "date": "d", "gpu": {"name": "G"})";
    const std::string gemm0 = R"({"m": 8, "n": 8, "k": 8, "dtype": "bf16", "tflops_median": 1})";
    struct Case {
        std::string json;
        std::string error;
    };
    const Case cases[] = {
        { "not json", "not valid JSON (" },
        { "[1, 2]", "must be an object, got an array" },
        { R"({"format": "other", "version": 1})", R"(format: must be "parallax-calibration", got "other")" },
        { R"({"version": 1})", "format: is missing" },
        { R"({"format": "parallax-calibration", "version": 2})",
            "version: unsupported version 2 (this build reads version 1)" },
        { R"({"format": "parallax-calibration", "version": "1"})", "version: must be an integer >= 1, got a string" },
        { R"({"format": "parallax-calibration", "version": 1, "date": "d"})", "gpu: is missing" },
        { R"({"format": "parallax-calibration", "version": 1, "date": "d", "gpu": {"name": ""}})",
            "gpu.name: must not be empty" },
        { R"({"format": "parallax-calibration", "version": 1, "date": "d", "gpu": {"name": "G", "count": 0}})",
            "gpu.count: must be an integer >= 1, got 0" },
        { R"({"format": "parallax-calibration", "version": 1, "date": "d", "gpu": {"name": "G", "clock": 1}})",
            "gpu.clock: unknown key" },
        { head + R"(, "extra": 1})", "extra: unknown key" },
        { head + R"(, "gemm": {}})", "gemm: must be an array, got an object" },
        { head + R"(, "gemm": [)" + gemm0 + "," + gemm0 + "," + gemm0 + R"(,
             {"m": 8, "n": 8, "k": 8, "dtype": "bf16", "tflops_median": -1}]})",
            "gemm[3].tflops_median: must be a positive number, got -1" },
        { head + R"(, "gemm": [{"m": 8, "n": 8, "k": 8, "dtype": "fp16", "tflops_median": 1}]})",
            R"(gemm[0].dtype: must be one of "bf16", "fp8", got "fp16")" },
        { head + R"(, "gemm": [{"m": 1.5, "n": 8, "k": 8, "dtype": "bf16", "tflops_median": 1}]})",
            "gemm[0].m: must be an integer >= 1, got 1.5" },
        { head + R"(, "gemm": [{"n": 8, "k": 8, "dtype": "bf16", "tflops_median": 1}]})", "gemm[0].m: is missing" },
        { head + R"(, "gemm": [{"m": 8, "n": 8, "k": 8, "dtype": "bf16"}]})", "gemm[0].tflops_median: is missing" },
        { head + R"(, "gemm": [{"m": 8, "n": 8, "k": 8, "dtype": "bf16", "tflops_median": 1, "tflops": 1}]})",
            "gemm[0].tflops: unknown key" },
        { head + R"(, "gemm": [{"m": 8, "n": 8, "k": 8, "dtype": "bf16", "tflops_median": 1, "tflops_p10": 2,
             "tflops_p90": 3}]})",
            "gemm[0].tflops_p10: must be <= tflops_median (1), got 2" },
        { head + R"(, "gemm": [{"m": 8, "n": 8, "k": 8, "dtype": "bf16", "tflops_median": 1, "tflops_p10": 0.5}]})",
            "gemm[0].tflops_p90: is missing (give both percentiles or neither)" },
        { head + R"(, "gemm": [{"m": 8, "n": 8, "k": 8, "dtype": "bf16", "tflops_median": 1,
             "max_error_to_bound": 1.5}]})",
            "gemm[0].max_error_to_bound: is 1.5 > 1: this GEMM failed verification" },
        { head + R"(, "hbm": {"stream_gb_per_s_median": "fast"}})",
            "hbm.stream_gb_per_s_median: must be a positive number, got a string" },
        { head + R"(, "hbm": {"stream_gb_per_s_p10": 1, "stream_gb_per_s_p90": 2}})",
            "hbm.stream_gb_per_s_median: is missing (percentiles without a median)" },
        { head + R"(, "copies": {"peer": [{"src": 0, "dst": 0, "gb_per_s_median": 1}]}})",
            "copies.peer[0].dst: must differ from src (0)" },
        { head + R"(, "attention": {"batch": 1, "heads": 8, "seq_len": 8192, "tflops_median": 1}})",
            "attention.head_dim: is missing" },
        { head + R"(, "collectives": [{"kind": "broadcast", "ranks": 8, "bytes": 1, "bus_gb_per_s_median": 1}]})",
            R"(collectives[0].kind: must be one of "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "p2p", got "broadcast")" },
        { head + R"(, "collectives": [{"kind": "all_reduce", "ranks": 1, "bytes": 1, "bus_gb_per_s_median": 1}]})",
            "collectives[0].ranks: must be an integer >= 2, got 1" },
        { head + R"(, "collectives": [{"kind": "all_reduce", "ranks": 8, "bytes": 1}]})",
            "collectives[0].bus_gb_per_s_median: is missing" },
        { head + R"(, "method": {"warmup": -1, "repeats": 5}})", "method.warmup: must be an integer >= 0, got -1" },
        { head + R"(, "failures": [{"what": "x"}]})", "failures[0].reason: is missing" },
    };
    for (const Case& c : cases) {
        std::string error;
        EXPECT_FALSE(readCalibration(c.json, error)) << c.error;
        if (c.error.rfind("not valid JSON", 0) == 0)
            EXPECT_EQ(error.rfind(c.error, 0), 0u) << error;
        else
            EXPECT_EQ(error, c.error);
    }
}

TEST(Calibration, SpreadOnlyPointsKeepTheirSpread)
{
    Calibration c;
    c.gpuName = "G";
    c.date = "d";
    Calibration::GemmPoint p = gemmPoint(1024, 1024, 1024, DType::Bf16, 500);
    p.spread = 0.04;
    c.gemm.push_back(p);
    std::string error;
    const auto read = readCalibration(writeCalibration(c), error);
    ASSERT_TRUE(read) << error;
    EXPECT_NEAR(read->gemm[0].spread, 0.04, 1e-9);
    EXPECT_DOUBLE_EQ(read->gemm[0].flopsPerSecond, 500 * kT);
}

TEST(Calibration, LoadFileReportsThePath)
{
    std::string error;
    EXPECT_FALSE(loadCalibrationFile("/nonexistent/parallax-calibration.json", error));
    EXPECT_EQ(error, "cannot open \"/nonexistent/parallax-calibration.json\" for reading: No such file or directory");

    const auto path = std::filesystem::temp_directory_path() / "parallax-calibration-test-minimal.json";
    std::ofstream(path) << kMinimal;
    const auto c = loadCalibrationFile(path.string(), error);
    ASSERT_TRUE(c) << error;
    EXPECT_EQ(c->path, path.string());
    std::filesystem::remove(path);
}
