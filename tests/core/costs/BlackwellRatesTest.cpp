// SPDX-License-Identifier: Apache-2.0
// GB200 and B200 GEMM rates come from the published Maximum Achievable Matmul FLOPS measurements
// (ml-engineering, MAMF table: H100 SXM 794.5 / 989, B200 1745 / 2250, GB200 1822 / 2500 TFLOPS),
// transferred with the H100 preset's training-shape derating; not from recipe step times.
#include "core/costs/CostModel.h"
#include "core/io/PresetLibrary.h"

#include <gtest/gtest.h>

using namespace parallax::core;

TEST(BlackwellRates, GemmFractionFromTheMamfMicrobenchmark)
{
    const PresetLibrary& lib = PresetLibrary::instance();
    const double h100 = lib.gpu("h100-sxm")->gemmFractionOfPeak;
    const double h100Mamf = 794.5 / 989.0;
    const std::pair<const char*, double> cases[] = { { "gb200", 1822.0 / 2500.0 }, { "b200", 1745.0 / 2250.0 } };
    for (const auto& [id, mamf] : cases) {
        const GpuSpec gpu = *lib.gpu(id);
        EXPECT_NEAR(gpu.gemmFractionOfPeak, h100 * mamf / h100Mamf, 0.005) << id;
        // Large, full-wave GEMMs run at that share of the dense peak.
        const ComputeRates rates(gpu, DType::Bf16, nullptr, EfficiencyDefaults {});
        const double m = 148.0 * 128 * 2, n = 256.0 * 8, k = 1e6;
        const double achieved = 2.0 * m * n * k / rates.gemmSeconds(m, n, k);
        EXPECT_NEAR(achieved / gpu.bf16FlopsPerSecond, gpu.gemmFractionOfPeak, 0.01) << id;
    }
}
