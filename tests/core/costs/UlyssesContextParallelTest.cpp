// SPDX-License-Identifier: Apache-2.0
// Context parallelism by all-to-all (DeepSpeed-Ulysses, arXiv:2309.14509 sec. 3.1; Megatron-Core --cp-comm-type a2a):
// an all-to-all trades each rank's sequence shard for a head shard before the attention and another trades it back
// after, so the rank attends over the whole sequence with heads / cp heads, and nothing hides the exchange. Each test
// fails when the engine prices every cp_comm_type as the p2p ring again.
#include "core/Engine.h"
#include "core/Validation.h"
#include "core/costs/CostModel.h"
#include "core/costs/MoeCosts.h"
#include "core/io/ScenarioIo.h"
#include "core/launch/FrameworkGaps.h"
#include "core/launch/LaunchArgsImporter.h"
#include "core/launch/MegatronArgsWriter.h"
#include "core/launch/NemoRecipeWriter.h"
#include "core/launch/TorchtitanTomlWriter.h"
#include "core/model/LayerShape.h"
#include "core/report/ReportJson.h"
#include "core/search/SearchSpace.h"
#include "tests/core/TestScenarios.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

using namespace parallax::core;
using parallax::test::batch;
using parallax::test::degrees;
using parallax::test::makeScenario;

namespace {

// Llama 3 8B (32 query heads, 8 key/value heads of 128) at 32K tokens, TP1 CP4 DP2 on one node of 8 H100.
Scenario llamaCp4(CpCommType type, Recompute recompute = Recompute::None)
{
    Scenario s = makeScenario("llama3-8b", "h100-sxm", 1, 8, degrees(1, 1, 2, 4), batch(1, 16, 32768, recompute));
    s.parallel.sp = false;
    s.parallel.cpCommType = type;
    return s;
}

bool hasMessage(const std::vector<Message>& list, const std::string& field, const std::string& text)
{
    return std::any_of(list.begin(), list.end(),
        [&](const Message& m) { return m.field == field && m.text.find(text) != std::string::npos; });
}

} // namespace

