// SPDX-License-Identifier: Apache-2.0
// Training with windowed attention (Mistral's sliding window, Gemma's local layers, Llama 4's chunks): a fused kernel
// with a window skips the key blocks outside it (FlashAttention-2's window_size, arXiv:2307.08691; Transformer
// Engine's window_size), so a windowed layer pays its own (query, key) pairs, and the FLOP counts span its window.
// Each test fails when the training engine prices full causal attention on every layer again.
#include "core/Engine.h"
#include "core/costs/CostModel.h"
#include "core/costs/DataParallelSync.h"
#include "core/launch/FrameworkGaps.h"
#include "core/launch/LaunchArgsImporter.h"
#include "core/launch/MegatronArgsWriter.h"
#include "core/launch/NemoRecipeWriter.h"
#include "core/launch/TorchtitanTomlWriter.h"
#include "core/model/LayerShape.h"
#include "core/model/ModelMath.h"
#include "tests/core/TestScenarios.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

using namespace parallax::core;
using parallax::test::batch;
using parallax::test::degrees;
using parallax::test::makeScenario;

namespace {

ActivationContext longContext(double seq)
{
    ActivationContext c;
    c.seqLen = seq;
    c.microBatch = 1;
    c.flashAttention = true;
    return c;
}

Scenario llamaAt(int seq, int window, int pattern, bool chunked = false)
{
    Scenario s = makeScenario("llama3-8b", "h100-sxm", 1, 8, degrees(1, 1, 2, 4), batch(1, 16, seq));
    s.model.slidingWindow = window;
    s.model.slidingWindowPattern = pattern;
    s.model.chunkedAttention = chunked;
    s.parallel.sp = false;
    return s;
}

} // namespace

TEST(WindowedAttentionTraining, EachLayerPaysItsOwnPairsAtItsSpansRate)
{
    const ComputeRates rates(*PresetLibrary::instance().gpu("h100-sxm"), DType::Bf16, nullptr, EfficiencyDefaults {});
    const double s = 32768, w = 4096;
    ModelSpec m = *PresetLibrary::instance().model("llama3-8b");
    const ActivationContext c = longContext(s);
    const LayerShape shape = layerShape(m, 0);
    const double full = layerAttentionScoreFlops(shape, c);
    const double fullSeconds = rates.causalAttentionSeconds(full, s);
    EXPECT_DOUBLE_EQ(fusedAttentionSeconds(m, shape, c, rates), fullSeconds);

    // Every layer windowed: s W of the s^2 / 2 pairs, at the rate of a 2W-key causal kernel (W keys per query).
    m.slidingWindow = static_cast<int>(w);
    m.slidingWindowPattern = 0;
    const double windowed = rates.causalAttentionSeconds(full * (s * w) / (s * s / 2), 2 * w);
    EXPECT_DOUBLE_EQ(fusedAttentionSeconds(m, shape, c, rates), windowed);
    EXPECT_LT(windowed, 0.35 * fullSeconds);

    // Gemma-style: every 4th layer full, the rest windowed; the kind's layers averaged (32 layers: 8 full).
    m.slidingWindowPattern = 4;
    EXPECT_NEAR(fusedAttentionSeconds(m, shape, c, rates), (24 * windowed + 8 * fullSeconds) / 32, 1e-12);

    // Llama 4's chunks: each chunk's own triangle, s W / 2, at W keys (W / 2 per query).
    m.chunkedAttention = true;
    const double chunked = rates.causalAttentionSeconds(full * (s * w / 2) / (s * s / 2), w);
    EXPECT_NEAR(fusedAttentionSeconds(m, shape, c, rates), (24 * chunked + 8 * fullSeconds) / 32, 1e-12);

    // A sequence within the window is plain causal attention.
    EXPECT_DOUBLE_EQ(fusedAttentionSeconds(m, shape, longContext(w), rates),
        rates.causalAttentionSeconds(layerAttentionScoreFlops(shape, longContext(w)), w));
}

