// SPDX-License-Identifier: Apache-2.0
#include "core/probe/GemmCheck.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace parallax::probe;
using parallax::core::DType;

TEST(GemmCheck, Bf16Decoding)
{
    EXPECT_EQ(bf16ToDouble(0x3F80), 1.0);
    EXPECT_EQ(bf16ToDouble(0xC000), -2.0);
    EXPECT_EQ(bf16ToDouble(0x3F82), 1.015625);
    EXPECT_EQ(floatToBf16(1.0f), 0x3F80);
    EXPECT_EQ(floatToBf16(-2.0f), 0xC000);
    // Ties round to even: 1 + 2^-8 lies halfway between 1 and 1 + 2^-7.
    EXPECT_EQ(floatToBf16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
    EXPECT_EQ(floatToBf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);
    EXPECT_TRUE(std::isnan(bf16ToDouble(floatToBf16(std::nanf("")))));
}

TEST(GemmCheck, Fp8E4m3Decoding)
{
    EXPECT_EQ(fp8E4m3ToDouble(0x38), 1.0); // exponent 7 = bias
    EXPECT_EQ(fp8E4m3ToDouble(0xB8), -1.0);
    EXPECT_EQ(fp8E4m3ToDouble(0x7E), 448.0); // largest finite
    EXPECT_EQ(fp8E4m3ToDouble(0x01), std::ldexp(1.0, -9)); // smallest subnormal
    EXPECT_EQ(fp8E4m3ToDouble(0x08), std::ldexp(1.0, -6)); // smallest normal
    EXPECT_EQ(fp8E4m3ToDouble(0x00), 0.0);
    EXPECT_TRUE(std::isnan(fp8E4m3ToDouble(0x7F)));
    EXPECT_TRUE(std::isnan(fp8E4m3ToDouble(0xFF)));
}

namespace {

// Random operands in the probe's range (magnitude in [1/16, 1], random sign), quantised to bf16.
std::vector<double> randomBf16(std::mt19937_64& rng, std::size_t k)
{
    std::uniform_real_distribution<float> magnitude(0.0625f, 1.0f);
    std::vector<double> v(k);
    for (double& x : v)
        x = bf16ToDouble(floatToBf16((rng() & 1 ? -1.0f : 1.0f) * magnitude(rng)));
    return v;
}

// What the GPU returns for a correct GEMM: fp32 accumulation, then rounding to bf16.
double gpuLikeDot(const std::vector<double>& a, const std::vector<double>& b)
{
    float sum = 0;
    for (std::size_t l = 0; l < a.size(); ++l)
        sum += static_cast<float>(a[l]) * static_cast<float>(b[l]);
    return bf16ToDouble(floatToBf16(sum));
}

} // namespace

TEST(GemmCheck, CorrectResultsPassAndWrongOnesFail)
{
    std::mt19937_64 rng(42);
    const GemmTolerance tolerance = gemmTolerance(DType::Bf16);
    int wrongCaught = 0;
    constexpr int kTrials = 200;
    for (int trial = 0; trial < kTrials; ++trial) {
        const std::size_t k = trial % 2 ? 16384 : 512;
        const auto a = randomBf16(rng, k), b = randomBf16(rng, k), other = randomBf16(rng, k);
        const ElementCheck good = checkElement(a, b, gpuLikeDot(a, b), tolerance);
        EXPECT_TRUE(good.passed()) << "k " << k << " error " << good.error << " bound " << good.bound;
        EXPECT_LT(good.ratio(), 0.6);
        // The result of the wrong operands (a transposed or misaligned layout), or a stale zero.
        wrongCaught += !checkElement(a, b, gpuLikeDot(a, other), tolerance).passed();
        wrongCaught += !checkElement(a, b, 0.0, tolerance).passed();
    }
    // A wrong element passes only when it lands within the bound by chance (~1% of elements);
    // the probe checks dozens per GEMM, so a broken GEMM never passes as a whole.
    EXPECT_GT(wrongCaught, 2 * kTrials * 95 / 100);
}

TEST(GemmCheck, Fp8ToleranceIsLooserThanBf16)
{
    EXPECT_GT(gemmTolerance(DType::Fp8).accumulation, gemmTolerance(DType::Bf16).accumulation);
    EXPECT_DOUBLE_EQ(gemmTolerance(DType::Bf16).outputRelative, std::ldexp(1.0, -7));
}

TEST(GemmCheck, NonFiniteResultsFail)
{
    const std::vector<double> a { 1, 2 }, b { 3, 4 };
    EXPECT_TRUE(checkElement(a, b, 11, gemmTolerance(DType::Bf16)).passed());
    EXPECT_FALSE(checkElement(a, b, std::nan(""), gemmTolerance(DType::Bf16)).passed());
    EXPECT_FALSE(checkElement(a, b, INFINITY, gemmTolerance(DType::Bf16)).passed());

    VerifyResult v;
    v.add({ 0, 1, 2 }, checkElement(a, b, 11, gemmTolerance(DType::Bf16)), 11);
    EXPECT_TRUE(v.passed);
    v.add({ 0, 3, 4 }, checkElement(a, b, std::nan(""), gemmTolerance(DType::Bf16)), std::nan(""));
    EXPECT_FALSE(v.passed);
    EXPECT_EQ(v.samples, 2);
    EXPECT_TRUE(std::isinf(v.worstRatio));
    EXPECT_EQ(v.firstFailure.rfind("D[0,3,4] = nan", 0), 0u) << v.firstFailure;
}

TEST(GemmCheck, SamplePositionsCoverCornersAndStayInBounds)
{
    const GemmShape shape { "x", 100, 30, 7, 5 };
    const auto positions = samplePositions(shape, 40, 9);
    ASSERT_EQ(positions.size(), 40u);
    EXPECT_EQ(positions[0].row, 0);
    EXPECT_EQ(positions[0].column, 0);
    EXPECT_EQ(positions[1].row, 99);
    EXPECT_EQ(positions[1].column, 29);
    EXPECT_EQ(positions[4].batch, 4); // the last batch entry's corners come next
    for (const SamplePosition& p : positions) {
        EXPECT_GE(p.batch, 0);
        EXPECT_LT(p.batch, 5);
        EXPECT_GE(p.row, 0);
        EXPECT_LT(p.row, 100);
        EXPECT_GE(p.column, 0);
        EXPECT_LT(p.column, 30);
    }
    const auto again = samplePositions(shape, 40, 9);
    EXPECT_EQ(again.back().row, positions.back().row); // deterministic in the seed
    EXPECT_EQ(samplePositions({ "x", 8, 8, 8 }, 2, 1).size(), 2u);
    EXPECT_TRUE(samplePositions({ "x", 8, 8, 8 }, 0, 1).empty());
}