TEST(UlyssesContextParallel, AllToAllsMoveTheHeadsExposedAndTheAttentionSpansTheSequence)
{
    const ComputeRates rates(*PresetLibrary::instance().gpu("h100-sxm"), DType::Bf16, nullptr, EfficiencyDefaults {});
    ModelSpec m = *PresetLibrary::instance().model("llama3-8b");
    ActivationContext c;
    c.seqLen = 32768;
    c.cp = 4;
    c.cpCommType = CpCommType::A2a;
    LayerCommGroups groups;
    groups.cp.size = groups.cp.inner = 4;
    groups.cp.intra = { 450e9, 2e-6 };
    const LayerShape shape = layerShape(m, 0);

    // Q (32 heads), K and V (8 heads each) of the 8192 local tokens go out, the output (32 heads) comes back,
    // 16-bit, each all-to-all sending 3/4 of its buffer at the achieved all-to-all bandwidth with 3 latencies.
    const double fraction
        = rates.allToAllNvlinkFraction() > 0 ? rates.allToAllNvlinkFraction() : AllToAllEfficiency {}.nvlinkFraction;
    auto allToAll = [&](double bytes) { return 0.75 * bytes / (450e9 * fraction) + 3 * 2e-6; };
    const double qkv = 2.0 * 8192 * (32 * 128 + 8 * 256);
    const double out = 2.0 * 8192 * 32 * 128;
    const LayerTimes a2a = layerTimes(m, shape, c, rates, groups, EfficiencyDefaults {});
    EXPECT_NEAR(a2a.cpForward, allToAll(qkv) + allToAll(out), 1e-15);
    EXPECT_DOUBLE_EQ(a2a.cpBackward, a2a.cpForward); // dO in, dQ dK dV out: the same bytes
    // The ring hides behind 32K-token attention; the all-to-alls do not.
    c.cpCommType = CpCommType::P2p;
    const LayerTimes ring = layerTimes(m, shape, c, rates, groups, EfficiencyDefaults {});
    EXPECT_LT(ring.cpForward, 0.5 * a2a.cpForward);

    // After the exchange one kernel call runs the whole sequence's keys (with a quarter of the heads): the same
    // pairs as the ring's chunks, at the rate of a 32K-key kernel.
    const double flops = layerAttentionScoreFlops(shape, c);
    c.cpCommType = CpCommType::A2a;
    EXPECT_DOUBLE_EQ(fusedAttentionByWindow(m, shape, c, rates).full, rates.causalAttentionSeconds(flops, 32768));
    c.cpCommType = CpCommType::P2p;
    EXPECT_DOUBLE_EQ(fusedAttentionByWindow(m, shape, c, rates).full, rates.causalAttentionSeconds(flops, 8192));

    // Recomputing the attention core (full recompute here) runs the forward's all-to-alls again in the backward.
    c.cpCommType = CpCommType::A2a;
    c.recompute = Recompute::Full;
    EXPECT_DOUBLE_EQ(layerTimes(m, shape, c, rates, groups, EfficiencyDefaults {}).cpBackward, 2 * a2a.cpForward);
    c.recompute = Recompute::None;

    // Windows need no gather under Ulysses: each rank holds the whole sequence of its heads and the kernel applies
    // the window itself, so a windowed model pays the same all-to-alls.
    m.slidingWindow = 4096;
    EXPECT_DOUBLE_EQ(layerTimes(m, shape, c, rates, groups, EfficiencyDefaults {}).cpForward, a2a.cpForward);

    // The all_gather type gathers K and V on every layer, exposed, also without a window.
    m.slidingWindow = 0;
    c.cpCommType = CpCommType::AllGather;
    const double kv = 2.0 * 8192 * 8 * 256;
    const LayerTimes gathered = layerTimes(m, shape, c, rates, groups, EfficiencyDefaults {});
    EXPECT_DOUBLE_EQ(gathered.cpForward, 3 * (kv / 450e9 + 2e-6));
    EXPECT_DOUBLE_EQ(gathered.cpBackward, 2 * gathered.cpForward);
    // Its kernels attend each of a rank's two query chunks to the gathered keys up to the chunk's end (Llama 3's
    // method, arXiv:2407.21783 sec. 3.3.2): s/2 keys visited on average, the rate of a 32K-key kernel as Ulysses'.
    EXPECT_DOUBLE_EQ(fusedAttentionByWindow(m, shape, c, rates).full, rates.causalAttentionSeconds(flops, 32768));
    EXPECT_LT(gathered.forwardCompute, ring.forwardCompute);
    EXPECT_DOUBLE_EQ(attentionKernelKeys(32768, CpCommType::AllGather, 4, 0), 32768);
    EXPECT_DOUBLE_EQ(attentionKernelKeys(32768, CpCommType::P2p, 4, 0), 8192);
    EXPECT_DOUBLE_EQ(attentionKernelKeys(32768, CpCommType::A2aP2p, 4, 2), 16384);
    EXPECT_DOUBLE_EQ(attentionKernelKeys(32768, CpCommType::P2p, 1, 0), 32768);

    // In the whole step: the exposed all-to-alls cost time the ring hides.
    const Report p2pStep = evaluate(llamaCp4(CpCommType::P2p));
    const Report a2aStep = evaluate(llamaCp4(CpCommType::A2a));
    const Report gatherStep = evaluate(llamaCp4(CpCommType::AllGather));
    ASSERT_TRUE(p2pStep.valid && a2aStep.valid && gatherStep.valid);
    EXPECT_GT(a2aStep.comm.cpSeconds, 2 * p2pStep.comm.cpSeconds);
    EXPECT_GT(gatherStep.comm.cpSeconds, 2 * p2pStep.comm.cpSeconds);
    std::printf("llama3-8b 32K, TP1 CP4 DP2 on 8 H100: step %.3f s (CP %.1f ms) with the ring, %.3f s (CP %.1f ms) "
                "with a2a, %.3f s (CP %.1f ms) with all_gather\n",
        p2pStep.stepTimeSeconds, 1e3 * p2pStep.comm.cpSeconds, a2aStep.stepTimeSeconds, 1e3 * a2aStep.comm.cpSeconds,
        gatherStep.stepTimeSeconds, 1e3 * gatherStep.comm.cpSeconds);
}