// Context parallelism: Transformer Engine's p2p ring has no windows, so Megatron-Core runs windowed models with
// --cp-comm-type all_gather (Megatron-LM PR #1160), whose K/V all-gather the attention does not hide.
TEST(WindowedAttentionTraining, ContextParallelGathersTheKeysAndValuesExposed)
{
    const ComputeRates rates(*PresetLibrary::instance().gpu("h100-sxm"), DType::Bf16, nullptr, EfficiencyDefaults {});
    ModelSpec m = *PresetLibrary::instance().model("llama3-8b");
    ActivationContext c = longContext(32768);
    c.cp = 4;
    LayerCommGroups groups;
    groups.cp.size = groups.cp.inner = 4;
    groups.cp.intra = { 450e9, 2e-6 };
    const LayerShape shape = layerShape(m, 0);
    const double kvBytes = 2.0 * (32768 / 4) * m.kvHeads * (2.0 * m.effectiveHeadDim());
    const double comm = 3 * (kvBytes / 450e9 + 2e-6);
    const LayerTimes full = layerTimes(m, shape, c, rates, groups, EfficiencyDefaults {});
    EXPECT_LT(full.cpForward, 0.5 * comm); // the ring hides behind 32K-token attention
    m.slidingWindow = 4096;
    const LayerTimes windowed = layerTimes(m, shape, c, rates, groups, EfficiencyDefaults {});
    EXPECT_DOUBLE_EQ(windowed.cpForward, comm);
    EXPECT_DOUBLE_EQ(windowed.cpBackward, 2 * comm);
    // One layer in four attends fully: Megatron-Core's cp_comm_type is per layer, so that layer keeps the ring
    // behind its own (full) attention and only the windowed three gather exposed.
    m.slidingWindowPattern = 4;
    const LayerTimes mixed = layerTimes(m, shape, c, rates, groups, EfficiencyDefaults {});
    const double ring = fusedAttentionByWindow(m, shape, c, rates).full * 3 / 4;
    EXPECT_DOUBLE_EQ(
        ring, fusedAttentionSeconds(*PresetLibrary::instance().model("llama3-8b"), shape, c, rates) * 3 / 4);
    EXPECT_NEAR(mixed.cpForward, 0.75 * comm + 0.25 * exposedAfterOverlap(comm, ring), 1e-12);
    EXPECT_NEAR(mixed.cpBackward, 0.75 * 2 * comm + 0.25 * exposedAfterOverlap(2 * comm, 2.5 * ring), 1e-12);
    EXPECT_LT(mixed.cpForward, 0.8 * comm);
    // The evaluation says so on parallel.cp.
    const Report r = evaluate(llamaAt(32768, 4096, 0));
    const bool said = std::any_of(r.notes.begin(), r.notes.end(), [](const Message& n) {
        return n.field == "parallel.cp" && n.text.find("--cp-comm-type all_gather") != std::string::npos;
    });
    EXPECT_TRUE(said);
}

TEST(WindowedAttentionTraining, StepAndFlopsCountOnlyTheWindow)
{
    const int s = 32768, w = 4096;
    const Report full = evaluate(llamaAt(s, 0, 0));
    const Report windowed = evaluate(llamaAt(s, w, 0));
    ASSERT_TRUE(full.valid && windowed.valid);
    // Model FLOPs: every layer's scores span 2W keys instead of s (arXiv:2104.04473 sec. 3 counts s).
    const ModelSpec m = *PresetLibrary::instance().model("llama3-8b");
    const double tokens = 16.0 * s;
    const double perLayer = 2.0 * m.heads * (2.0 * m.effectiveHeadDim());
    EXPECT_NEAR(full.modelFlopsPerStep - windowed.modelFlopsPerStep, 3.0 * tokens * m.layers * perLayer * (s - 2.0 * w),
        1e-9 * full.modelFlopsPerStep);
    // At 32K tokens the attention is most of the layer: the windowed step is much shorter.
    EXPECT_LT(windowed.stepTimeSeconds, 0.75 * full.stepTimeSeconds);
    std::printf("llama3-8b, 32K tokens: step %.3f s full, %.3f s with a 4K window\n", full.stepTimeSeconds,
        windowed.stepTimeSeconds);
    // Hardware FLOPs stay work the kernels run: utilisation below the peak at 128K tokens and a 4K window.
    const Report longRun = evaluate(llamaAt(131072, w, 0));
    ASSERT_TRUE(longRun.valid);
    EXPECT_GT(longRun.hfu, 0.2);
    EXPECT_LT(longRun.hfu, 1.0);

    // Within the window nothing changes (up to the rounding of the layers' average).
    const Report shortFull = evaluate(llamaAt(8192, 0, 0));
    const Report shortWindowed = evaluate(llamaAt(8192, 8192, 4, true));
    EXPECT_NEAR(shortFull.stepTimeSeconds, shortWindowed.stepTimeSeconds, 1e-12 * shortFull.stepTimeSeconds);
    EXPECT_EQ(shortFull.modelFlopsPerStep, shortWindowed.modelFlopsPerStep);
}

