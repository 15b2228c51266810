// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/parallel/ParallelConfig.h"
#include "core/probe/ProbePlan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace parallax::probe {

// Host-side verification of a GPU GEMM on sampled output elements. The reference multiplies the
// operands exactly as stored on the GPU (decoded bf16 / fp8 bits) in double precision, so the
// only differences left are the GPU's fp32 accumulation and the rounding of D to bf16.

double bf16ToDouble(std::uint16_t bits);
std::uint16_t floatToBf16(float value); // round to nearest even, as __float2bfloat16_rn
// OCP 8-bit floating point E4M3 (the "e4m3fn" of CUDA's __nv_fp8_e4m3): bias 7, no infinities,
// S.1111.111 is NaN; largest finite 448.
double fp8E4m3ToDouble(std::uint8_t bits);

// Error bound per element: |D - ref| <= outputRelative * |ref| + accumulation * sqrt(sum (a_l b_l)^2).
// - outputRelative: D is bf16, unit roundoff 2^-8 (8 significant bits); 2^-7 leaves a factor 2.
// - accumulation: fp32 summation of k products with random rounding errors grows like
//   u sqrt(k) times the products' root-sum-square (Higham & Mary, SIAM J. Sci. Comput. 2019,
//   "A new approach to probabilistic rounding error analysis"); 1e-2 covers fp32 (u = 2^-24) far
//   beyond any k. Hopper's fp8 tensor cores keep fewer accumulator bits (about 14: DeepSeek-V3,
//   arXiv:2412.19437 sec. 3.3.2), hence 5e-2. A wrong result (bad layout, stale or zero output)
//   is off by about the products' root-sum-square itself, 20x or more above either bound.
struct GemmTolerance {
    double outputRelative = 0;
    double accumulation = 0;
};
GemmTolerance gemmTolerance(core::DType inputs);

struct ElementCheck {
    double reference = 0;
    double error = 0; // |gpu - reference|
    double bound = 0;
    bool passed() const { return error <= bound; } // false for NaN
    double ratio() const { return bound > 0 ? error / bound : error; }
};

// `a` is row i of A and `b` column j of B (k values each, decoded); `gpu` is D[i, j] decoded.
ElementCheck checkElement(const std::vector<double>& a, const std::vector<double>& b, double gpu, GemmTolerance tol);

struct SamplePosition {
    long batch = 0;
    long row = 0; // i < m
    long column = 0; // j < n
};
// The four corners of the first and last batch entries, then pseudo-random positions
// (deterministic in `seed`), `count` in all.
std::vector<SamplePosition> samplePositions(const GemmShape& shape, int count, std::uint64_t seed);

// Verdict over all sampled elements of one GEMM.
struct VerifyResult {
    bool passed = true;
    int samples = 0;
    double worstRatio = 0; // max over samples of error / bound
    std::string firstFailure; // "D[0,17,3]: got 1.25, reference -0.75, bound 0.02"

    void add(const SamplePosition& at, const ElementCheck& check, double gpu);
};

} // namespace parallax::probe