TEST(UlyssesContextParallel, HeadsOfATensorParallelRankMustDivideOverCp)
{
    // TP2 leaves 16 query and 4 key/value heads per rank: cp 4 divides both, cp 8 not the key/value heads.
    Scenario s = makeScenario("llama3-8b", "h100-sxm", 2, 8, degrees(2, 1, 2, 4), batch(1, 16, 32768));
    s.parallel.cpCommType = CpCommType::A2a;
    EXPECT_TRUE(ulyssesSplitsHeads(s.model, 2, 4));
    EXPECT_FALSE(ulyssesSplitsHeads(s.model, 2, 8));
    const ValidationResult fine = validateScenario(s);
    EXPECT_FALSE(hasMessage(fine.errors, "parallel.cp_comm_type", "")) << fine.errors.front().text;
    s.parallel.cp = 8;
    s.parallel.dp = 1;
    const ValidationResult bad = validateScenario(s);
    EXPECT_TRUE(hasMessage(bad.errors, "parallel.cp_comm_type", "kv_heads/tp=4"));
    // The ring has no such rule.
    s.parallel.cpCommType = CpCommType::P2p;
    EXPECT_FALSE(hasMessage(validateScenario(s).errors, "parallel.cp_comm_type", ""));
    // At cp 1 the type does nothing, and the evaluation says so.
    Scenario one = makeScenario("llama3-8b", "h100-sxm", 1, 8, degrees(1, 1, 8), batch(1, 16, 8192));
    one.parallel.cpCommType = CpCommType::A2a;
    EXPECT_TRUE(hasMessage(validateScenario(one).notes, "parallel.cp_comm_type", "no effect with cp=1"));

    // A search that keeps the scenario's type keeps to the cp degrees Ulysses can split the heads over
    // (CpCommSearch: with every type it tries the others there).
    const Scenario base = llamaCp4(CpCommType::A2a);
    SearchLimits own;
    own.includeCpCommTypes = false;
    const SearchSpace space(base, own);
    bool sawCp = false;
    for (const Layout& l : space.layouts()) {
        EXPECT_TRUE(ulyssesSplitsHeads(base.model, l.tp, l.cp)) << "tp " << l.tp << " cp " << l.cp;
        sawCp = sawCp || l.cp > 1;
    }
    EXPECT_TRUE(sawCp);
}

