// SPDX-License-Identifier: Apache-2.0
// GB200 and B200 GEMM rates come from the published sustained matmul measurements (ml-engineering
// compute/accelerator/README.md, MSMF table, benchmark version 4, every GPU of the node busy; the slowest
// GPU of the node, which a synchronous step waits on: B200 1421 / 2250, H200 745 / 989 TFLOPS; GB200
// carried over from B200 with the MAMF burst ratio 1822 / 1737), transferred with the H100 preset's
// training-shape share of the Hopper MSMF; not from recipe step times.
#include "core/Engine.h"
#include "core/costs/CostModel.h"
#include "core/costs/MoeCosts.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"

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

// The MoE dispatch and combine inside an NVLink domain reach the share of NVLink measured on that GPU:
// DeepEP V2 on SM100, EP 8 at 24 SMs, dispatch 643 GB/s and combine 675 GB/s of 900 (DeepEP README). The
// preset states it, and the engine's EP time follows it: halving it (bandwidth-bound, EP inside one domain)
// doubles the all-to-all.
TEST(BlackwellRates, AllToAllShareOfNvlinkFromTheDeepEpMeasurement)
{
    const PresetLibrary& lib = PresetLibrary::instance();
    for (const char* id : { "gb200", "b200" })
        EXPECT_NEAR(lib.gpu(id)->allToAllNvlinkFraction, (643.0 + 675.0) / 2.0 / 900.0, 0.005) << id;
    EXPECT_DOUBLE_EQ(allToAllEfficiency(*lib.gpu("h100-sxm")).nvlinkFraction, AllToAllEfficiency {}.nvlinkFraction);

    const auto* info = lib.scenario("guide-moe1t-64xh100");
    ASSERT_TRUE(info);
    LoadError error;
    auto s = parseScenario(info->json, error);
    ASSERT_TRUE(s) << error.text();
    s->parallel.ep = 8; // one expert group per NVLink domain of 8
    s->training.moeTokenDispatcher = MoeDispatcher::AllToAll;
    const auto epSeconds = [&](double fraction) {
        Scenario t = *s;
        for (NvlinkDomain& d : t.topology.domains)
            d.gpu.allToAllNvlinkFraction = fraction;
        const Report r = evaluate(t);
        EXPECT_TRUE(r.valid) << (r.errors.empty() ? std::string() : r.errors.front().text);
        return r.comm.epSeconds;
    };
    const double measured = epSeconds(0.73);
    ASSERT_GT(measured, 0);
    EXPECT_NEAR(epSeconds(0.365) / measured, 2.0, 0.05);
}
