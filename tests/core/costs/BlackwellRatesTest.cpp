// SPDX-License-Identifier: Apache-2.0
// GB200 and B200 GEMM rates come from the published sustained matmul measurements (ml-engineering
// compute/accelerator/README.md, MSMF table, benchmark version 4, every GPU of the node busy; the slowest
// GPU of the node, which a synchronous step waits on: B200 1421 / 2250, H200 745 / 989 TFLOPS; GB200
// carried over from B200 with the MAMF burst ratio 1822 / 1737), transferred with the H100 preset's
// training-shape share of the Hopper MSMF; not from recipe step times.
#include "core/costs/CostModel.h"
#include "core/io/PresetLibrary.h"

#include <gtest/gtest.h>

using namespace parallax::core;

TEST(BlackwellRates, GemmFractionFromTheSustainedMatmulMicrobenchmark)
{
    const PresetLibrary& lib = PresetLibrary::instance();
    const double h100 = lib.gpu("h100-sxm")->gemmFractionOfPeak;
    const double hopperMsmf = 745.0 / 989.0;
    const double b200Msmf = 1421.0;
    const std::pair<const char*, double> cases[]
        = { { "gb200", b200Msmf * 1822.0 / 1737.0 / 2500.0 }, { "b200", b200Msmf / 2250.0 } };
    for (const auto& [id, msmf] : cases) {
        const GpuSpec gpu = *lib.gpu(id);
        EXPECT_NEAR(gpu.gemmFractionOfPeak, h100 * msmf / hopperMsmf, 0.005) << id;
        // Large, full-wave GEMMs run at that share of the dense peak.
        const ComputeRates rates(gpu, DType::Bf16, nullptr, EfficiencyDefaults {});
        const double m = 148.0 * 128 * 2, n = 256.0 * 8, k = 1e6;
        const double achieved = 2.0 * m * n * k / rates.gemmSeconds(m, n, k);
        EXPECT_NEAR(achieved / gpu.bf16FlopsPerSecond, gpu.gemmFractionOfPeak, 0.01) << id;
    }
}