TEST(UlyssesContextParallel, ScenarioAndLaunchFilesCarryTheType)
{
    // The scenario file: parallel.cp_comm_type, written only when not the ring, a wrong value named.
    const Scenario a2a = llamaCp4(CpCommType::A2a);
    const std::string text = serializeScenario(a2a);
    EXPECT_NE(text.find("\"cp_comm_type\": \"a2a\""), std::string::npos) << text;
    LoadError error;
    const auto back = parseScenario(text, error);
    ASSERT_TRUE(back) << error.text();
    EXPECT_EQ(back->parallel.cpCommType, CpCommType::A2a);
    EXPECT_EQ(serializeScenario(llamaCp4(CpCommType::P2p)).find("cp_comm_type"), std::string::npos);
    // evaluate --json and recommend --json name it in `config` where it is not the ring.
    EXPECT_EQ(parallelConfigToJson(a2a.parallel, a2a.training).value("cp_comm_type", ""), "a2a");
    const Scenario ring = llamaCp4(CpCommType::P2p);
    EXPECT_FALSE(parallelConfigToJson(ring.parallel, ring.training).contains("cp_comm_type"));
    std::string wrong = text;
    wrong.replace(wrong.find("\"a2a\""), 5, "\"ulysses\"");
    EXPECT_FALSE(parseScenario(wrong, error));
    EXPECT_NE(error.text().find("cp_comm_type"), std::string::npos) << error.text();

    // Megatron-LM and NeMo say it, and the importer reads it back without a note.
    const std::string args = MegatronArgsWriter::write(a2a);
    EXPECT_NE(args.find("--cp-comm-type a2a\n"), std::string::npos) << args;
    const std::string nemo = NemoRecipeWriter::write(a2a);
    EXPECT_NE(nemo.find("cp_comm_type = \"a2a\"\n"), std::string::npos) << nemo;
    for (const std::string& file : { args, nemo }) {
        const auto imported = LaunchArgsImporter::import(file, {});
        ASSERT_TRUE(imported.scenario) << imported.error;
        EXPECT_EQ(imported.scenario->parallel.cpCommType, CpCommType::A2a);
        EXPECT_TRUE(imported.notes.empty()) << imported.notes.front();
    }
    // all_gather on a model without windows is the all_gather type; a2a+p2p is not modelled and is named.
    std::string gather = args;
    gather.replace(gather.find("--cp-comm-type a2a"), 18, "--cp-comm-type all_gather");
    const auto fromGather = LaunchArgsImporter::import(gather, {});
    ASSERT_TRUE(fromGather.scenario) << fromGather.error;
    EXPECT_EQ(fromGather.scenario->parallel.cpCommType, CpCommType::AllGather);
    // a2a+p2p without its levels is named and priced as the ring.
    std::string hierarchical = args;
    hierarchical.replace(hierarchical.find("--cp-comm-type a2a"), 18, "--cp-comm-type a2a+p2p");
    const auto fromHierarchical = LaunchArgsImporter::import(hierarchical, {});
    ASSERT_TRUE(fromHierarchical.scenario) << fromHierarchical.error;
    EXPECT_EQ(fromHierarchical.scenario->parallel.cpCommType, CpCommType::P2p);
    ASSERT_EQ(fromHierarchical.notes.size(), 1u);
    EXPECT_NE(fromHierarchical.notes[0].find("needs --hierarchical-context-parallel-sizes"), std::string::npos)
        << fromHierarchical.notes[0];
    // Levels whose product would overflow are refused the same way (each is checked against cp first).
    const auto huge = LaunchArgsImporter::import(
        hierarchical + "    --hierarchical-context-parallel-sizes 4294967296 4294967296\n", {});
    ASSERT_TRUE(huge.scenario) << huge.error;
    EXPECT_EQ(huge.scenario->parallel.cpCommType, CpCommType::P2p);
    ASSERT_EQ(huge.notes.size(), 1u);
    EXPECT_NE(huge.notes[0].find("(got \"4294967296 4294967296\")"), std::string::npos) << huge.notes[0];

    // torchtitan's context parallelism is the ring only: its launch says so and the log check predicts the ring.
    const std::string toml = TorchtitanTomlWriter::write(a2a);
    EXPECT_NE(toml.find("no cp_comm_type a2a: the launch runs the ring"), std::string::npos) << toml;
    std::vector<std::string> changes;
    const Scenario run = runAs(a2a, LaunchFramework::Torchtitan, changes);
    EXPECT_EQ(run.parallel.cpCommType, CpCommType::P2p);
    EXPECT_NE(std::find(changes.begin(), changes.end(), "the context-parallel ring instead of a2a"), changes.end());
}

