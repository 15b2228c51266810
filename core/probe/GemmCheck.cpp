// SPDX-License-Identifier: Apache-2.0
#include "core/probe/GemmCheck.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace parallax::probe {

double bf16ToDouble(std::uint16_t bits)
{
    // bf16 is the upper half of an IEEE-754 binary32.
    const std::uint32_t word = static_cast<std::uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &word, sizeof f);
    return f;
}

std::uint16_t floatToBf16(float value)
{
    std::uint32_t word;
    std::memcpy(&word, &value, sizeof word);
    if (std::isnan(value))
        return static_cast<std::uint16_t>((word >> 16) | 0x40); // keep it a (quiet) NaN
    const std::uint32_t roundingBias = 0x7FFF + ((word >> 16) & 1); // ties to even
    return static_cast<std::uint16_t>((word + roundingBias) >> 16);
}

double fp8E4m3ToDouble(std::uint8_t bits)
{
    const int sign = bits >> 7;
    const int exponent = (bits >> 3) & 0xF;
    const int mantissa = bits & 0x7;
    if (exponent == 0xF && mantissa == 0x7)
        return std::nan("");
    const double magnitude = exponent == 0 ? std::ldexp(mantissa / 8.0, -6) // subnormal: 2^(1-7)
                                           : std::ldexp(1.0 + mantissa / 8.0, exponent - 7);
    return sign ? -magnitude : magnitude;
}

GemmTolerance gemmTolerance(core::DType inputs)
{
    const double bf16Output = std::ldexp(1.0, -7);
    return inputs == core::DType::Fp8 ? GemmTolerance { bf16Output, 5e-2 } : GemmTolerance { bf16Output, 1e-2 };
}

ElementCheck checkElement(const std::vector<double>& a, const std::vector<double>& b, double gpu, GemmTolerance tol)
{
    ElementCheck c;
    double sumSquares = 0;
    const std::size_t k = std::min(a.size(), b.size());
    for (std::size_t l = 0; l < k; ++l) {
        const double product = a[l] * b[l];
        c.reference += product;
        sumSquares += product * product;
    }
    c.error = std::abs(gpu - c.reference);
    if (!std::isfinite(gpu))
        c.error = std::numeric_limits<double>::infinity();
    c.bound = tol.outputRelative * std::abs(c.reference) + tol.accumulation * std::sqrt(sumSquares);
    return c;
}

std::vector<SamplePosition> samplePositions(const GemmShape& shape, int count, std::uint64_t seed)
{
    std::vector<SamplePosition> positions;
    if (count <= 0 || shape.m <= 0 || shape.n <= 0 || shape.batch <= 0)
        return positions;
    for (long b : { 0L, shape.batch - 1 }) {
        for (SamplePosition p : { SamplePosition { b, 0, 0 }, SamplePosition { b, shape.m - 1, shape.n - 1 },
                 SamplePosition { b, 0, shape.n - 1 }, SamplePosition { b, shape.m - 1, 0 } }) {
            if (static_cast<int>(positions.size()) < count)
                positions.push_back(p);
        }
        if (shape.batch == 1)
            break;
    }
    // splitmix64 (Steele, Lea & Flood, OOPSLA 2014): enough to scatter samples over the matrix.
    std::uint64_t state = seed;
    auto next = [&state]() {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    };
    while (static_cast<int>(positions.size()) < count) {
        const auto b = static_cast<long>(next() % static_cast<std::uint64_t>(shape.batch));
        const auto i = static_cast<long>(next() % static_cast<std::uint64_t>(shape.m));
        const auto j = static_cast<long>(next() % static_cast<std::uint64_t>(shape.n));
        positions.push_back({ b, i, j });
    }
    return positions;
}

void VerifyResult::add(const SamplePosition& at, const ElementCheck& check, double gpu)
{
    ++samples;
    const double ratio = check.ratio();
    if (!(ratio <= worstRatio)) // also takes NaN / inf
        worstRatio = std::isfinite(ratio) ? ratio : std::numeric_limits<double>::infinity();
    if (!check.passed() && passed) {
        passed = false;
        char text[200];
        std::snprintf(text, sizeof text, "D[%ld,%ld,%ld] = %.6g, reference %.6g, error %.3g > bound %.3g", at.batch,
            at.row, at.column, gpu, check.reference, check.error, check.bound);
        firstFailure = text;
    }
}

} // namespace parallax::probe