// The launch files carry the window (Megatron-LM --window-size W,0 --window-attn-skip-freq N, NeMo window_size and
// window_attn_skip_freq), the importer reads them back, and where a framework cannot run the design's windows past
// the sequence the launch says so and the log check predicts what it runs.
TEST(WindowedAttentionTraining, LaunchFilesCarryTheWindowOrSayWhatRunsInstead)
{
    Scenario s = llamaAt(32768, 4096, 4);
    const std::string args = MegatronArgsWriter::write(s);
    EXPECT_NE(args.find("--window-size 4096,0"), std::string::npos) << args;
    EXPECT_NE(args.find("--window-attn-skip-freq 4"), std::string::npos) << args;
    const auto imported = LaunchArgsImporter::import(args, {});
    ASSERT_TRUE(imported.scenario) << imported.error;
    EXPECT_EQ(imported.scenario->model.slidingWindow, 4096);
    EXPECT_EQ(imported.scenario->model.slidingWindowPattern, 4);
    const std::string nemo = NemoRecipeWriter::write(s);
    EXPECT_NE(nemo.find("window_size = (4096, 0)"), std::string::npos) << nemo;
    EXPECT_NE(nemo.find("window_attn_skip_freq = 4"), std::string::npos) << nemo;
    const auto fromNemo = LaunchArgsImporter::import(nemo, {});
    ASSERT_TRUE(fromNemo.scenario) << fromNemo.error;
    EXPECT_EQ(fromNemo.scenario->model.slidingWindow, 4096);
    EXPECT_EQ(fromNemo.scenario->model.slidingWindowPattern, 4);
    // CP 4 with windows: Transformer Engine's p2p ring has none, so the windowed layers say all_gather, one type per
    // layer, and every 4th layer (full attention) keeps the ring; the importer reads the list and says nothing.
    std::string perLayer = "--cp-comm-type", nemoList = "cp_comm_type = [";
    for (int l = 0; l < 32; ++l) {
        perLayer += (l + 1) % 4 != 0 ? " all_gather" : " p2p";
        nemoList += std::string(l > 0 ? ", " : "") + ((l + 1) % 4 != 0 ? "\"all_gather\"" : "\"p2p\"");
    }
    EXPECT_NE(args.find(perLayer + "\n"), std::string::npos) << args;
    EXPECT_NE(nemo.find(nemoList + "]\n"), std::string::npos) << nemo;
    EXPECT_TRUE(imported.notes.empty()) << imported.notes.front();
    EXPECT_TRUE(fromNemo.notes.empty()) << fromNemo.notes.front();
    // Every layer windowed: one string.
    EXPECT_NE(
        MegatronArgsWriter::write(llamaAt(32768, 4096, 0)).find("--cp-comm-type all_gather\n"), std::string::npos);
    EXPECT_NE(
        NemoRecipeWriter::write(llamaAt(32768, 4096, 0)).find("cp_comm_type = \"all_gather\"\n"), std::string::npos);
    EXPECT_EQ(MegatronArgsWriter::write(llamaAt(32768, 0, 0)).find("--cp-comm-type"), std::string::npos);
    // A type the engine does not price as given is named.
    std::string a2a = args;
    a2a.replace(a2a.find("--cp-comm-type all_gather"), 25, "--cp-comm-type a2a");
    const auto fromA2a = LaunchArgsImporter::import(a2a, {});
    ASSERT_TRUE(fromA2a.scenario) << fromA2a.error;
    ASSERT_EQ(fromA2a.notes.size(), 1u);
    EXPECT_NE(fromA2a.notes[0].find("--cp-comm-type a2a all_gather ... (32 per-layer types): priced as all_gather on "
                                    "the windowed layers"),
        std::string::npos)
        << fromA2a.notes[0];
    const auto bad = LaunchArgsImporter::import(parallax::test::smallMegatronCommand("--window-size 4096,4096"), {});
    EXPECT_FALSE(bad.scenario);
    EXPECT_NE(bad.error.find("--window-size"), std::string::npos) << bad.error;

    // Megatron-Core's list form of --window-attn-skip-freq (1: windowed; moe_freq_type), bare or as NeMo writes it.
    auto pattern = [](const std::string& freq) {
        const auto r = LaunchArgsImporter::import(
            parallax::test::smallMegatronCommand("--window-size 1024,0 --window-attn-skip-freq \"" + freq + "\""), {});
        return r.scenario ? r.scenario->model.slidingWindowPattern : -1;
    };
    EXPECT_EQ(pattern("([1]*1+[0]*1)*2"), 2);
    EXPECT_EQ(pattern("[1,1,1,0]"), 4);
    EXPECT_EQ(pattern("[1]*4"), 0);
    EXPECT_EQ(pattern("[0]*4"), 1);
    const auto irregular = LaunchArgsImporter::import(
        parallax::test::smallMegatronCommand("--window-size 1024,0 --window-attn-skip-freq \"[0,1,1,1]\""), {});
    EXPECT_FALSE(irregular.scenario);
    EXPECT_NE(irregular.error.find("--window-attn-skip-freq [0,1,1,1]: Parallax models full attention on every N-th"),
        std::string::npos)
        << irregular.error;
    std::string nemoSkipList = nemo;
    nemoSkipList.replace(
        nemoSkipList.find("window_attn_skip_freq = 4"), 25, "window_attn_skip_freq = [1, 1, 1, 0] * 8");
    const auto fromNemoList = LaunchArgsImporter::import(nemoSkipList, {});
    ASSERT_TRUE(fromNemoList.scenario) << fromNemoList.error;
    EXPECT_EQ(fromNemoList.scenario->model.slidingWindowPattern, 4);

    // torchtitan's llama3 has no window: the launch says so and the prediction is full attention (slower).
    std::vector<std::string> changes;
    const Scenario titan = runAs(s, LaunchFramework::Torchtitan, changes);
    EXPECT_EQ(titan.model.slidingWindow, 0);
    ASSERT_EQ(changes.size(), 1u);
    EXPECT_NE(TorchtitanTomlWriter::write(s).find("no sliding window"), std::string::npos);
    EXPECT_GT(evaluate(titan).stepTimeSeconds, 1.2 * evaluate(s).stepTimeSeconds);

    // Megatron-Core has windows, not chunks: chunked layers train as sliding windows of the chunk.
    s.model.chunkedAttention = true;
    changes.clear();
    const Scenario megatron = runAs(s, LaunchFramework::MegatronLm, changes);
    EXPECT_FALSE(megatron.model.chunkedAttention);
    EXPECT_EQ(megatron.model.slidingWindow, 4096);
    EXPECT_NE(MegatronArgsWriter::write(s).find("not chunked attention"), std::string::npos);
    // Within one window nothing differs, and nothing is said.
    changes.clear();
    runAs(llamaAt(4096, 4096, 4, true), LaunchFramework::MegatronLm, changes);
    EXPECT_TRUE(changes.empty());
}