// Hierarchical context parallelism (Megatron-Core --cp-comm-type a2a+p2p --hierarchical-context-parallel-sizes a p,
// Transformer Engine >= 1.12): Ulysses within groups of a adjacent cp ranks, then the ring over the p groups.
TEST(UlyssesContextParallel, HierarchicalLevelsRunTheAllToAllThenTheRing)
{
    const ComputeRates rates(*PresetLibrary::instance().gpu("h100-sxm"), DType::Bf16, nullptr, EfficiencyDefaults {});
    const ModelSpec m = *PresetLibrary::instance().model("llama3-8b");
    ActivationContext c;
    c.seqLen = 32768;
    c.cp = 8;
    c.cpCommType = CpCommType::A2aP2p;
    c.cpA2aSize = 2;
    // cp 8 over two NVLink domains of 4: the all-to-all pairs stay on NVLink, the ring of 4 crosses InfiniBand.
    CommGroup group;
    group.size = 8;
    group.inner = 4;
    group.outer = 2;
    group.intra = { 450e9, 2e-6 };
    group.inter = { 50e9, 5e-6 };
    const LayerShape shape = layerShape(m, 0);
    const WindowedAttention attention = fusedAttentionByWindow(m, shape, c, rates);
    // The kernel runs a quarter of the sequence (8192 keys) with half the heads.
    EXPECT_DOUBLE_EQ(attention.full, rates.causalAttentionSeconds(layerAttentionScoreFlops(shape, c), 8192));
    const CpTimes t = contextParallelTimes(m, shape, c, rates, group, attention);

    const double fraction
        = rates.allToAllNvlinkFraction() > 0 ? rates.allToAllNvlinkFraction() : AllToAllEfficiency {}.nvlinkFraction;
    auto pairExchange = [&](double bytes) { return 0.5 * bytes / (450e9 * fraction) + 2e-6; };
    const double tokens = 32768 / 8;
    const double a2a = pairExchange(2.0 * tokens * (32 * 128 + 8 * 256)) + pairExchange(2.0 * tokens * 32 * 128);
    const double ring = 3 * (2.0 * tokens * 8 * 256 / 50e9 + 5e-6); // 3 steps of the same K/V bytes over IB
    const double window = attention.full * 3 / 4;
    EXPECT_NEAR(t.forward, a2a + exposedAfterOverlap(ring, window), 1e-12);
    EXPECT_NEAR(t.backward, a2a + exposedAfterOverlap(2 * ring, 2.5 * window), 1e-12);
    // A flat ring over the same 8 ranks passes K/V 7 times over InfiniBand with a chunk of 4096 keys.
    c.cpCommType = CpCommType::P2p;
    const CpTimes flat = contextParallelTimes(m, shape, c, rates, group, fusedAttentionByWindow(m, shape, c, rates));
    EXPECT_GT(flat.forward, 0);
    EXPECT_NE(flat.forward, t.forward);

    // The scenario: levels named and checked, carried by the Megatron-LM and NeMo files and read back.
    Scenario s = makeScenario("llama3-8b", "h100-sxm", 2, 8, degrees(1, 1, 2, 8), batch(1, 16, 32768));
    s.parallel.sp = false;
    s.parallel.cpCommType = CpCommType::A2aP2p;
    const ValidationResult missing = validateScenario(s);
    EXPECT_TRUE(hasMessage(missing.errors, "parallel.cp_a2a_size", "use one of 2, 4"));
    s.parallel.cpA2aSize = 2;
    EXPECT_TRUE(validateScenario(s).errors.empty()) << validateScenario(s).errors.front().text;
    const Report report = evaluate(s);
    ASSERT_TRUE(report.valid);
    const std::string args = MegatronArgsWriter::write(s);
    EXPECT_NE(args.find("--cp-comm-type a2a+p2p\n"), std::string::npos) << args;
    EXPECT_NE(args.find("--hierarchical-context-parallel-sizes 2 4\n"), std::string::npos) << args;
    const std::string nemo = NemoRecipeWriter::write(s);
    EXPECT_NE(nemo.find("hierarchical_context_parallel_sizes = [2, 4]\n"), std::string::npos) << nemo;
    for (const std::string& file : { args, nemo }) {
        const auto imported = LaunchArgsImporter::import(file, {});
        ASSERT_TRUE(imported.scenario) << imported.error;
        EXPECT_EQ(imported.scenario->parallel.cpCommType, CpCommType::A2aP2p);
        EXPECT_EQ(imported.scenario->parallel.cpA2aSize, 2);
        EXPECT_TRUE(imported.notes.empty()) << imported.notes.front();
    }
    LoadError error;
    const auto back = parseScenario(serializeScenario(s), error);
    ASSERT_TRUE(back) << error.text();
    EXPECT_EQ(back->parallel.cpA2aSize, 2);
    EXPECT_EQ(parallelConfigToJson(s.parallel, s.training).value("cp_a2a_size", 0), 2);
    // A level that does not split the heads (TP8 leaves one key/value head) and windows (its ring has none) are
    // refused.
    Scenario windowed = s;
    windowed.model.slidingWindow = 4096;
    EXPECT_TRUE(hasMessage(validateScenario(windowed).errors, "parallel.cp_comm_type", "ring has no windows"));
    Scenario wide = makeScenario("llama3-8b", "h100-sxm", 4, 8, degrees(8, 1, 1, 4), batch(1, 16, 32768));
    wide.parallel.cpCommType = CpCommType::A2aP2p;
    wide.parallel.cpA2aSize = 2;
    EXPECT_TRUE(hasMessage(validateScenario(wide).errors, "parallel.cp_comm_type", "kv_heads/tp=1"));
}
